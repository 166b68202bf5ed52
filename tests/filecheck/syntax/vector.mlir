// The embedded parser reads MLIR's syntax of the `vector` ops whose assemblyFormat
// dialect/mlir_vector.py declares (VectorOps.td: shape_cast, extract_strided_slice,
// step; the slice's offsets, sizes and strides in the attribute dictionary, as MLIR
// keeps inherent attributes) as mlir-opt-22 does, and prints it back.
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
