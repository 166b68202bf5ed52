// The stencil chain of examples/stencil_chain.mlir in the flattened form that
// fuse-gpu-allocs + flatten-aliases emit (written by hand, see docs/design.md).
// Halide's f1 -> f2 -> f3 stencil chain (PR #1089's example), one 8x8 output tile
// per block. Block size 16x16 threads; grid 8x8. Each stage reads the previous
// Func at (y, x) and (y+1, x+1), so the tiles shrink by one each stage:
// f1 11x11, f2 10x10, f3 9x9 i32 in shared memory. Lifetimes in barrier stages:
// f1 [0,1], f2 [1,2], f3 [2,3]: f1 and f3 may share bytes, f2 overlaps neither.
// Unfused: 484 + 400 + 324 = 1208 bytes; fused lower bound: 484 + 400 = 884 bytes.
builtin.module {
  "gpu.module"() <{sym_name = "stencil"}> ({
    "gpu.func"() <{function_type = (memref<67x67xi32>, memref<64x64xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<67x67xi32>, %out: memref<64x64xi32>):
      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<884xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %f2 = memref.view %shared_alloc[%c0][] : memref<884xi8, 3 : i32> to memref<10x10xi32, 3 : i32>
      %c400 = arith.constant 400 : index
      %f1 = memref.view %shared_alloc[%c400][] : memref<884xi8, 3 : i32> to memref<11x11xi32, 3 : i32>
      %f3 = memref.view %shared_alloc[%c400][] : memref<884xi8, 3 : i32> to memref<9x9xi32, 3 : i32>
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %c9 = arith.constant 9 : index
      %c10 = arith.constant 10 : index
      %c11 = arith.constant 11 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
      %x0 = arith.muli %bx, %c8 : index
      %y0 = arith.muli %by, %c8 : index
      %gx = arith.addi %x0, %tx : index
      %gy = arith.addi %y0, %ty : index
      %tx1 = arith.addi %tx, %c1 : index
      %ty1 = arith.addi %ty, %c1 : index
      // stage 0: f1 = in (tile with a 3-pixel apron)
      %inx11 = arith.cmpi ult, %tx, %c11 : index
      %iny11 = arith.cmpi ult, %ty, %c11 : index
      %in11 = arith.andi %inx11, %iny11 : i1
      scf.if %in11 {
        %v = memref.load %in[%gy, %gx] : memref<67x67xi32>
        memref.store %v, %f1[%ty, %tx] {alignment = 4 : i64} : memref<11x11xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 1: f2 = f1(y, x) + f1(y+1, x+1)
      %inx10 = arith.cmpi ult, %tx, %c10 : index
      %iny10 = arith.cmpi ult, %ty, %c10 : index
      %in10 = arith.andi %inx10, %iny10 : i1
      scf.if %in10 {
        %a = memref.load %f1[%ty, %tx] {alignment = 4 : i64} : memref<11x11xi32, 3 : i32>
        %b = memref.load %f1[%ty1, %tx1] {alignment = 4 : i64} : memref<11x11xi32, 3 : i32>
        %s = arith.addi %a, %b : i32
        memref.store %s, %f2[%ty, %tx] {alignment = 4 : i64} : memref<10x10xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 2: f3 = f2(y, x) + f2(y+1, x+1)
      %inx9 = arith.cmpi ult, %tx, %c9 : index
      %iny9 = arith.cmpi ult, %ty, %c9 : index
      %in9 = arith.andi %inx9, %iny9 : i1
      scf.if %in9 {
        %a = memref.load %f2[%ty, %tx] {alignment = 4 : i64} : memref<10x10xi32, 3 : i32>
        %b = memref.load %f2[%ty1, %tx1] {alignment = 4 : i64} : memref<10x10xi32, 3 : i32>
        %s = arith.addi %a, %b : i32
        memref.store %s, %f3[%ty, %tx] {alignment = 4 : i64} : memref<9x9xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      // stage 3: out = f3(y, x) + f3(y+1, x+1)
      %inx8 = arith.cmpi ult, %tx, %c8 : index
      %iny8 = arith.cmpi ult, %ty, %c8 : index
      %in8 = arith.andi %inx8, %iny8 : i1
      scf.if %in8 {
        %a = memref.load %f3[%ty, %tx] {alignment = 4 : i64} : memref<9x9xi32, 3 : i32>
        %b = memref.load %f3[%ty1, %tx1] {alignment = 4 : i64} : memref<9x9xi32, 3 : i32>
        %s = arith.addi %a, %b : i32
        memref.store %s, %out[%gy, %gx] : memref<64x64xi32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "stencil_chain"} : () -> ()
  }) : () -> ()
}
