// REQUIRES: mlir-opt-22
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs | mlir-opt-22 --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | filecheck %s
// RUN: xdsl-opt %S/inputs/heap_scratch_fused.mlir -p lower-gpu-allocs | mlir-opt-22 --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | filecheck %s --check-prefix HEAP
// RUN: xdsl-opt %S/inputs/dynamic_shared.mlir -p lower-gpu-allocs | mlir-opt-22 --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | filecheck %s --check-prefix DYN

// MLIR 22 accepts what lower-gpu-allocs emits and compiles it to PTX: the fused stencil
// backing is one 884-byte shared array aligned to 16.
// CHECK: gpu.binary @stencil
// CHECK-SAME: .shared .align 16 .b8 stencil_chain__shared_alloc[884];

// The heap backing is the kernel's last parameter, and the host allocates and frees it
// around the launch (MLIR's GPU runtime calls).
// HEAP: gpu.binary @heap
// HEAP-SAME: .shared .align 16 .b8 heap_scratch__s[128];
// HEAP: llvm.call @mgpuMemAlloc
// HEAP: gpu.launch_func @heap::@heap_scratch
// HEAP: llvm.call @mgpuMemFree

// Dynamic shared memory: the launch passes its size.
// DYN: gpu.binary @dyn
// DYN: gpu.launch_func @dyn::@reverse
// DYN-SAME: dynamic_shared_memory_size
