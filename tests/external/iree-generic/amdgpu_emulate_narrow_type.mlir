"builtin.module"() ({
  "func.func"() <{function_type = (memref<32x128xi4>) -> memref<32x128xi4, #amdgpu.address_space<fat_raw_buffer>>, sym_name = "memref_memory_space_cast_i4"}> ({
  ^bb0(%arg0: memref<32x128xi4>):
    %0 = "amdgpu.fat_raw_buffer_cast"(%arg0) <{boundsCheck = true, operandSegmentSizes = array<i32: 1, 0, 0>, resetOffset}> : (memref<32x128xi4>) -> memref<32x128xi4, #amdgpu.address_space<fat_raw_buffer>>
    "func.return"(%0) : (memref<32x128xi4, #amdgpu.address_space<fat_raw_buffer>>) -> ()
  }) : () -> ()
}) : () -> ()

// -----
"builtin.module"() ({
  "func.func"() <{function_type = (index) -> (), sym_name = "dim_resolution_with_vector_emulation"}> ({
  ^bb0(%arg0: index):
    %0 = "arith.constant"() <{value = 0 : index}> : () -> index
    %1 = "arith.constant"() <{value = 1 : index}> : () -> index
    %2 = "memref.alloc"(%arg0) <{operandSegmentSizes = array<i32: 1, 0>}> : (index) -> memref<?x128xi4>
    %3 = "amdgpu.fat_raw_buffer_cast"(%2) <{boundsCheck = true, operandSegmentSizes = array<i32: 1, 0, 0>, resetOffset}> : (memref<?x128xi4>) -> memref<?x128xi4, #amdgpu.address_space<fat_raw_buffer>>
    %4 = "memref.dim"(%3, %0) : (memref<?x128xi4, #amdgpu.address_space<fat_raw_buffer>>, index) -> index
    "scf.for"(%0, %4, %1) ({
    ^bb0(%arg1: index):
      %5 = "vector.load"(%3, %arg1, %0) : (memref<?x128xi4, #amdgpu.address_space<fat_raw_buffer>>, index, index) -> vector<8xi4>
      "vector.store"(%5, %3, %arg1, %0) : (vector<8xi4>, memref<?x128xi4, #amdgpu.address_space<fat_raw_buffer>>, index, index) -> ()
      "scf.yield"() : () -> ()
    }) : (index, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x32xi4, #amdgpu.address_space<fat_raw_buffer>>, memref<64xi4, #gpu.address_space<workgroup>>, index, index, index) -> (), sym_name = "gather_to_lds_i4_2d"}> ({
  ^bb0(%arg0: memref<128x32xi4, #amdgpu.address_space<fat_raw_buffer>>, %arg1: memref<64xi4, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index, %arg4: index):
    "amdgpu.gather_to_lds"(%arg0, %arg2, %arg3, %arg1, %arg4) <{operandSegmentSizes = array<i32: 1, 2, 1, 1>, transferType = vector<8xi4>}> : (memref<128x32xi4, #amdgpu.address_space<fat_raw_buffer>>, index, index, memref<64xi4, #gpu.address_space<workgroup>>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x32xf4E2M1FN, #amdgpu.address_space<fat_raw_buffer>>, memref<64xf4E2M1FN, #gpu.address_space<workgroup>>, index, index, index) -> (), sym_name = "gather_to_lds_f4E2M1FN_2d"}> ({
  ^bb0(%arg0: memref<128x32xf4E2M1FN, #amdgpu.address_space<fat_raw_buffer>>, %arg1: memref<64xf4E2M1FN, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index, %arg4: index):
    "amdgpu.gather_to_lds"(%arg0, %arg2, %arg3, %arg1, %arg4) <{operandSegmentSizes = array<i32: 1, 2, 1, 1>, transferType = vector<8xf4E2M1FN>}> : (memref<128x32xf4E2M1FN, #amdgpu.address_space<fat_raw_buffer>>, index, index, memref<64xf4E2M1FN, #gpu.address_space<workgroup>>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// -----
"builtin.module"() ({
  "func.func"() <{function_type = (memref<128x64xi2, #amdgpu.address_space<fat_raw_buffer>>, memref<128xi2, #gpu.address_space<workgroup>>, index, index, index) -> (), sym_name = "gather_to_lds_i2_2d"}> ({
  ^bb0(%arg0: memref<128x64xi2, #amdgpu.address_space<fat_raw_buffer>>, %arg1: memref<128xi2, #gpu.address_space<workgroup>>, %arg2: index, %arg3: index, %arg4: index):
    "amdgpu.gather_to_lds"(%arg0, %arg2, %arg3, %arg1, %arg4) <{operandSegmentSizes = array<i32: 1, 2, 1, 1>, transferType = vector<16xi2>}> : (memref<128x64xi2, #amdgpu.address_space<fat_raw_buffer>>, index, index, memref<128xi2, #gpu.address_space<workgroup>>, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

