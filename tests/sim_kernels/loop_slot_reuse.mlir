// sim-launch: --grid 2 --block 32
// Two Funcs made inside a block-level loop whose back edge has a barrier: 'first' is
// used in the first two stages of each iteration, 'second' in the last two, so fusion
// gives them the same bytes. Their aliases are hoisted out of the loop, so the layout
// record falls back to the stages of their uses to tell them apart (SSA names differ
// from the Func names on purpose: the profile must not depend on them).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<32xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<32xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ti = arith.index_cast %t : index to i32
      scf.for %i = %c0 to %c3 step %c1 {
        %x = "gpu_alloc.alloc"() <{name = "first"}> : () -> memref<32xi32, 3 : i32>
        %y = "gpu_alloc.alloc"() <{name = "second"}> : () -> memref<32xi32, 3 : i32>
        memref.store %ti, %x[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %v = memref.load %x[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        memref.store %v, %y[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %w = memref.load %y[%t] : memref<32xi32, 3 : i32>
        memref.store %w, %out[%t] : memref<32xi32>
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
