// A 50 KiB workgroup attribution: over the 48 KiB a PTX kernel may declare statically.
gpu.module @m {
  gpu.func @k(%out: memref<16xf32, 1>) workgroup(%w: memref<12800xf32, 3>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %f = arith.constant 1.0 : f32
    memref.store %f, %w[%t] : memref<12800xf32, 3>
    gpu.barrier
    %v = memref.load %w[%c0] : memref<12800xf32, 3>
    memref.store %v, %out[%c0] : memref<16xf32, 1>
    gpu.return
  }
}
