// A gpu.launch body with a dynamically sized shared buffer (one float per thread of the
// block, plus %n) and a static one: used on either side of a barrier, they share bytes.
func.func @host(%n: index, %out: memref<?xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
    %cst = arith.constant 1.0 : f32
    %m = arith.addi %sx, %n : index
    %dyn = memref.alloc(%m) : memref<?xf32, #gpu.address_space<workgroup>>
    %tile = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %cst, %dyn[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    %v = memref.load %dyn[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %w = memref.load %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tx] : memref<?xf32>
    gpu.terminator
  }
  return
}

// IREE-style workgroup code, at the top level and as a device function.
func.func @workgroup_code(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %a[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %b = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %b[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
  return
}
gpu.module @m {
  func.func @device() {
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.0 : f32
    %a = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
    memref.store %cst, %a[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
    return
  }
}
