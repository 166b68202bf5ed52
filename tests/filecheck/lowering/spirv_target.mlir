// REQUIRES: mlir-opt-22, spirv-tools
// `-t spirv`: SPIR-V assembly of an OpenCL kernel that spirv-as assembles and spirv-val
// accepts, the fused backing one Workgroup variable of 884 bytes, global memory
// CrossWorkgroup, on both backends and SPIR-V versions.
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -t spirv > %t.spvasm
// RUN: filecheck %s < %t.spvasm
// RUN: spirv-as --preserve-numeric-ids --target-env spv1.4 %t.spvasm -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: gpu-alloc-opt %examples/stencil_chain.mlir -p fuse-gpu-allocs -t 'spirv{backend=mlir}' > %t.mlir.spvasm
// RUN: filecheck %s < %t.mlir.spvasm
// RUN: spirv-as --preserve-numeric-ids --target-env spv1.4 %t.mlir.spvasm -o %t.mlir.spv
// RUN: spirv-val --target-env spv1.4 %t.mlir.spv
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'spirv{spirv_version=10}' > %t.10.spvasm
// RUN: spirv-as --preserve-numeric-ids --target-env spv1.0 %t.10.spvasm -o %t.10.spv
// RUN: spirv-val --target-env spv1.0 %t.10.spv
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'spirv{spirv_version=15}' 2>&1 | filecheck %s --check-prefix VERSION
// RUN: not gpu-alloc-opt %S/inputs/dynamic_shared.mlir -t spirv 2>&1 | filecheck %s --check-prefix DYNAMIC

// CHECK:     OpCapability Kernel
// CHECK:     OpMemoryModel Physical64 OpenCL
// CHECK:     OpEntryPoint Kernel %[[K:[0-9]+]] "stencil_chain"
// CHECK-DAG: %[[BYTE:[0-9]+]] = OpTypeInt 8 0
// CHECK-DAG: %[[N:[0-9]+]] = OpConstant %{{[0-9]+}} 884
// CHECK-DAG: %[[ARRAY:[0-9]+]] = OpTypeArray %[[BYTE]] %[[N]]
// CHECK-DAG: %[[POINTER:[0-9]+]] = OpTypePointer Workgroup %[[ARRAY]]
// CHECK-DAG: OpTypePointer CrossWorkgroup
// CHECK:     OpVariable %[[POINTER]] Workgroup
// CHECK:     OpControlBarrier

// VERSION:   error: unknown spirv_version 15 (SPIR-V version x10; choose from 10, 11, 12, 13, 14)
// DYNAMIC:   dynamic_shared.mlir:11:7: error: dynamic shared allocation 'shared_alloc' in kernel 'reverse' cannot be lowered for spirv: OpenCL passes dynamic Workgroup memory as a __local kernel argument, which lower-gpu-allocs does not make (give it a static size)
// DYNAMIC-NOT: OpCapability
