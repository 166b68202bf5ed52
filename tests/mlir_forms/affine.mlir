#map1 = affine_map<(d0) -> (16, -d0 + 100)>
#set = affine_set<(d0) : (d0 - 10 >= 0)>
func.func @f(%m: memref<128xf32, 3>, %i: index, %j: index, %n: index) {
  %b = affine.min #map1(%i)
  %c = affine.max #map1(%i)
  %d = affine.min affine_map<(d0)[s0] -> (s0, d0 * 2)>(%i)[%n]
  affine.if #set(%i) {
    %v = affine.load %m[%i] : memref<128xf32, 3>
  } else {
  }
  %r = affine.if #set(%i) -> index {
    affine.yield %i : index
  } else {
    affine.yield %j : index
  }
  %q:2 = affine.delinearize_index %i into (4, 32) : index, index
  %q2:2 = affine.delinearize_index %i into (%n, 32) : index, index
  %l = affine.linearize_index [%i, %j] by (4, 32) : index
  %l2 = affine.linearize_index disjoint [%i, %j] by (%n, 32) : index
  affine.for %k = 0 to 10 step 2 {
    %w = affine.load %m[%k + 1] : memref<128xf32, 3>
    affine.store %w, %m[%k] : memref<128xf32, 3>
  }
  affine.for %k = max #map1(%i) to 128 {
  }
  return
}
