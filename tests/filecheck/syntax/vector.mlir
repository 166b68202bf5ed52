// The embedded parser reads MLIR's syntax of the `vector` ops whose assemblyFormat
// syntax/mlir_vector.py and mlir_vector_contract.py declare (VectorOps.td:
// shape_cast, transpose, extract_strided_slice, insert_strided_slice, step,
// from_elements, to_elements, constant_mask, gather, scatter, interleave,
// deinterleave, multi_reduction; the slices' offsets, sizes and strides and the
// gather's alignment in the attribute dictionary, as MLIR keeps inherent attributes;
// dense arrays bare, `[1, 0]`) as mlir-opt-22 does, trailing attribute dictionaries
// included, and prints it back; and the ones it parses by hand as MLIR parses them in
// C++ (contract, outerproduct).
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

func.func @vector_ops(%v: vector<4x8xf32>, %w: vector<8xf32>) -> (vector<32xf32>, vector<4xf32>, vector<4xindex>) {
  %a = vector.shape_cast %v {tag} : vector<4x8xf32> to vector<32xf32>
  %b = vector.extract_strided_slice %w {offsets = [2], sizes = [4], strides = [1]} : vector<8xf32> to vector<4xf32>
  %c = vector.step : vector<4xindex>
  return %a, %b, %c : vector<32xf32>, vector<4xf32>, vector<4xindex>
}

func.func @reshape_ops(%v: vector<4x8xf32>, %s: vector<2x4xf32>, %p: vector<4xf32>, %e: vector<2x2x2xf32>) -> (vector<8x4xf32>, vector<2x4x2xf32>, vector<4x8xf32>, vector<4x8xf32>, vector<8xf32>, vector<4xf32>, vector<4xf32>) {
  %t = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>
  %u = vector.transpose %e, [0, 2, 1] {tag} : vector<2x2x2xf32> to vector<2x2x2xf32>
  %u3 = vector.shape_cast %u : vector<2x2x2xf32> to vector<8xf32>
  %u4 = vector.shape_cast %u3 : vector<8xf32> to vector<2x4xf32>
  %u5 = vector.broadcast %u4 : vector<2x4xf32> to vector<2x2x4xf32>
  %u6 = vector.shape_cast %u5 : vector<2x2x4xf32> to vector<2x4x2xf32>
  %i = vector.insert_strided_slice %s, %v {offsets = [2, 0], strides = [1, 1]} : vector<2x4xf32> into vector<4x8xf32>
  %j = vector.insert_strided_slice %s, %v {offsets = [0, 4], strides = [1, 1], tag} : vector<2x4xf32> into vector<4x8xf32>
  %k = vector.interleave %p, %p : vector<4xf32> -> vector<8xf32>
  %k2 = vector.interleave %p, %p {tag} : vector<4xf32> -> vector<8xf32>
  %l, %m = vector.deinterleave %k : vector<8xf32> -> vector<4xf32>
  %n, %o = vector.deinterleave %k2 {tag} : vector<8xf32> -> vector<4xf32>
  %q = arith.addf %l, %o : vector<4xf32>
  return %t, %u6, %i, %j, %k, %m, %q : vector<8x4xf32>, vector<2x4x2xf32>, vector<4x8xf32>, vector<4x8xf32>, vector<8xf32>, vector<4xf32>, vector<4xf32>
}

func.func @element_ops(%x: f32, %y: f32, %v: vector<2x2xf32>) -> (vector<2xf32>, vector<2x2xf32>, f32, f32, vector<4xi1>, vector<2x3xi1>) {
  %a = vector.from_elements %x, %y : vector<2xf32>
  %b = vector.from_elements %x, %y, %y, %x {tag} : vector<2x2xf32>
  %c:4 = vector.to_elements %v : vector<2x2xf32>
  %d:2 = vector.to_elements %a {tag} : vector<2xf32>
  %m = vector.constant_mask [2] : vector<4xi1>
  %n = vector.constant_mask [1, 2] {tag} : vector<2x3xi1>
  %s = arith.addf %c#0, %c#3 : f32
  return %a, %b, %s, %d#1, %m, %n : vector<2xf32>, vector<2x2xf32>, f32, f32, vector<4xi1>, vector<2x3xi1>
}

func.func @memory_ops(%base: memref<64xf32, 3>, %grid: memref<8x8xf32>, %i: index, %idx: vector<4xindex>, %idx32: vector<4xi32>, %mask: vector<4xi1>, %p: vector<4xf32>) -> (vector<4xf32>, vector<4xf32>) {
  %g = vector.gather %base[%i] [%idx], %mask, %p : memref<64xf32, 3>, vector<4xindex>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  %h = vector.gather %grid[%i, %i] [%idx32], %mask, %p {alignment = 8 : i64, tag} : memref<8x8xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32> into vector<4xf32>
  vector.scatter %base[%i] [%idx], %mask, %g : memref<64xf32, 3>, vector<4xindex>, vector<4xi1>, vector<4xf32>
  vector.scatter %grid[%i, %i] [%idx32], %mask, %h {alignment = 16 : i64} : memref<8x8xf32>, vector<4xi32>, vector<4xi1>, vector<4xf32>
  return %g, %h : vector<4xf32>, vector<4xf32>
}

func.func @reductions(%v: vector<4x8xf32>, %w: vector<8x4xf32>, %acc: vector<4xf32>, %s: f32, %p: vector<4xf32>) -> (vector<4xf32>, f32, vector<4x4xf32>, vector<4x4xf32>, vector<4xf32>) {
  %r = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>
  %t = vector.multi_reduction <maxnumf>, %v, %s {tag} [0, 1] : vector<4x8xf32> to f32
  %zero = arith.constant dense<0.0> : vector<4x4xf32>
  %c = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %v, %w, %zero : vector<4x8xf32>, vector<8x4xf32> into vector<4x4xf32>
  %o = vector.outerproduct %p, %p : vector<4xf32>, vector<4xf32>
  %x = vector.outerproduct %p, %s, %acc {kind = #vector.kind<mul>} : vector<4xf32>, f32
  return %r, %t, %c, %o, %x : vector<4xf32>, f32, vector<4x4xf32>, vector<4x4xf32>, vector<4xf32>
}
