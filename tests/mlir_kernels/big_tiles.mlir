// sim-launch: --grid 2 --block 128
// fuse-options: chip=sm_90
// Two 40 KiB workgroup tiles live at once (80 KiB, over the 48 KiB default: fused with
// chip=sm_90, lowered to the block's dynamic shared memory). Block b, thread t fills
// u[j] = in[(j + 37 b) mod 256] and v[j] = 2 u[j] for j = t, t + 128, ...; after a
// barrier, out[128 b + t] = u[10239 - t] + v[80 t].
gpu.module @big {
  gpu.func @big_tiles(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
    %c37 = arith.constant 37 : index
    %c80 = arith.constant 80 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %c10239 = arith.constant 10239 : index
    %c10240 = arith.constant 10240 : index
    %t = gpu.thread_id x
    %bid = gpu.block_id x
    %shift = arith.muli %bid, %c37 : index
    %u = memref.alloc() : memref<10240xf32, #gpu.address_space<workgroup>>
    %v = memref.alloc() : memref<10240xf32, #gpu.address_space<workgroup>>
    scf.for %j = %t to %c10240 step %c128 {
      %k = arith.addi %j, %shift : index
      %m = arith.remui %k, %c256 : index
      %x = memref.load %in[%m] : memref<256xf32>
      memref.store %x, %u[%j] : memref<10240xf32, #gpu.address_space<workgroup>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %v[%j] : memref<10240xf32, #gpu.address_space<workgroup>>
    }
    gpu.barrier
    %r = arith.subi %c10239, %t : index
    %ur = memref.load %u[%r] : memref<10240xf32, #gpu.address_space<workgroup>>
    %s = arith.muli %t, %c80 : index
    %vs = memref.load %v[%s] : memref<10240xf32, #gpu.address_space<workgroup>>
    %sum = arith.addf %ur, %vs : f32
    %base = arith.muli %bid, %c128 : index
    %o = arith.addi %base, %t : index
    memref.store %sum, %out[%o] : memref<256xf32>
    gpu.return
  }
}
