// Two 28 KiB shared buffers live at once: 57344 bytes fused, over the 48 KiB of the
// baseline (no chip), within gfx942's 64 KiB. No target attribute.
gpu.module @m {
  gpu.func @k(%out: memref<16xf32, 1>) kernel {
    %a = memref.alloc() : memref<7168xf32, 3>
    %b = memref.alloc() : memref<7168xf32, 3>
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%t] : memref<7168xf32, 3>
    memref.store %f, %b[%t] : memref<7168xf32, 3>
    gpu.barrier
    %v = memref.load %a[%c0] : memref<7168xf32, 3>
    %w = memref.load %b[%c0] : memref<7168xf32, 3>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%c0] : memref<16xf32, 1>
    gpu.return
  }
}
