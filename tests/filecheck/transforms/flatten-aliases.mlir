// RUN: xdsl-opt %s -p flatten-aliases | filecheck %s
// RUN: xdsl-opt %s -p flatten-aliases,flatten-aliases | filecheck %s
// RUN: xdsl-opt %examples/stencil_chain.mlir > %t.before.mlir
// RUN: xdsl-opt %examples/stencil_chain.mlir -p flatten-aliases > %t.after.mlir
// RUN: diff %t.before.mlir %t.after.mlir
// Aliases become memref.views; accesses get an alignment re-derived from the byte
// offset, the backing's alignment and the access's own (never the pre-shift one).
// The second RUN line proves the pass idempotent, the last three that a module
// without aliases is unchanged.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%k: index):
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      %c121 = arith.constant 121 : index
      %c2 = arith.constant 2 : index
      %v = arith.constant 1.0 : f32
      %h = arith.constant 1.0 : f16
      %b = "gpu_alloc.alloc"() <{name = "shared_alloc", alignment = 128 : i64}> : () -> memref<1024xi8, 3 : i32>
      %p121 = "gpu_alloc.offset_pointer"(%b, %c121) : (memref<1024xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %f = "gpu_alloc.alias"(%p121) <{name = "f"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<8xf32, 3 : i32>
      %p64 = "gpu_alloc.offset_pointer"(%b, %c64) : (memref<1024xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %g = "gpu_alloc.alias"(%p64) <{name = "g"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<16xf32, 3 : i32>
      %k2 = arith.muli %k, %c2 : index
      %pk = "gpu_alloc.offset_pointer"(%b, %k2) : (memref<1024xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %d = "gpu_alloc.alias"(%pk, %k) <{name = "d"}> : (!gpu_alloc.ptr<3 : i32>, index) -> memref<?xf16, 3 : i32>
      memref.store %v, %f[%c0] {alignment = 16 : i64} : memref<8xf32, 3 : i32>
      %x = memref.load %g[%c0] : memref<16xf32, 3 : i32>
      %vec = vector.load %g[%c0] {alignment = 32 : i64} : memref<16xf32, 3 : i32>, vector<4xf32>
      memref.store %h, %d[%c0] : memref<?xf16, 3 : i32>
      "gpu_alloc.dealloc"(%f) : (memref<8xf32, 3 : i32>) -> ()
      "gpu_alloc.dealloc"(%b) : (memref<1024xi8, 3 : i32>) -> ()
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// The record of which bytes are which Func: 'g' (16xf32) at 64, 'f' (8xf32) at 121;
// 'd' has a dynamic offset and size, so no entry.
// CHECK:      %b = gpu_alloc.alloc "shared_alloc" align 128 {gpu_alloc.layout = [{name = "g", offset = 64 : i64, bytes = 64 : i64, stages = array<i64: 0, 0>}, {name = "f", offset = 121 : i64, bytes = 32 : i64, stages = array<i64: 0, 0>}]} : memref<1024xi8, 3 : i32>
// CHECK-NEXT: %f = memref.view %b[%c121][] : memref<1024xi8, 3 : i32> to memref<8xf32, 3 : i32>
// CHECK-NEXT: %g = memref.view %b[%c64][] : memref<1024xi8, 3 : i32> to memref<16xf32, 3 : i32>
// CHECK-NEXT: %k2 = arith.muli %k, %c2 : index
// CHECK-NEXT: %d = memref.view %b[%k2][%k] : memref<1024xi8, 3 : i32> to memref<?xf16, 3 : i32>
// Offset 121 is odd: the old 16-byte claim would be a lie; alignment 1.
// CHECK-NEXT: memref.store %v, %f[%c0] {alignment = 1 : i64} : memref<8xf32, 3 : i32>
// Offset 64 in a 128-aligned backing: a scalar f32 access is 4-aligned...
// CHECK-NEXT: %x = memref.load %g[%c0] {alignment = 4 : i64} : memref<16xf32, 3 : i32>
// ... and a vector access keeps its own 32 (64 and 128 allow it).
// CHECK-NEXT: %vec = vector.load %g[%c0] {alignment = 32 : i64} : memref<16xf32, 3 : i32>, vector<4xf32>
// Offset k * 2 with k unknown: 2.
// CHECK-NEXT: memref.store %h, %d[%c0] {alignment = 2 : i64} : memref<?xf16, 3 : i32>
// The alias's dealloc goes, the backing's stays.
// CHECK-NEXT: gpu_alloc.dealloc %b : memref<1024xi8, 3 : i32>
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NOT:  gpu_alloc.alias
// CHECK-NOT:  gpu_alloc.offset_pointer
