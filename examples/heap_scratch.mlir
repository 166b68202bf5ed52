// Global-memory ("heap") scratch: two per-block f32 buffers too large for
// registers, plus a shared i32 counter table. Block size 128 threads (x); grid 4 (x).
//   stage 0: h1[t] = in[b*128 + t] * 2          (heap)
//   stage 1: h2[t] = h1[t] + h1[127 - t]          (heap; h1's last use)
//            s[t] = t * t, for t < 32              (shared)
//   stage 2: out[b*128 + t] = h2[t] + s[t % 32]
// Heap lifetimes: h1 [0,1], h2 [1,2] (overlap: no reuse); each block owns a slice
// of the heap backing at linear_block_id * per_block_bytes.
builtin.module {
  "gpu.module"() <{sym_name = "heap"}> ({
    "gpu.func"() <{function_type = (memref<512xf32>, memref<512xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<512xf32>, %out: memref<512xf32>):
      %c32 = arith.constant 32 : index
      %c127 = arith.constant 127 : index
      %c128 = arith.constant 128 : index
      %two = arith.constant 2.0 : f32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c128 : index
      %gi = arith.addi %base, %t : index
      %h1 = "gpu_alloc.alloc"() <{name = "h1"}> : () -> memref<128xf32, 1 : i32>
      %h2 = "gpu_alloc.alloc"() <{name = "h2"}> : () -> memref<128xf32, 1 : i32>
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<32xi32, 3 : i32>
      %v = memref.load %in[%gi] : memref<512xf32>
      %v2 = arith.mulf %v, %two : f32
      memref.store %v2, %h1[%t] : memref<128xf32, 1 : i32>
      "gpu.barrier"() : () -> ()
      %r = arith.subi %c127, %t : index
      %a = memref.load %h1[%t] : memref<128xf32, 1 : i32>
      %b = memref.load %h1[%r] : memref<128xf32, 1 : i32>
      %ab = arith.addf %a, %b : f32
      memref.store %ab, %h2[%t] : memref<128xf32, 1 : i32>
      %lane = arith.remui %t, %c32 : index
      %first_warp = arith.cmpi ult, %t, %c32 : index
      scf.if %first_warp {
        %ti = arith.index_cast %t : index to i32
        %ti3 = arith.muli %ti, %ti : i32
        memref.store %ti3, %s[%t] : memref<32xi32, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      %h = memref.load %h2[%t] : memref<128xf32, 1 : i32>
      %k = memref.load %s[%lane] : memref<32xi32, 3 : i32>
      %kf = arith.sitofp %k : i32 to f32
      %o = arith.addf %h, %kf : f32
      memref.store %o, %out[%gi] : memref<512xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "heap_scratch"} : () -> ()
  }) : () -> ()
}
