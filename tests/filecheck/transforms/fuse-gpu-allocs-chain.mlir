// RUN: xdsl-opt %examples/stencil_chain.mlir -p 'fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s
// Halide's f1 -> f2 -> f3 chain (11x11, 10x10, 9x9 i32; lifetimes [0,1], [1,2], [2,3]).
// By hand: the most bytes live at one stage is f1 + f2 = 484 + 400 = 884 (stage 1).
// f2 must sit at 0 and f1 at 400 (f1 first would push f2 to 496 by alignment);
// f3 overlaps f2's stage 2 so it goes at 400..560, sharing bytes with f1 only.

// CHECK:      kernel @stencil_chain: 4 barrier stage(s)
// CHECK-NEXT:   Func             space      bytes   offset  lifetime
// CHECK-NEXT:   f1               shared       484      400  [0, 1]
// CHECK-NEXT:   f2               shared       400        0  [1, 2]
// CHECK-NEXT:   f3               shared       324      {{400|416|432|448|464|480|496|512|528|544|560}}  [2, 3]
// CHECK-NEXT:   shared backing 'shared_alloc': unfused 1208 B, fused 884 B, lower bound 884 B, Halide grouping {{[0-9]+}} B (optimal)

// CHECK:      ^bb0(%in: memref<67x67xi32>, %out: memref<64x64xi32>):
// CHECK-NEXT:   %c400 = arith.constant 400 : index
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// The record: each Func's bytes with the lifetime above.
// CHECK:        %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "f2", offset = 0 : i64, bytes = 400 : i64, stages = array<i64: 1, 2>}, {name = "f1", offset = 400 : i64, bytes = 484 : i64, stages = array<i64: 0, 1>}, {name = "f3", offset = {{400|416|432|448|464|480|496|512|528|544|560}} : i64, bytes = 324 : i64, stages = array<i64: 2, 3>}]} : memref<884xi8, 3 : i32>
// CHECK-NEXT:   %[[P1:.*]] = gpu_alloc.offset_pointer %shared_alloc[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f1 = gpu_alloc.alias "f1" %[[P1]] : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
// CHECK-NEXT:   %[[P2:.*]] = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f2 = gpu_alloc.alias "f2" %[[P2]] : !gpu_alloc.ptr<3 : i32> -> memref<10x10xi32, 3 : i32>
// CHECK-NEXT:   %[[P3:.*]] = gpu_alloc.offset_pointer %shared_alloc[%{{c[0-9]+}}] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f3 = gpu_alloc.alias "f3" %[[P3]] : !gpu_alloc.ptr<3 : i32> -> memref<9x9xi32, 3 : i32>
// CHECK-NOT:    gpu_alloc.alloc
// Loads and stores still go through the per-Func values.
// CHECK:        memref.store %v, %f1[%ty, %tx] : memref<11x11xi32, 3 : i32>
// CHECK:        memref.store %s, %f2[%ty, %tx] : memref<10x10xi32, 3 : i32>
// CHECK:        memref.store %{{.*}}, %f3[%ty, %tx] : memref<9x9xi32, 3 : i32>
