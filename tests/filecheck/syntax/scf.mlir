// The embedded parser reads MLIR's syntax of scf.forall, scf.forall.in_parallel and
// scf.parallel (syntax/mlir_scf.py) as mlir-opt-22 does. MLIR parses all three in C++
// (ForallOp::parse, InParallelOp::parse, ParallelOp::parse), and so do the hand
// parsers, trailing attribute dictionaries (with the forall's inherent `mapping`)
// included; implicit terminators are filled in as MLIR fills them.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

func.func @scf_ops(%m: memref<32xf32>, %n: index, %t: tensor<32xf32>) -> (f32, tensor<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.forall (%i, %j) in (4, %n) {
    %v = memref.load %m[%i] : memref<32xf32>
  } {mapping = [#gpu.thread<y>, #gpu.thread<x>], tag}
  scf.forall (%i) = (%c0) to (%n) step (%c4) {
  }
  scf.forall (%i) = (0) to (32) step (%c4) {
    scf.forall.in_parallel {
    } {tag}
  }
  %r = scf.forall (%i) in (32) shared_outs(%o = %t) -> (tensor<32xf32>) {
  } {tag}
  scf.parallel (%x, %y) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    %v = memref.load %m[%x] : memref<32xf32>
  } {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_y, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
  %z = arith.constant 0.0 : f32
  %sum = scf.parallel (%x) = (%c0) to (%n) step (%c1) init (%z) -> f32 {
    %v = memref.load %m[%x] : memref<32xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      scf.reduce.return %c : f32
    }
  } {tag}
  return %sum, %r : f32, tensor<32xf32>
}
