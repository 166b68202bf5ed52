// sim-launch: --grid 2 --block 32
// Unstructured control flow: threads split at a cf.cond_br, run different blocks,
// and reconverge (at the branch's immediate post-dominator) before the barrier.
//   even threads: v = in[g] * 3;   odd threads: v = in[g] + 100
//   stage 0: s[t] = v;   stage 1: out[g] = s[31 - t]
builtin.module {
  "gpu.module"() <{sym_name = "branches"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, memref<64xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<64xi32>, %out: memref<64xi32>):
      %c1 = arith.constant 1 : index
      %c31 = arith.constant 31 : index
      %c32 = arith.constant 32 : index
      %three = arith.constant 3 : i32
      %hundred = arith.constant 100 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %base = arith.muli %bx, %c32 : index
      %g = arith.addi %base, %t : index
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<32xi32, 3 : i32>
      %x = memref.load %in[%g] : memref<64xi32>
      %parity = arith.andi %t, %c1 : index
      %is_even = arith.cmpi ne, %parity, %c1 : index
      cf.cond_br %is_even, ^even(%x : i32), ^odd(%x : i32)
    ^even(%e: i32):
      %e3 = arith.muli %e, %three : i32
      cf.br ^join(%e3 : i32)
    ^odd(%o: i32):
      %o100 = arith.addi %o, %hundred : i32
      cf.br ^join(%o100 : i32)
    ^join(%v: i32):
      memref.store %v, %s[%t] : memref<32xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %r = arith.subi %c31, %t : index
      %w = memref.load %s[%r] : memref<32xi32, 3 : i32>
      memref.store %w, %out[%g] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "branches"} : () -> ()
  }) : () -> ()
}
