"builtin.module"() ({
  "func.func"() <{function_type = (vector<4xf32>) -> (), sym_name = "foo", sym_visibility = "private"}> ({
  }) : () -> ()
  "func.func"() <{function_type = () -> (), sym_name = "swap_mfma"}> ({
    %0 = "arith.constant"() <{value = 1.000000e+00 : f32}> : () -> f32
    %1 = "arith.constant"() <{value = dense<0.000000e+00> : vector<4xf32>}> : () -> vector<4xf32>
    "rocdl.s.setprio"() <{priority = 1 : i16}> {iree_gpu.swap_mfma = -10 : i64} : () -> ()
    "rocdl.s.setprio"() <{priority = 2 : i16}> {iree_gpu.swap_mfma = 1 : i64} : () -> ()
    "rocdl.s.setprio"() <{priority = 3 : i16}> {iree_gpu.swap_mfma = 2 : i64} : () -> ()
    "rocdl.s.setprio"() <{priority = 4 : i16}> {iree_gpu.swap_mfma = 5 : i64} : () -> ()
    %2 = "amdgpu.mfma"(%0, %0, %1) <{abid = 0 : i32, blgp = #amdgpu<mfma_perm_b none>, blocks = 16 : i32, cbsz = 0 : i32, k = 1 : i32, m = 4 : i32, n = 4 : i32}> : (f32, f32, vector<4xf32>) -> vector<4xf32>
    %3 = "amdgpu.mfma"(%0, %0, %2) <{abid = 0 : i32, blgp = #amdgpu<mfma_perm_b none>, blocks = 16 : i32, cbsz = 0 : i32, k = 1 : i32, m = 4 : i32, n = 4 : i32}> : (f32, f32, vector<4xf32>) -> vector<4xf32>
    %4 = "amdgpu.mfma"(%0, %0, %3) <{abid = 0 : i32, blgp = #amdgpu<mfma_perm_b none>, blocks = 16 : i32, cbsz = 0 : i32, k = 1 : i32, m = 4 : i32, n = 4 : i32}> : (f32, f32, vector<4xf32>) -> vector<4xf32>
    "func.call"(%4) <{callee = @foo}> : (vector<4xf32>) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
"builtin.module"() ({
  "func.func"() <{function_type = () -> (), sym_name = "shared_memory_lowering"}> ({
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = dense<0.000000e+00> : vector<4xf32>}> : () -> vector<4xf32>
    %2 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x16x32xf32, #gpu.address_space<workgroup>>
    %3 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x32x16xf32, #gpu.address_space<workgroup>>
    %4 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<1x8x16xf32, #gpu.address_space<workgroup>>
    "vector.store"(%1, %3, %0, %0, %0) : (vector<4xf32>, memref<1x32x16xf32, #gpu.address_space<workgroup>>, index, index, index) -> ()
    "vector.store"(%1, %4, %0, %0, %0) : (vector<4xf32>, memref<1x8x16xf32, #gpu.address_space<workgroup>>, index, index, index) -> ()
    "vector.store"(%1, %2, %0, %0, %0) : (vector<4xf32>, memref<1x16x32xf32, #gpu.address_space<workgroup>>, index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

