// The 56 KiB kernel as a gpu.launch body in host code (no gpu.module).
func.func @f(%buf: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    %a = memref.alloc() : memref<7168xf32, 3>
    %b = memref.alloc() : memref<7168xf32, 3>
    %f = arith.constant 1.0 : f32
    memref.store %f, %a[%tx] : memref<7168xf32, 3>
    memref.store %f, %b[%tx] : memref<7168xf32, 3>
    gpu.barrier
    %v = memref.load %a[%c0] : memref<7168xf32, 3>
    %w = memref.load %b[%c0] : memref<7168xf32, 3>
    %s = arith.addf %v, %w : f32
    memref.store %s, %buf[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
