// REQUIRES: mlir-opt-22, ld.lld-22, spirv-tools
// Issue 27: a kernel spelling workgroup memory #spirv.storage_class<Workgroup> and a
// func.func kernel (gpu.kernel) are fused and emitted on every target: each kernel is an
// entry point with one 256-byte shared backing (two 256-byte Funcs at offset 0).
// RUN: gpu-alloc-opt %S/inputs/spirv_spelled_kernel.mlir -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases -t ptx | filecheck %s --check-prefix PTX
// RUN: gpu-alloc-opt %S/inputs/spirv_spelled_kernel.mlir -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases -t amdgcn | filecheck %s --check-prefix AMD
// RUN: gpu-alloc-opt %S/inputs/spirv_spelled_kernel.mlir -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases -t spirv > %t.spvasm
// RUN: filecheck %s --check-prefix SPIRV < %t.spvasm
// RUN: spirv-as --preserve-numeric-ids --target-env spv1.4 %t.spvasm -o %t.spv
// RUN: spirv-val --target-env spv1.4 %t.spv
// RUN: gpu-alloc-opt %S/inputs/spirv_spelled_kernel.mlir -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs > %t.lowered.mlir
// RUN: gpu-alloc-opt %t.lowered.mlir | filecheck %s --check-prefix LOWERED
// RUN: mlir-opt-22 %t.lowered.mlir | filecheck %s --check-prefix MLIR

// PTX-DAG:  .visible .entry spelled(
// PTX-DAG:  .shared .align 16 .b8 spelled__shared_alloc[256];
// PTX-DAG:  .visible .entry marked(
// PTX-DAG:  .shared .align 16 .b8 marked__shared_alloc{{[_0-9]*}}[256];
// AMD:      .amdhsa_kernel spelled
// AMD:      .amdhsa_group_segment_fixed_size 256
// AMD:      .amdhsa_kernel marked
// AMD:      .amdhsa_group_segment_fixed_size 256
// SPIRV-DAG: OpEntryPoint Kernel {{%[0-9]+}} "spelled"
// SPIRV-DAG: OpEntryPoint Kernel {{%[0-9]+}} "marked"
// LOWERED:  "memref.global"() <{sym_name = "spelled__shared_alloc", type = memref<256xi8, #spirv.storage_class<Workgroup>>
// MLIR:     memref.global "private" @spelled__shared_alloc : memref<256xi8, #spirv.storage_class<Workgroup>>
