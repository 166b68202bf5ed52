// A kernel that calls memref.alloc: device malloc, which no PTX backend lowers.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32, 1>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32, 1>):
      %c1 = arith.constant 1 : index
      %p = memref.alloc() : memref<8xf32, 1>
      %v = memref.load %p[%c1] : memref<8xf32, 1>
      memref.store %v, %out[%c1] : memref<64xf32, 1>
      "gpu.return"() : () -> ()
    }) {sym_name = "grab"} : () -> ()
  }) : () -> ()
}
