// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs' | filecheck %s
// Shapes of the fused form: single shared, single heap, overlapping lifetimes,
// two kernels, idempotence.

// A kernel with exactly one shared allocation keeps it as it is: it is in the entry
// block already, so nothing moves.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<17xi32, 3 : i32>
      memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "single_shared"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: sym_name = "m"
// CHECK:       "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %v = arith.constant 1 : i32
// CHECK-NEXT:    %f = gpu_alloc.alloc "f" : memref<17xi32, 3 : i32>
// CHECK-NEXT:    memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
// CHECK-NOT:     gpu_alloc.alias

// -----

// A single heap allocation is kept as it is, like a single shared one: every space-1
// allocation is per-block storage, so it needs no backing and no block-id arithmetic.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<17xi32, 1 : i32>
      memref.store %v, %f[%c0] : memref<17xi32, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "single_heap"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: sym_name = "m"
// CHECK:         %c0 = arith.constant 0 : index
// CHECK-NEXT:    %v = arith.constant 1 : i32
// CHECK-NEXT:    %f = gpu_alloc.alloc "f" : memref<17xi32, 1 : i32>
// CHECK-NOT:     gpu.block_id
// CHECK-NOT:     global_alloc
// CHECK:         memref.store %v, %f[%{{.*}}] : memref<17xi32, 1 : i32>
// CHECK-NEXT:    "gpu.return"() : () -> ()
// CHECK-NEXT:  }) {sym_name = "single_heap"} : () -> ()

// -----

// Overlapping lifetimes (all three live in stage 0): nothing is shared.
// 16 + 32 + 48 bytes, each at a 16-byte aligned offset: 96 bytes.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<4xi32, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<8xi32, 3 : i32>
      %c = "gpu_alloc.alloc"() <{name = "c"}> : () -> memref<12xi32, 3 : i32>
      memref.store %v, %a[%c0] : memref<4xi32, 3 : i32>
      memref.store %v, %b[%c0] : memref<8xi32, 3 : i32>
      memref.store %v, %c[%c0] : memref<12xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %a[%c0] : memref<4xi32, 3 : i32>
      %y = memref.load %b[%c0] : memref<8xi32, 3 : i32>
      %z = memref.load %c[%c0] : memref<12xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "overlapping"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: sym_name = "m"
// The backing records each Func's bytes and the stages it is live in (all three: 0-1).
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "c", offset = 0 : i64, bytes = 48 : i64, stages = array<i64: 0, 1>}, {name = "b", offset = 48 : i64, bytes = 32 : i64, stages = array<i64: 0, 1>}, {name = "a", offset = 80 : i64, bytes = 16 : i64, stages = array<i64: 0, 1>}]} : memref<96xi8, 3 : i32>

// -----

// Two kernels get two backings, with module-unique names; aliases only point into
// their own kernel's backing.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<4xi32, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<4xi32, 3 : i32>
      memref.store %v, %a[%c0] : memref<4xi32, 3 : i32>
      memref.store %v, %b[%c0] : memref<4xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k1"} : () -> ()
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<4xi32, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<4xi32, 3 : i32>
      memref.store %v, %a[%c0] : memref<4xi32, 3 : i32>
      memref.store %v, %b[%c0] : memref<4xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k2"} : () -> ()
  }) : () -> ()
}
// CHECK-LABEL: sym_name = "m"
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = {{.*}}} : memref<32xi8, 3 : i32>
// CHECK:       gpu_alloc.offset_pointer %shared_alloc[
// CHECK:       gpu_alloc.offset_pointer %shared_alloc[
// CHECK:       sym_name = "k1"
// CHECK:       %[[B2:.*]] = gpu_alloc.alloc "shared_alloc_1" backing align 16 {gpu_alloc.layout = {{.*}}} : memref<32xi8, 3 : i32>
// CHECK:       gpu_alloc.offset_pointer %[[B2]][
// CHECK:       gpu_alloc.offset_pointer %[[B2]][
// CHECK:       sym_name = "k2"
