func.func @f(%g: memref<64x128xf16>, %l: memref<64x64xf16, #gpu.address_space<workgroup>>, %i: index, %j: index, %buf: memref<?xf32>, %o: i32, %v: vector<4xf32>, %a: vector<4xf16>, %c: vector<4xf32>) {
  amdgpu.gather_to_lds %g[%i, %j], %l[%i, %j] : vector<8xf16>, memref<64x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  amdgpu.lds_barrier
  %0 = amdgpu.raw_buffer_load {boundsCheck = true} %buf[%o] : memref<?xf32>, i32 -> vector<4xf32>
  amdgpu.raw_buffer_store {boundsCheck = false} %v -> %buf[%o] : vector<4xf32> -> memref<?xf32>, i32
  %1 = amdgpu.transpose_load %l[%i, %j] : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4xf16>
  %2 = amdgpu.fat_raw_buffer_cast %buf resetOffset : memref<?xf32> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
  return
}
