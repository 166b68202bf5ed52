// The embedded parser reads MLIR's syntax of the `amdgpu` ops whose assemblyFormat
// syntax/mlir_amdgpu.py declares (AMDGPU.td: gather_to_lds, lds_barrier,
// raw_buffer_load, raw_buffer_store, transpose_load, fat_raw_buffer_cast; the buffer
// ops' boundsCheck and indexOffset in the attribute dictionary, which MLIR writes
// before the operands, boundsCheck only when it is not its default, true) as
// mlir-opt-22 does, trailing attribute dictionaries and optional operands present and
// absent, and prints it back. fat_raw_buffer_cast's clauses (an `oilist` in AMDGPU.td)
// are read in the order MLIR prints them.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

func.func @lds(%g: memref<64x128xf16>, %l: memref<64x64xf16, #gpu.address_space<workgroup>>, %v: memref<128xf16>, %i: index, %j: index) -> (vector<4xf16>, vector<4xf16>) {
  amdgpu.gather_to_lds %g[%i, %j], %l[%i, %j] : vector<8xf16>, memref<64x128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  amdgpu.gather_to_lds %v[%i], %l[%i, %j] {tag} : f16, memref<128xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
  amdgpu.lds_barrier
  amdgpu.lds_barrier {tag}
  %a = amdgpu.transpose_load %l[%i, %j] : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4xf16>
  %b = amdgpu.transpose_load %l[%j, %i] {tag} : memref<64x64xf16, #gpu.address_space<workgroup>> -> vector<4xf16>
  return %a, %b : vector<4xf16>, vector<4xf16>
}

func.func @buffers(%buf: memref<?xf32>, %grid: memref<8x8xf32>, %one: memref<f32>, %o: i32, %v: vector<4xf32>, %x: f32) -> (vector<4xf32>, f32, f32, f32) {
  %a = amdgpu.raw_buffer_load {boundsCheck = true} %buf[%o] : memref<?xf32>, i32 -> vector<4xf32>
  %b = amdgpu.raw_buffer_load {boundsCheck = false, indexOffset = 1 : i32, tag} %grid[%o, %o] sgprOffset %o : memref<8x8xf32>, i32, i32 -> f32
  %c = amdgpu.raw_buffer_load %one[] : memref<f32> -> f32
  %d = amdgpu.raw_buffer_load %one[] sgprOffset %o : memref<f32> -> f32
  amdgpu.raw_buffer_store {boundsCheck = false} %v -> %buf[%o] : vector<4xf32> -> memref<?xf32>, i32
  amdgpu.raw_buffer_store %x -> %grid[%o, %o] sgprOffset %o : f32 -> memref<8x8xf32>, i32, i32
  amdgpu.raw_buffer_store {indexOffset = 2 : i32, tag} %x -> %one[] : f32 -> memref<f32>
  return %a, %b, %c, %d : vector<4xf32>, f32, f32, f32
}

func.func @casts(%buf: memref<?xf32>, %n: i64, %s: i14) -> (memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>) {
  %a = amdgpu.fat_raw_buffer_cast %buf : memref<?xf32> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
  %b = amdgpu.fat_raw_buffer_cast %buf resetOffset {tag} : memref<?xf32> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
  %c = amdgpu.fat_raw_buffer_cast %buf validBytes(%n) cacheSwizzleStride(%s) boundsCheck(false) resetOffset : memref<?xf32> to memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
  return %a, %b, %c : memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>, memref<?xf32, #amdgpu.address_space<fat_raw_buffer>>
}
