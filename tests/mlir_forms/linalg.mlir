func.func @f(%a: memref<64x64xf32, 3>, %b: memref<64x64xf32, 3>, %c: memref<64x64xf32>, %v: vector<4xf32>, %i: index) {
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%a : memref<64x64xf32, 3>)
  linalg.copy ins(%a : memref<64x64xf32, 3>) outs(%b : memref<64x64xf32, 3>)
  linalg.matmul ins(%a, %b : memref<64x64xf32, 3>, memref<64x64xf32, 3>) outs(%c : memref<64x64xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]} ins(%a : memref<64x64xf32, 3>) outs(%b : memref<64x64xf32, 3>) {
  ^bb0(%x: f32, %y: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  %r = vector.transfer_read %a[%i, %i], %z {in_bounds = [true]} : memref<64x64xf32, 3>, vector<4xf32>
  vector.transfer_write %v, %b[%i, %i] {in_bounds = [true]} : vector<4xf32>, memref<64x64xf32, 3>
  %col = memref.collapse_shape %c [[0, 1]] : memref<64x64xf32> into memref<4096xf32>
  return
}
