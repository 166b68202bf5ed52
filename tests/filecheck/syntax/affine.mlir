// The embedded parser reads MLIR's syntax of the `affine` ops syntax/mlir_affine.py
// adds as mlir-opt-22 does: delinearize_index and linearize_index with AffineOps.td's
// declared formats (their printed form too; a generic `disjoint = false` prints no
// keyword), trailing attribute dictionaries included; affine.max and affine.if with
// the hand parsers that follow MLIR's C++ (parseAffineMinMaxOp, AffineIfOp::parse).
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

#set = affine_set<(d0) : (d0 - 10 >= 0)>
func.func @affine_ops(%i: index, %j: index, %n: index) -> index {
  %q:2 = affine.delinearize_index %i into (4, 32) : index, index
  %q2:3 = affine.delinearize_index %i into (%n, 32, %n) {tag} : index, index, index
  %l = affine.linearize_index [%i, %j] by (4, 32) : index
  %l2 = affine.linearize_index disjoint [%i, %j] by (%n, 32) {tag = 1 : i64} : index
  %l3 = "affine.linearize_index"(%i, %j, %n) <{disjoint = false, operandSegmentSizes = array<i32: 2, 1>, static_basis = array<i64: -9223372036854775808>}> : (index, index, index) -> index
  %m = affine.max affine_map<(d0) -> (16, -d0 + 100)>(%i)
  %m2 = affine.max affine_map<(d0)[s0] -> (s0, d0 * 2)>(%i)[%n] {tag}
  affine.if #set(%i) {
  } else {
  }
  %r = affine.if #set(%i) -> index {
    affine.yield %i : index
  } else {
    affine.yield %j : index
  } {tag}
  %s = arith.addi %l, %l2 : index
  %t = arith.addi %s, %l3 : index
  %u = arith.addi %t, %m2 : index
  %v = arith.addi %u, %r : index
  %w = arith.addi %v, %q2#1 : index
  %x = arith.addi %w, %q#0 : index
  %y = arith.addi %x, %m : index
  return %y : index
}
