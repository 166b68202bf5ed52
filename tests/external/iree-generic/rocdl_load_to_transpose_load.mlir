#map = affine_map<(d0, d1, d2) -> (d1, d2)>
"builtin.module"() ({
  "func.func"() <{function_type = () -> vector<4x1xf16>, sym_name = "preprocess_delinearize_3d"}> ({
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<64x128x256xf16, #gpu.address_space<workgroup>>
    %1 = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
    %2:3 = "affine.delinearize_index"(%1) <{static_basis = array<i64: 2, 4, 16>}> : (index) -> (index, index, index)
    %3 = "arith.constant"() <{value = 0.000000e+00 : f16}> : () -> f16
    %4 = "vector.transfer_read"(%0, %2#0, %2#1, %2#2, %3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 3, 1, 0>, permutation_map = #map}> : (memref<64x128x256xf16, #gpu.address_space<workgroup>>, index, index, index, f16) -> vector<4x1xf16>
    "func.return"(%4) : (vector<4x1xf16>) -> ()
  }) {translation_info = #iree_codegen.translation_info<pipeline = #iree_gpu.pipeline<Default> workgroup_size = [128, 1, 1]>} : () -> ()
}) : () -> ()

