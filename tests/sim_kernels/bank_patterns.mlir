// sim-launch: --grid 2 --block 32
// One warp per block touches three shared Funcs with the textbook bank patterns, a
// heap Func and a private one (tests/test_sim_profile.py checks the profile by hand):
// stage 0: col[r, tx] for r < 32 (rows: 1024 stores, no conflict), row[0, tx] and
//          bcast[tx] (32 stores each), h[tx] (heap, 32 stores);
// stage 1: col[tx, 0] (a column of a 32x32 f32 tile: every word in bank 0, 32
//          wavefronts where 1 would do: 31 conflicts), row[0, tx] (0), bcast[0] (one
//          word for all: 0), h[31 - tx] (heap), p[0] (private, one store and one load).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %txi = arith.index_cast %tx : index to i32
      %txf = arith.sitofp %txi : i32 to f32
      %col = "gpu_alloc.alloc"() <{name = "col"}> : () -> memref<32x32xf32, 3 : i32>
      %row = "gpu_alloc.alloc"() <{name = "row"}> : () -> memref<1x32xf32, 3 : i32>
      %bcast = "gpu_alloc.alloc"() <{name = "bcast"}> : () -> memref<32xf32, 3 : i32>
      %h = "gpu_alloc.alloc"() <{name = "h"}> : () -> memref<32xi32, 1 : i32>
      %p = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<2xi32, 5 : i32>
      scf.for %r = %c0 to %c32 step %c1 {
        memref.store %txf, %col[%r, %tx] : memref<32x32xf32, 3 : i32>
      }
      memref.store %txf, %row[%c0, %tx] : memref<1x32xf32, 3 : i32>
      memref.store %txf, %bcast[%tx] : memref<32xf32, 3 : i32>
      memref.store %txi, %h[%tx] : memref<32xi32, 1 : i32>
      "gpu.barrier"() : () -> ()
      %a = memref.load %col[%tx, %c0] : memref<32x32xf32, 3 : i32>
      %b = memref.load %row[%c0, %tx] : memref<1x32xf32, 3 : i32>
      %c = memref.load %bcast[%c0] : memref<32xf32, 3 : i32>
      %mirror = arith.subi %c31, %tx : index
      %hv = memref.load %h[%mirror] : memref<32xi32, 1 : i32>
      memref.store %hv, %p[%c0] : memref<2xi32, 5 : i32>
      %pv = memref.load %p[%c0] : memref<2xi32, 5 : i32>
      %pf = arith.sitofp %pv : i32 to f32
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      %all = arith.addf %abc, %pf : f32
      %base = arith.muli %bx, %c32 : index
      %gx = arith.addi %base, %tx : index
      memref.store %all, %out[%gx] : memref<64xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "bank_patterns"} : () -> ()
  }) : () -> ()
}
