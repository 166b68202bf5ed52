// sim-launch: --grid 2 --block 64
// Halide's loop-liveness pitfall: p is made before a block-level loop and read in
// every iteration's first stage; s is written in the second stage. Textually p's last
// use comes before s's first, but p is live across the whole loop, so p and s must
// not share bytes (a fusion that puts them together reads a clobbered p in iteration 2).
//   stage 0:          p[t] = in[b*64 + t]
//   loop r in 0..3:   q[t] = p[63 - t] + r        (stage A)
//                     s[t] = q[63 - t] * 2        (stage B)
//   after the loop:   out[b*64 + t] = s[t] + q[t]
builtin.module {
  "gpu.module"() <{sym_name = "loop_reuse"}> ({
    "gpu.func"() <{function_type = (memref<128xi32>, memref<128xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<128xi32>, %out: memref<128xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %two = arith.constant 2 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c64 : index
      %gi = arith.addi %base, %t : index
      %rt = arith.subi %c63, %t : index
      %p = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<64xi32, 3 : i32>
      %q = "gpu_alloc.alloc"() <{name = "q"}> : () -> memref<64xi32, 3 : i32>
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<64xi32, 3 : i32>
      %v = memref.load %in[%gi] : memref<128xi32>
      memref.store %v, %p[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      scf.for %r = %c0 to %c3 step %c1 {
        %pv = memref.load %p[%rt] : memref<64xi32, 3 : i32>
        %ri = arith.index_cast %r : index to i32
        %qv = arith.addi %pv, %ri : i32
        memref.store %qv, %q[%t] : memref<64xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %qr = memref.load %q[%rt] : memref<64xi32, 3 : i32>
        %sv = arith.muli %qr, %two : i32
        memref.store %sv, %s[%t] : memref<64xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
      }
      %a = memref.load %s[%t] : memref<64xi32, 3 : i32>
      %b = memref.load %q[%t] : memref<64xi32, 3 : i32>
      %o = arith.addi %a, %b : i32
      memref.store %o, %out[%gi] : memref<128xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "loop_reuse"} : () -> ()
  }) : () -> ()
}
