// The embedded parser reads MLIR's syntax of the `index` ops (IndexOps.td's
// assemblyFormat, declared in syntax/mlir_index.py) as mlir-opt-22 does, trailing
// attribute dictionaries included: what it reads and prints, read by mlir-opt-22, is
// what mlir-opt-22 reads from the file itself.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

func.func @index_ops(%a: index, %b: index, %x: i32) -> (index, i64) {
  %c = index.constant 42
  %c1 = index.constant {tag} -7
  %s = index.casts %x : i32 to index
  %u = index.castu %x {tag = 1 : i64} : i32 to index
  %w = index.casts %a : index to i64
  %r0 = index.add %a, %b {n = 0 : i64}
  %r1 = index.sub %r0, %b
  %r2 = index.mul %r1, %b
  %r3 = index.divs %r2, %b {n = 3 : i64}
  %r4 = index.divu %r3, %b
  %r5 = index.rems %r4, %b
  %r6 = index.remu %r5, %b {n = 6 : i64}
  %r7 = index.ceildivs %r6, %b
  %r8 = index.ceildivu %r7, %b
  %r9 = index.floordivs %r8, %b {n = 9 : i64}
  %r10 = index.maxs %r9, %b
  %r11 = index.maxu %r10, %b
  %r12 = index.mins %r11, %b {n = 12 : i64}
  %r13 = index.minu %r12, %b
  %r14 = index.shl %r13, %b
  %r15 = index.shrs %r14, %b {n = 15 : i64}
  %r16 = index.shru %r15, %b
  %r17 = index.and %r16, %b
  %r18 = index.or %r17, %b {n = 18 : i64}
  %r19 = index.xor %r18, %b
  %t0 = index.add %r19, %c
  %t1 = index.add %t0, %c1
  %t2 = index.add %t1, %s
  %t3 = index.add %t2, %u
  return %t3, %w : index, i64
}
