!barrierType = !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>
!tm = !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
func.func @f(%src: memref<128x128xf16>, %dst: memref<128x32xf16, 3>, %i: index, %j: index, %a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>, %m: vector<2xi16>, %n: index, %g: memref<*xf32>, %t: !tm) {
  %0 = nvgpu.device_async_copy %src[%i, %j], %dst[%i, %j], 8 : memref<128x128xf16> to memref<128x32xf16, 3>
  %1 = nvgpu.device_async_copy %src[%i, %j], %dst[%i, %j], 8, %n {bypassL1} : memref<128x128xf16> to memref<128x32xf16, 3>
  %2 = nvgpu.device_async_create_group %0, %1
  nvgpu.device_async_wait %2 {numGroups = 1 : i32}
  nvgpu.device_async_wait %2
  %l = nvgpu.ldmatrix %dst[%i, %j] {numTiles = 4 : i32, transpose = false} : memref<128x32xf16, 3> -> vector<4x2xf16>
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  %e = nvgpu.mma.sp.sync(%b, %b, %c) metadata(%m) {mmaShape = [16, 8, 16]} : (vector<2x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
  %bar = nvgpu.mbarrier.create -> !barrierType
  nvgpu.mbarrier.init %bar[%i], %n : !barrierType
  %tok = nvgpu.mbarrier.arrive %bar[%i] : !barrierType -> !nvgpu.mbarrier.token
  %tok2 = nvgpu.mbarrier.arrive.nocomplete %bar[%i], %n : !barrierType -> !nvgpu.mbarrier.token
  nvgpu.mbarrier.arrive.expect_tx %bar[%i], %n : !barrierType
  %ph = arith.constant false
  nvgpu.mbarrier.try_wait.parity %bar[%i], %ph, %n : !barrierType
  %done = nvgpu.mbarrier.test.wait %bar[%i], %tok : !barrierType, !nvgpu.mbarrier.token
  %desc = nvgpu.tma.create.descriptor %g box[%n, %n] : memref<*xf32> -> !tm
  nvgpu.tma.prefetch.descriptor %t : !tm
  return
}
func.func @g(%t: !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>, %bar: !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>, %dst: memref<64x8xf32, 3>, %i: index) {
  nvgpu.tma.async.load %t[%i, %i], %bar[%i] to %dst : !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>, !nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>> -> memref<64x8xf32, 3>
  nvgpu.tma.async.store %dst to %t[%i, %i] : memref<64x8xf32, 3> -> !nvgpu.tensormap.descriptor<tensor = memref<64x8xf32, 3>, swizzle = none, l2promo = none, oob = zero, interleave = none>
  return
}
