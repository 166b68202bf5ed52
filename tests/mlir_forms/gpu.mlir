func.func @f(%a: f32, %i: i32, %m: memref<16x16xf16, 3>, %c: memref<16x16xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%x = %c1, %y = %c1, %z = %c1) {
    %r = gpu.all_reduce add %a uniform {} : (f32) -> (f32)
    %r2 = gpu.all_reduce %i {
    ^bb(%lhs : i32, %rhs : i32):
      %xor = arith.xori %lhs, %rhs : i32
      "gpu.yield"(%xor) : (i32) -> ()
    } : (i32) -> (i32)
    %s = gpu.subgroup_reduce add %a : (f32) -> f32
    %s2 = gpu.subgroup_reduce maxnumf %a uniform cluster(size = 4) : (f32) -> f32
    %A = gpu.subgroup_mma_load_matrix %m[%c0, %c0] {leadDimension = 16 : index} : memref<16x16xf16, 3> -> !gpu.mma_matrix<16x16xf16, "AOp">
    %B = gpu.subgroup_mma_load_matrix %m[%c0, %c0] {leadDimension = 16 : index, transpose} : memref<16x16xf16, 3> -> !gpu.mma_matrix<16x16xf16, "BOp">
    %f0 = arith.constant 0.0 : f32
    %C = gpu.subgroup_mma_constant_matrix %f0 : !gpu.mma_matrix<16x16xf32, "COp">
    %R = gpu.subgroup_mma_compute %A, %B, %C : !gpu.mma_matrix<16x16xf16, "AOp">, !gpu.mma_matrix<16x16xf16, "BOp"> -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.subgroup_mma_store_matrix %R, %c[%c0, %c0] {leadDimension = 16 : index} : !gpu.mma_matrix<16x16xf32, "COp">, memref<16x16xf32>
    %E = gpu.subgroup_mma_elementwise addf %R, %R : (!gpu.mma_matrix<16x16xf32, "COp">, !gpu.mma_matrix<16x16xf32, "COp">) -> !gpu.mma_matrix<16x16xf32, "COp">
    gpu.terminator
  } {SCFToGPU_visited}
  return
}
