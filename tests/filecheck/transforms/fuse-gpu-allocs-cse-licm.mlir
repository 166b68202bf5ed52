// RUN: xdsl-opt %s -p 'fuse-gpu-allocs,cse,licm,dce,canonicalize' | filecheck %s
// After fusion, a and b (disjoint lifetimes, same size) both sit at offset 0: their
// two offset_pointers are identical, yet xDSL's cse/licm/dce/canonicalize between
// fusion and flattening keep one pointer per alias, inside the kernel.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = arith.constant 1 : i32
      scf.for %i = %c0 to %n step %c1 {
        %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<32xi32, 3 : i32>
        %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<32xi32, 3 : i32>
        memref.store %v, %a[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %x = memref.load %a[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        memref.store %x, %b[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %y = memref.load %b[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      "gpu.func"() <{function_type = (index) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%n: index):
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 128 : i64, stages = array<i64: 0, 1>}, {name = "b", offset = 0 : i64, bytes = 128 : i64, stages = array<i64: 2, 3>}]} : memref<128xi8, 3 : i32>
// CHECK-NEXT:   %[[PA:.*]] = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<128xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %a = gpu_alloc.alias "a" %[[PA]] : !gpu_alloc.ptr<3 : i32> -> memref<32xi32, 3 : i32>
// CHECK-NEXT:   %[[PB:.*]] = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<128xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %b = gpu_alloc.alias "b" %[[PB]] : !gpu_alloc.ptr<3 : i32> -> memref<32xi32, 3 : i32>
