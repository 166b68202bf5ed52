// RUN: gpu-alloc-opt %s -p fuse-gpu-allocs | filecheck %s
// A private allocation sized from the induction variable of an i32 scf.for is hoisted
// and sized for the last trip, max(ub - 1, lb), computed in i32 (an index constant
// here made `arith.subi` of i32 and index: invalid IR). gpu-alloc-opt verifies its
// output, so this run also checks the result is valid.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<8xf32>):
      %lb = arith.constant 1 : i32
      %ub = arith.constant 5 : i32
      %step = arith.constant 1 : i32
      %c0 = arith.constant 0 : index
      %v = arith.constant 2.0 : f32
      scf.for %i = %lb to %ub step %step : i32 {
        %n = arith.index_cast %i : i32 to index
        %p = "gpu_alloc.alloc"(%n) <{name = "p"}> : (index) -> memref<?xf32, 5 : i32>
        memref.store %v, %p[%c0] : memref<?xf32, 5 : i32>
        %x = memref.load %p[%c0] : memref<?xf32, 5 : i32>
        memref.store %x, %out[%c0] : memref<8xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%out: memref<8xf32>):
// CHECK-NEXT:   %ub = arith.constant 5 : i32
// CHECK-NEXT:   %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-NEXT:   %[[BEFORE:.*]] = arith.subi %ub, %[[ONE]] : i32
// CHECK-NEXT:   %lb = arith.constant 1 : i32
// CHECK-NEXT:   %[[LAST:.*]] = arith.maxsi %[[BEFORE]], %lb : i32
// CHECK-NEXT:   %[[N:.*]] = arith.index_cast %[[LAST]] : i32 to index
// CHECK-NEXT:   %p = gpu_alloc.alloc "p"(%[[N]]) : memref<?xf32, 5 : i32>
// CHECK:        scf.for %i = %lb to %ub step %step : i32 {
// CHECK-NEXT:     %{{.*}} = arith.index_cast %i : i32 to index
// CHECK-NEXT:     memref.store %v, %p[%c0] : memref<?xf32, 5 : i32>
