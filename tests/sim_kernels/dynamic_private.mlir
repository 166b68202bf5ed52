// sim-launch: --grid 3 --block 32 --scalars 48
// Dynamic shared size from a scalar argument, a private (space 5) scratch per thread,
// and a divergent scf.while (each thread counts down from its own start).
//   stage 0: d[i] = in[b*48 + i] for i in [t, n) step 32     (d: n x f32, shared)
//   stage 1: out[b*32 + t] = d[(t + 5) % n] + sum of tmp, where each thread keeps
//            tmp[0..t%4] in private memory and a while loop adds them up.
builtin.module {
  "gpu.module"() <{sym_name = "dyn"}> ({
    "gpu.func"() <{function_type = (memref<144xf32>, memref<96xf32>, index) -> (), kernel}> ({
    ^bb0(%in: memref<144xf32>, %out: memref<96xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c5 = arith.constant 5 : index
      %c32 = arith.constant 32 : index
      %zero = arith.constant 0.0 : f32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %d = "gpu_alloc.alloc"(%n) <{name = "d"}> : (index) -> memref<?xf32, 3 : i32>
      %tmp = "gpu_alloc.alloc"() <{name = "tmp"}> : () -> memref<4xf32, 5 : i32>
      %base = arith.muli %bx, %n : index
      scf.for %i = %t to %n step %c32 {
        %gi = arith.addi %base, %i : index
        %v = memref.load %in[%gi] : memref<144xf32>
        memref.store %v, %d[%i] : memref<?xf32, 3 : i32>
      }
      %count = arith.remui %t, %c4 : index
      scf.for %k = %c0 to %count step %c1 {
        %kf0 = arith.index_cast %k : index to i32
        %kf = arith.sitofp %kf0 : i32 to f32
        memref.store %kf, %tmp[%k] : memref<4xf32, 5 : i32>
      }
      "gpu.barrier"() : () -> ()
      %t5 = arith.addi %t, %c5 : index
      %j = arith.remui %t5, %n : index
      %dv = memref.load %d[%j] : memref<?xf32, 3 : i32>
      %res:2 = scf.while (%left = %count, %acc = %dv) : (index, f32) -> (index, f32) {
        %more = arith.cmpi ugt, %left, %c0 : index
        scf.condition(%more) %left, %acc : index, f32
      } do {
      ^bb1(%l: index, %a: f32):
        %l1 = arith.subi %l, %c1 : index
        %x = memref.load %tmp[%l1] : memref<4xf32, 5 : i32>
        %a1 = arith.addf %a, %x : f32
        scf.yield %l1, %a1 : index, f32
      }
      %ob = arith.muli %bx, %c32 : index
      %oi = arith.addi %ob, %t : index
      memref.store %res#1, %out[%oi] : memref<96xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "dynamic_private"} : () -> ()
  }) : () -> ()
}
