"builtin.module"() ({
  "func.func"() <{function_type = (f32) -> (), sym_name = "allocation"}> ({
  ^bb0(%arg0: f32):
    %0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<16x16xf32, #gpu.address_space<workgroup>>
    %1 = "arith.constant"() <{value = 0 : index}> : () -> index
    "memref.store"(%arg0, %0, %1, %1) : (f32, memref<16x16xf32, #gpu.address_space<workgroup>>, index, index) -> ()
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

