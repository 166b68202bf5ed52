// The embedded parser reads MLIR's syntax of the `nvgpu` ops, whose assemblyFormat
// syntax/mlir_nvgpu.py and syntax/mlir_nvgpu_tma.py declare (NVGPUOps.td), as
// mlir-opt-22 does: trailing attribute dictionaries with the inherent attributes in
// them, optional operands present and absent, and the nvgpu operand and result types
// written without their `!nvgpu.` prefix (`: <memorySpace = ...>`, as MLIR prints them;
// custom<StrippedType> in syntax/mlir_directives_nvgpu.py) or in full.
// RUN: gpu-alloc-opt --mlir-bridge=never %s | mlir-opt-22 > %t.ours
// RUN: mlir-opt-22 %s > %t.mlir
// RUN: diff %t.ours %t.mlir
// RUN: gpu-alloc-opt --mlir-bridge=never %s | gpu-alloc-opt --mlir-bridge=never | mlir-opt-22 | diff - %t.mlir

!barrierType = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>

func.func @copies_and_mma(%src: memref<128x128xf16>, %dst: memref<128x32xf16, 3>, %i: index, %j: index, %n: index, %a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>, %m: vector<2xi16>, %fa: vector<2x1xf32>, %fb: vector<1x1xf32>, %fc: vector<2x2xf32>) {
  %0 = nvgpu.device_async_copy %src[%i, %j], %dst[%i, %j], 8 : memref<128x128xf16> to memref<128x32xf16, 3>
  %1 = nvgpu.device_async_copy %src[%i, %j], %dst[%i, %j], 8, %n {bypassL1} : memref<128x128xf16> to memref<128x32xf16, 3>
  %2 = nvgpu.device_async_create_group %0, %1
  %3 = nvgpu.device_async_create_group %0 {tag}
  nvgpu.device_async_wait %2 {numGroups = 1 : i32}
  nvgpu.device_async_wait %3
  %l = nvgpu.ldmatrix %dst[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<128x32xf16, 3> -> vector<4x2xf16>
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  %f = nvgpu.mma.sync (%fa, %fb, %fc) {mmaShape = [16, 8, 4], tf32Enabled, tag} : (vector<2x1xf32>, vector<1x1xf32>, vector<2x2xf32>) -> vector<2x2xf32>
  %e = nvgpu.mma.sp.sync(%b, %b, %c) metadata(%m) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  %s = nvgpu.mma.sp.sync (%b, %b, %c) metadata (%m) {mmaShape = [16, 8, 16], sparsitySelector = 1 : i32} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  return
}

func.func @barriers_and_tma(%i: index, %n: index, %g: memref<*xf32>, %t: !tm, %p: i1, %mask: i16, %sm: memref<64x8xf32, 3>) {
  %bar = nvgpu.mbarrier.create -> !barrierType
  %bar2 = nvgpu.mbarrier.create {tag} -> <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
  nvgpu.mbarrier.init %bar[%i], %n : !barrierType
  nvgpu.mbarrier.init %bar2[%i], %n, predicate = %p {tag} : <memorySpace = #gpu.address_space<workgroup>, num_barriers = 4>
  %tok = nvgpu.mbarrier.arrive %bar[%i] : !barrierType -> !nvgpu.mbarrier.token
  %tok2 = nvgpu.mbarrier.arrive.nocomplete %bar[%i], %n {tag} : <memorySpace = #gpu.address_space<workgroup>> -> !nvgpu.mbarrier.token
  nvgpu.mbarrier.arrive.expect_tx %bar[%i], %n : !barrierType
  nvgpu.mbarrier.arrive.expect_tx %bar[%i], %n, predicate = %p : <memorySpace = #gpu.address_space<workgroup>>
  %ph = arith.constant false
  nvgpu.mbarrier.try_wait.parity %bar[%i], %ph, %n : !barrierType
  %done = nvgpu.mbarrier.test.wait %bar[%i], %tok : <memorySpace = #gpu.address_space<workgroup>>, !nvgpu.mbarrier.token
  %desc = nvgpu.tma.create.descriptor %g box[%n, %n] : memref<*xf32> -> !tm
  %desc2 = nvgpu.tma.create.descriptor %g box[%n, %n] {tag} : memref<*xf32> -> <tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
  nvgpu.tma.prefetch.descriptor %t : !tm
  nvgpu.tma.prefetch.descriptor %t, predicate = %p : <tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
  nvgpu.tma.fence.descriptor %t : !tm
  nvgpu.tma.async.load %t[%i, %i], %bar[%i] to %sm : !tm, !barrierType -> memref<64x8xf32, 3>
  nvgpu.tma.async.load %t[%i, %i], %bar[%i] to %sm multicast_mask = %mask, predicate = %p {tag} : <tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>, <memorySpace = #gpu.address_space<workgroup>> -> memref<64x8xf32, 3>
  nvgpu.tma.async.load %t[%i, %i], %bar[%i] to %sm multicast_mask = %mask : !tm, !barrierType -> memref<64x8xf32, 3>
  nvgpu.tma.async.store %sm to %t[%i, %i] : memref<64x8xf32, 3> -> !tm
  nvgpu.tma.async.store %sm to %t[%i, %i], predicate = %p : memref<64x8xf32, 3> -> <tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
  return
}

!tmA = !nvgpu.tensormap.descriptor<tensor = memref<128x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!tmB = !nvgpu.tensormap.descriptor<tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none>
!dA = !nvgpu.warpgroup.descriptor<tensor = memref<128x64xf16, 3>>
!dB = !nvgpu.warpgroup.descriptor<tensor = memref<64x128xf16, 3>>
!acc = !nvgpu.warpgroup.accumulator<fragmented = vector<128x128xf32>>

func.func @warpgroups(%a: memref<128x64xf16, 3>, %b: memref<64x128xf16, 3>, %ta: !tmA, %tb: !tmB, %out: memref<128x128xf32, 3>) {
  %da = nvgpu.warpgroup.generate.descriptor %a, %ta : memref<128x64xf16, 3>, !tmA -> !dA
  %db = nvgpu.warpgroup.generate.descriptor %b, %tb {tag} : memref<64x128xf16, 3>, <tensor = memref<64x64xf16, 3>, swizzle = swizzle_128b, l2promo = none, oob = zero, interleave = none> -> <tensor = memref<64x128xf16, 3>>
  %acc = nvgpu.warpgroup.mma.init.accumulator -> !acc
  %acc2 = nvgpu.warpgroup.mma.init.accumulator {tag} -> <fragmented = vector<128x128xf32>>
  %r = nvgpu.warpgroup.mma %da, %db, %acc {transposeB} : !dA, !dB, !acc -> !acc
  %r2 = nvgpu.warpgroup.mma %da, %db, %acc2 {transposeB, waitGroup = 2 : i64, tag} : <tensor = memref<128x64xf16, 3>>, <tensor = memref<64x128xf16, 3>>, <fragmented = vector<128x128xf32>> -> <fragmented = vector<128x128xf32>>
  %r3 = nvgpu.warpgroup.mma %da, %db, %acc2 : !dA, !dB, !acc -> !acc
  nvgpu.warpgroup.mma.store %r, %out : !acc to memref<128x128xf32, 3>
  nvgpu.warpgroup.mma.store %r2, %out {tag} : <fragmented = vector<128x128xf32>> to memref<128x128xf32, 3>
  return
}
