"builtin.module"() ({
^bb0:
}) : () -> ()

// -----
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xbf16, #gpu.address_space<global>>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> (), sym_name = "global_transpose_load_bf16"}> ({
  ^bb0(%arg0: memref<128x64xbf16, #gpu.address_space<global>>, %arg1: memref<8x64xbf16, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() <{value = 0.000000e+00 : bf16}> : () -> bf16
    %1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<128x64xbf16, #gpu.address_space<global>>, index, index, bf16) -> vector<1x8xbf16>
    %2 = "vector.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (vector<1x8xbf16>) -> vector<8x1xbf16>
    "vector.transfer_write"(%2, %arg1, %arg2, %arg3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map}> : (vector<8x1xbf16>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xf16, #gpu.address_space<global>>, memref<8x64xf16, #gpu.address_space<workgroup>>, index, index) -> (), sym_name = "global_transpose_load_f16"}> ({
  ^bb0(%arg0: memref<128x64xf16, #gpu.address_space<global>>, %arg1: memref<8x64xf16, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() <{value = 0.000000e+00 : f16}> : () -> f16
    %1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<128x64xf16, #gpu.address_space<global>>, index, index, f16) -> vector<1x8xf16>
    %2 = "vector.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (vector<1x8xf16>) -> vector<8x1xf16>
    "vector.transfer_write"(%2, %arg1, %arg2, %arg3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map}> : (vector<8x1xf16>, memref<8x64xf16, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xbf16, #gpu.address_space<workgroup>>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> (), sym_name = "no_transform_workgroup_src"}> ({
  ^bb0(%arg0: memref<128x64xbf16, #gpu.address_space<workgroup>>, %arg1: memref<8x64xbf16, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() <{value = 0.000000e+00 : bf16}> : () -> bf16
    %1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<128x64xbf16, #gpu.address_space<workgroup>>, index, index, bf16) -> vector<1x8xbf16>
    %2 = "vector.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (vector<1x8xbf16>) -> vector<8x1xbf16>
    "vector.transfer_write"(%2, %arg1, %arg2, %arg3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map}> : (vector<8x1xbf16>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xbf16>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> (), sym_name = "no_transform_no_memspace"}> ({
  ^bb0(%arg0: memref<128x64xbf16>, %arg1: memref<8x64xbf16, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() <{value = 0.000000e+00 : bf16}> : () -> bf16
    %1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<128x64xbf16>, index, index, bf16) -> vector<1x8xbf16>
    %2 = "vector.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (vector<1x8xbf16>) -> vector<8x1xbf16>
    "vector.transfer_write"(%2, %arg1, %arg2, %arg3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map}> : (vector<8x1xbf16>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
#map = affine_map<(d0, d1) -> (d0, d1)>
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xbf16, #gpu.address_space<global>>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> (), sym_name = "no_transform_wrong_shape"}> ({
  ^bb0(%arg0: memref<128x64xbf16, #gpu.address_space<global>>, %arg1: memref<8x64xbf16, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index):
    %0 = "arith.constant"() <{value = 0.000000e+00 : bf16}> : () -> bf16
    %1 = "vector.transfer_read"(%arg0, %arg3, %arg2, %0) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 2, 1, 0>, permutation_map = #map}> : (memref<128x64xbf16, #gpu.address_space<global>>, index, index, bf16) -> vector<8x1xbf16>
    %2 = "vector.transpose"(%1) <{permutation = array<i64: 1, 0>}> : (vector<8x1xbf16>) -> vector<1x8xbf16>
    "vector.transfer_write"(%2, %arg1, %arg2, %arg3) <{in_bounds = [true, true], operandSegmentSizes = array<i32: 1, 1, 2, 0>, permutation_map = #map}> : (vector<1x8xbf16>, memref<8x64xbf16, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

