// sim-launch: --grid 2 --block 32
// A 32x32 f32 tile transpose through shared memory, one warp per block: rows are
// written (thread tx writes column tx of each row r: no conflict), then each thread
// reads its own row, so at every step the warp reads a column of the tile: with a
// 128-byte row pitch all 32 words are in one bank (31 conflicts per read, 32 reads
// per block). pad-shared-allocs makes the tile 32x33 (tests/test_pad_shared_allocs.py).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64x32xf32>, memref<32x64xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<64x32xf32>, %out: memref<32x64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c32 : index
      %tile = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<32x32xf32, 3 : i32>
      scf.for %r = %c0 to %c32 step %c1 {
        %gr = arith.addi %base, %r : index
        %v = memref.load %in[%gr, %tx] : memref<64x32xf32>
        memref.store %v, %tile[%r, %tx] : memref<32x32xf32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      %gx = arith.addi %base, %tx : index
      scf.for %c = %c0 to %c32 step %c1 {
        %v = memref.load %tile[%tx, %c] : memref<32x32xf32, 3 : i32>
        memref.store %v, %out[%c, %gx] : memref<32x64xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "transpose_tile"} : () -> ()
  }) : () -> ()
}
