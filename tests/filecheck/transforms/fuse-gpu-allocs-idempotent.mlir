// RUN: xdsl-opt %examples/stencil_chain.mlir -p fuse-gpu-allocs > %t.once.mlir
// RUN: xdsl-opt %t.once.mlir -p fuse-gpu-allocs > %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: xdsl-opt %examples/heap_scratch.mlir -p fuse-gpu-allocs > %t.heap.once.mlir
// RUN: xdsl-opt %t.heap.once.mlir -p fuse-gpu-allocs > %t.heap.twice.mlir
// RUN: diff %t.heap.once.mlir %t.heap.twice.mlir
// RUN: xdsl-opt %examples/mixed_types.mlir -p fuse-gpu-allocs > %t.mixed.once.mlir
// RUN: xdsl-opt %t.mixed.once.mlir -p fuse-gpu-allocs | filecheck %s
// RUN: xdsl-opt %examples/heap_scratch.mlir -p fuse-gpu-allocs,flatten-aliases > %t.flat.mlir
// RUN: xdsl-opt %t.flat.mlir -p fuse-gpu-allocs > %t.flat.twice.mlir
// RUN: diff %t.flat.mlir %t.flat.twice.mlir
// Running fuse-gpu-allocs on its own output changes nothing: backings (allocations
// with the `backing` property) are never fused again, even after flatten-aliases
// has replaced their offset_pointers by views.
// CHECK-COUNT-1: gpu_alloc.alloc "shared_alloc"
// CHECK-NOT:     gpu_alloc.alloc
