// A 96 KiB memref.global in the named workgroup space, read by the kernel.
gpu.module @m {
  memref.global "private" @big : memref<24576xf32, #gpu.address_space<workgroup>>
  gpu.func @k(%out: memref<16xf32, 1>) kernel {
    %c0 = arith.constant 0 : index
    %g = memref.get_global @big : memref<24576xf32, #gpu.address_space<workgroup>>
    %t = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %g[%t] : memref<24576xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %g[%c0] : memref<24576xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%c0] : memref<16xf32, 1>
    gpu.return
  }
}
