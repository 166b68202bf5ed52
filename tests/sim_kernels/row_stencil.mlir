// sim-launch: --grid 2 --block 32
// A 3-point stencil along rows, one thread per row of a 32x32 f32 shared tile: the
// tile is loaded row by row (no conflict); then thread tx reads tile[tx, i-1..i+1]
// for i in 1..30, so each of the 90 reads per block is a warp reading a column of
// the tile: 31 conflicts each with a 128-byte row pitch, none once padded to 32x33.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x32xf32>, memref<64x32xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<64x32xf32>, %out: memref<64x32xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c32 : index
      %rows = "gpu_alloc.alloc"() <{name = "rows"}> : () -> memref<32x32xf32, 3 : i32>
      scf.for %r = %c0 to %c32 step %c1 {
        %gr = arith.addi %base, %r : index
        %v = memref.load %in[%gr, %tx] : memref<64x32xf32>
        memref.store %v, %rows[%r, %tx] : memref<32x32xf32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      %gy = arith.addi %base, %tx : index
      scf.for %i = %c1 to %c31 step %c1 {
        %im = arith.subi %i, %c1 : index
        %ip = arith.addi %i, %c1 : index
        %a = memref.load %rows[%tx, %im] : memref<32x32xf32, 3 : i32>
        %b = memref.load %rows[%tx, %i] : memref<32x32xf32, 3 : i32>
        %c = memref.load %rows[%tx, %ip] : memref<32x32xf32, 3 : i32>
        %ab = arith.addf %a, %b : f32
        %abc = arith.addf %ab, %c : f32
        memref.store %abc, %out[%gy, %i] : memref<64x32xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "row_stencil"} : () -> ()
  }) : () -> ()
}
