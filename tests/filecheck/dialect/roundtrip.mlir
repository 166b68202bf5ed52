// RUN: XDSL_ROUNDTRIP
// RUN: XDSL_GENERIC_ROUNDTRIP
// The custom and the generic form of every gpu_alloc op print and parse back unchanged.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %f = gpu_alloc.alloc "f"(%n) align 16 : memref<?x16xf32, 3 : i32>
      %h = gpu_alloc.alloc "h" : memref<32xi32, 1 : i32>
      %r = gpu_alloc.alloc "r" : memref<4xf64, 5 : i32>
      %b = gpu_alloc.alloc "shared_alloc" align 16 : memref<884xi8, 3 : i32>
      %off = arith.constant 400 : index
      %p = gpu_alloc.offset_pointer %b[%off] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f1 = gpu_alloc.alias "f1" %p : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
      %q = gpu_alloc.offset_pointer %b[%off] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %d = gpu_alloc.alias "d" %q(%n) : !gpu_alloc.ptr<3 : i32> -> memref<?xi8, 3 : i32>
      gpu_alloc.dealloc %f1 : memref<11x11xi32, 3 : i32>
      gpu_alloc.dealloc %f : memref<?x16xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %f = gpu_alloc.alloc "f"(%n) align 16 : memref<?x16xf32, 3 : i32>
// CHECK-NEXT: %h = gpu_alloc.alloc "h" : memref<32xi32, 1 : i32>
// CHECK-NEXT: %r = gpu_alloc.alloc "r" : memref<4xf64, 5 : i32>
// CHECK-NEXT: %b = gpu_alloc.alloc "shared_alloc" align 16 : memref<884xi8, 3 : i32>
// CHECK-NEXT: %off = arith.constant 400 : index
// CHECK-NEXT: %p = gpu_alloc.offset_pointer %b[%off] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: %f1 = gpu_alloc.alias "f1" %p : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
// CHECK-NEXT: %q = gpu_alloc.offset_pointer %b[%off] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: %d = gpu_alloc.alias "d" %q(%n) : !gpu_alloc.ptr<3 : i32> -> memref<?xi8, 3 : i32>
// CHECK-NEXT: gpu_alloc.dealloc %f1 : memref<11x11xi32, 3 : i32>
// CHECK-NEXT: gpu_alloc.dealloc %f : memref<?x16xf32, 3 : i32>

// CHECK-GENERIC:      %f = "gpu_alloc.alloc"(%n) <{name = "f", alignment = 16 : i64}> : (index) -> memref<?x16xf32, 3 : i32>
// CHECK-GENERIC-NEXT: %h = "gpu_alloc.alloc"() <{name = "h"}> : () -> memref<32xi32, 1 : i32>
// CHECK-GENERIC-NEXT: %r = "gpu_alloc.alloc"() <{name = "r"}> : () -> memref<4xf64, 5 : i32>
// CHECK-GENERIC-NEXT: %b = "gpu_alloc.alloc"() <{name = "shared_alloc", alignment = 16 : i64}> : () -> memref<884xi8, 3 : i32>
// CHECK-GENERIC-NEXT: %off = "arith.constant"() <{value = 400 : index}> : () -> index
// CHECK-GENERIC-NEXT: %p = "gpu_alloc.offset_pointer"(%b, %off) : (memref<884xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
// CHECK-GENERIC-NEXT: %f1 = "gpu_alloc.alias"(%p) <{name = "f1"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<11x11xi32, 3 : i32>
// CHECK-GENERIC-NEXT: %q = "gpu_alloc.offset_pointer"(%b, %off) : (memref<884xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
// CHECK-GENERIC-NEXT: %d = "gpu_alloc.alias"(%q, %n) <{name = "d"}> : (!gpu_alloc.ptr<3 : i32>, index) -> memref<?xi8, 3 : i32>
// CHECK-GENERIC-NEXT: "gpu_alloc.dealloc"(%f1) : (memref<11x11xi32, 3 : i32>) -> ()
// CHECK-GENERIC-NEXT: "gpu_alloc.dealloc"(%f) : (memref<?x16xf32, 3 : i32>) -> ()

// -----

// The `backing` unit property, in both spaces a backing may live in; a backing
// without it (IR written before the property existed) still reads and prints as is.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %s = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<64xi8, 3 : i32>
      %g = gpu_alloc.alloc "global_alloc"(%n) backing : memref<?xi8, 1 : i32>
      %legacy = gpu_alloc.alloc "old_backing" align 16 : memref<64xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %p = gpu_alloc.offset_pointer %g[%c0] : memref<?xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
      %q = gpu_alloc.offset_pointer %legacy[%c0] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %s = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<64xi8, 3 : i32>
// CHECK-NEXT: %g = gpu_alloc.alloc "global_alloc"(%n) backing : memref<?xi8, 1 : i32>
// CHECK-NEXT: %legacy = gpu_alloc.alloc "old_backing" align 16 : memref<64xi8, 3 : i32>

// CHECK-GENERIC:      %s = "gpu_alloc.alloc"() <{name = "shared_alloc", backing, alignment = 16 : i64}> : () -> memref<64xi8, 3 : i32>
// CHECK-GENERIC-NEXT: %g = "gpu_alloc.alloc"(%n) <{name = "global_alloc", backing}> : (index) -> memref<?xi8, 1 : i32>
// CHECK-GENERIC-NEXT: %legacy = "gpu_alloc.alloc"() <{name = "old_backing", alignment = 16 : i64}> : () -> memref<64xi8, 3 : i32>
