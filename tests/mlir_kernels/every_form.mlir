// sim-launch: --grid 2 --block 64
// Every way MLIR writes a kernel's buffers, in one kernel of 64 threads per block (block b
// works on elements [64 b, 64 b + 64) of %in and %out; t is the thread, r = 63 - t):
//   %a  a workgroup attribution spelled `3` (i64)     a[t] = in[64 b + t]
//   %p  a private attribution                          p[0] = a[r]
//   %b  memref.alloc in #gpu.address_space<workgroup>  b[t] = int(a[r])
//   %c  memref.alloca in `3 : i32`                     c[t] = twice(float(b[r]))   (@twice: a func.func)
//   @g  a workgroup memref.global (memref.get_global)  g[t] = p[0]
//   %q  memref.alloca in #gpu.address_space<private>   q[0] = c[r] + g[r]
// so out[64 b + t] = 2 * int(in[64 b + r]) + in[64 b + t]. Barrier stages: a [0, 1],
// b [1, 2], c and g [2, 3]: c or g may reuse a's bytes.
gpu.module @forms {
  memref.global "private" @g : memref<64xf32, #gpu.address_space<workgroup>>
  func.func @twice(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
  gpu.func @every_form(%in: memref<128xf32>, %out: memref<128xf32>)
      workgroup(%a: memref<64xf32, 3>)
      private(%p: memref<1xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c64 : index
    %i = arith.addi %base, %t : index
    %r = arith.subi %c63, %t : index
    %x = memref.load %in[%i] : memref<128xf32>
    memref.store %x, %a[%t] : memref<64xf32, 3>
    gpu.barrier
    %b = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %ar = memref.load %a[%r] : memref<64xf32, 3>
    memref.store %ar, %p[%c0] : memref<1xf32, #gpu.address_space<private>>
    %ai = arith.fptosi %ar : f32 to i32
    memref.store %ai, %b[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c = memref.alloca() : memref<64xf32, 3 : i32>
    %bv = memref.load %b[%r] : memref<64xi32, #gpu.address_space<workgroup>>
    %bf = arith.sitofp %bv : i32 to f32
    %tw = func.call @twice(%bf) : (f32) -> f32
    memref.store %tw, %c[%t] : memref<64xf32, 3 : i32>
    %g = memref.get_global @g : memref<64xf32, #gpu.address_space<workgroup>>
    %pv = memref.load %p[%c0] : memref<1xf32, #gpu.address_space<private>>
    memref.store %pv, %g[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %cv = memref.load %c[%r] : memref<64xf32, 3 : i32>
    %gv = memref.load %g[%r] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %cv, %gv : f32
    %q = memref.alloca() : memref<1xf32, #gpu.address_space<private>>
    memref.store %s, %q[%c0] : memref<1xf32, #gpu.address_space<private>>
    %qv = memref.load %q[%c0] : memref<1xf32, #gpu.address_space<private>>
    memref.store %qv, %out[%i] : memref<128xf32>
    gpu.return
  }
}
