// Two 40 KiB shared buffers live at once: 81920 bytes fused, no target attribute.
gpu.module @m {
  gpu.func @k(%out: memref<16xf32, 1>) kernel {
    %a = memref.alloc() : memref<10240xf32, 3>
    %b = memref.alloc() : memref<10240xf32, 3>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%t] : memref<10240xf32, 3>
    memref.store %f, %b[%t] : memref<10240xf32, 3>
    gpu.barrier
    %v = memref.load %a[%c0] : memref<10240xf32, 3>
    %w = memref.load %b[%c0] : memref<10240xf32, 3>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%c0] : memref<16xf32, 1>
    gpu.return
  }
}
