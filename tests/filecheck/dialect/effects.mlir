// RUN: xdsl-opt %s -p cse,licm,dce,canonicalize | filecheck %s
// offset_pointer is not Pure: two identical ones feeding two aliases stay apart and
// stay where they are (also inside a loop), while an unused alloc is removed by dce.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c400 = arith.constant 400 : index
      %v = arith.constant 7 : i32
      %unused = gpu_alloc.alloc "unused" : memref<16xi32, 3 : i32>
      %b = gpu_alloc.alloc "shared_alloc" : memref<884xi8, 3 : i32>
      %p1 = gpu_alloc.offset_pointer %b[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f1 = gpu_alloc.alias "f1" %p1 : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
      %p3 = gpu_alloc.offset_pointer %b[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f3 = gpu_alloc.alias "f3" %p3 : !gpu_alloc.ptr<3 : i32> -> memref<9x9xi32, 3 : i32>
      memref.store %v, %f1[%c0, %c0] : memref<11x11xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      memref.store %v, %f3[%c0, %c0] : memref<9x9xi32, 3 : i32>
      scf.for %i = %c0 to %n step %c1 {
        %p4 = gpu_alloc.offset_pointer %b[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
        %f4 = gpu_alloc.alias "f4" %p4 : !gpu_alloc.ptr<3 : i32> -> memref<4xi32, 3 : i32>
        memref.store %v, %f4[%c0] : memref<4xi32, 3 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK-NOT:  "unused"
// CHECK:      %b = gpu_alloc.alloc "shared_alloc" : memref<884xi8, 3 : i32>
// CHECK-NEXT: %p1 = gpu_alloc.offset_pointer %b[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: %f1 = gpu_alloc.alias "f1" %p1 : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
// CHECK-NEXT: %p3 = gpu_alloc.offset_pointer %b[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: %f3 = gpu_alloc.alias "f3" %p3 : !gpu_alloc.ptr<3 : i32> -> memref<9x9xi32, 3 : i32>
// CHECK:      scf.for
// CHECK-NEXT:   %p4 = gpu_alloc.offset_pointer %b[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f4 = gpu_alloc.alias "f4" %p4 : !gpu_alloc.ptr<3 : i32> -> memref<4xi32, 3 : i32>
