// RUN: xdsl-opt %examples/stencil_chain.mlir -p fuse-gpu-allocs > %t.once.mlir
// RUN: xdsl-opt %t.once.mlir -p fuse-gpu-allocs > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: xdsl-opt %examples/heap_scratch.mlir -p fuse-gpu-allocs > %t.heap.once.mlir
// RUN: xdsl-opt %t.heap.once.mlir -p fuse-gpu-allocs > %t.heap.twice.mlir
// RUN: diff %t.heap.once.mlir %t.heap.twice.mlir
// RUN: xdsl-opt %examples/mixed_types.mlir -p fuse-gpu-allocs > %t.mixed.once.mlir
// RUN: xdsl-opt %t.mixed.once.mlir -p fuse-gpu-allocs | filecheck %s
// Running fuse-gpu-allocs on its own output changes nothing: backings (allocations
// that offset_pointers point into) are never fused again.
// CHECK-COUNT-1: gpu_alloc.alloc "shared_alloc"
// CHECK-NOT:     gpu_alloc.alloc
