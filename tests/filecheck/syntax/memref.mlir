// The embedded parser reads MLIR's syntax of the `memref` ops whose assemblyFormat
// syntax/mlir_memref.py declares (MemRefOps.td: cast, memory_space_cast, copy,
// extract_aligned_pointer_as_index, atomic_rmw with its kind's directive) as
// mlir-opt-22 does, trailing attribute dictionaries included; and the ones it parses by
// hand as MLIR parses them in C++ (transpose) or where xDSL's op blocks the format
// (global).
// Not here, because xDSL 0.75's memref.global requires both properties: a global
// without a visibility prints as "public" and an external declaration (no `= ...`)
// as `= uninitialized` (docs/xdsl-upstream.md).
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

memref.global "private" constant @table : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> {alignment = 16 : i64}
memref.global "private" @workspace : memref<32xf32, #gpu.address_space<workgroup>> = uninitialized

func.func @memref_ops(%a: memref<4xf32>, %b: memref<4xf32>, %m: memref<2x3xf32>, %i: index, %v: f32, %w: i32, %n: memref<2x2xi32>) -> index {
  %c = memref.cast %a : memref<4xf32> to memref<?xf32>
  %d = memref.cast %a {tag} : memref<4xf32> to memref<?xf32>
  %e = memref.memory_space_cast %a {tag = 2 : i64} : memref<4xf32> to memref<4xf32, 1>
  %f = memref.memory_space_cast %a : memref<4xf32> to memref<4xf32, #gpu.address_space<global>>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  memref.copy %a, %b {tag} : memref<4xf32> to memref<4xf32>
  %p = memref.extract_aligned_pointer_as_index %a : memref<4xf32> -> index
  %q = memref.extract_aligned_pointer_as_index %b : memref<4xf32> -> index {tag}
  %t = memref.transpose %m (d0, d1) -> (d1, d0) : memref<2x3xf32> to memref<3x2xf32, strided<[1, 3]>>
  %t2 = memref.transpose %m (d0, d1) -> (d1, d0) {tag} : memref<2x3xf32> to memref<3x2xf32, strided<[1, 3]>>
  %old = memref.atomic_rmw addf %v, %a[%i] : (f32, memref<4xf32>) -> f32
  %old2 = memref.atomic_rmw maxs %w, %n[%i, %i] {tag} : (i32, memref<2x2xi32>) -> i32
  %old3 = memref.atomic_rmw assign %v, %a[%i] : (f32, memref<4xf32>) -> f32
  %g = memref.get_global @table : memref<4xf32>
  %r = arith.addi %p, %q : index
  return %r : index
}
