func.func @f(%n: memref<128x64xf32>, %d: memref<?x?xf32, 3>) {
  %tr = memref.transpose %n (i, j) -> (j, i) : memref<128x64xf32> to memref<64x128xf32, affine_map<(d0, d1) -> (d0 + d1 * 64)>>
  %p = memref.extract_aligned_pointer_as_index %n : memref<128x64xf32> -> index
  %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %d : memref<?x?xf32, 3> -> memref<f32, 3>, index, index, index, index, index
  %a = memref.assume_alignment %n, 16 : memref<128x64xf32>
  %e = memref.expand_shape %n [[0, 1], [2]] output_shape [2, 64, 64] : memref<128x64xf32> into memref<2x64x64xf32>
  %c0 = arith.constant 0 : index
  %dim = memref.dim %d, %c0 : memref<?x?xf32, 3>
  %rc = memref.reinterpret_cast %base to offset: [%off], sizes: [%dim, 4], strides: [4, 1] : memref<f32, 3> to memref<?x4xf32, strided<[4, 1], offset: ?>, 3>
  return
}
