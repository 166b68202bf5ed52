func.func @f(%v: vector<4x8xf32>, %w: vector<8x4xf32>, %a: vector<32xf32>, %s: f32, %m: memref<64xf32, 3>, %idx: vector<4xindex>, %mask: vector<4xi1>, %p: vector<4xf32>, %i: index) {
  %0 = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>
  %1 = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %2 = vector.extract_strided_slice %v {offsets = [0, 2], sizes = [2, 4], strides = [1, 1]} : vector<4x8xf32> to vector<2x4xf32>
  %3 = vector.insert_strided_slice %2, %v {offsets = [2, 0], strides = [1, 1]} : vector<2x4xf32> into vector<4x8xf32>
  %4 = vector.step : vector<4xindex>
  %acc = arith.constant dense<0.0> : vector<4xf32>
  %5 = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  %6 = vector.from_elements %s, %s, %s, %s : vector<4xf32>
  %7:4 = vector.to_elements %6 : vector<4xf32>
  %8 = vector.constant_mask [2] : vector<4xi1>
  %c0 = arith.constant 0 : index
  %10 = vector.gather %m[%c0] [%idx], %mask, %p : memref<64xf32, 3>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  vector.scatter %m[%c0] [%idx], %mask, %p : memref<64xf32, 3>, vector<4xindex>, vector<4xi1>, vector<4xf32>
  %11 = vector.interleave %p, %p : vector<4xf32> -> vector<8xf32>
  %12, %13 = vector.deinterleave %11 : vector<8xf32> -> vector<4xf32>
  %accm = arith.constant dense<0.0> : vector<4x4xf32>
  %14 = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %w, %accm : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  %15 = vector.extract %v[0, %i] : f32 from vector<4x8xf32>
  %16 = vector.outerproduct %p, %p : vector<4xf32>, vector<4xf32>
  return
}
