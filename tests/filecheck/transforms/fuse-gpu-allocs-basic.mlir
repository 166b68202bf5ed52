// RUN: xdsl-opt %s --split-input-file -p 'fuse-gpu-allocs' | filecheck %s
// Shapes of the fused form: single shared, single heap, overlapping lifetimes,
// two kernels, idempotence.

// A kernel with exactly one shared allocation keeps it as it is (hoisted to the entry).
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
// CHECK-NEXT:    %f = gpu_alloc.alloc "f" : memref<17xi32, 3 : i32>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %v = arith.constant 1 : i32
// CHECK-NEXT:    memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
// CHECK-NOT:     gpu_alloc.alias

// -----

// A single heap allocation always gets a backing and an alias, sliced per block:
// linear block id = bx + nbx * (by + nby * bz); slice = id * 68 bytes (17 x i32).
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
// CHECK-NEXT:    %c68 = arith.constant 68 : index
// CHECK-NEXT:    %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:    %[[BZ:.*]] = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT:    %[[NX:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:    %[[NY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:    %[[NZ:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT:    %[[T0:.*]] = arith.muli %[[NY]], %[[BZ]] : index
// CHECK-NEXT:    %[[T1:.*]] = arith.addi %[[BY]], %[[T0]] : index
// CHECK-NEXT:    %[[T2:.*]] = arith.muli %[[NX]], %[[T1]] : index
// CHECK-NEXT:    %[[ID:.*]] = arith.addi %[[BX]], %[[T2]] : index
// CHECK-NEXT:    %[[G0:.*]] = arith.muli %[[NX]], %[[NY]] : index
// CHECK-NEXT:    %[[G:.*]] = arith.muli %[[G0]], %[[NZ]] : index
// CHECK-NEXT:    %[[SLICE:.*]] = arith.muli %[[ID]], %c68 : index
// CHECK-NEXT:    %[[TOTAL:.*]] = arith.muli %c68, %[[G]] : index
// CHECK-NEXT:    %global_alloc = gpu_alloc.alloc "global_alloc"(%[[TOTAL]]) align 16 : memref<?xi8, 1 : i32>
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[SLICE]], %c0 : index
// CHECK-NEXT:    %[[P:.*]] = gpu_alloc.offset_pointer %global_alloc[%[[OFF]]] : memref<?xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
// CHECK-NEXT:    %f = gpu_alloc.alias "f" %[[P]] : !gpu_alloc.ptr<1 : i32> -> memref<17xi32, 1 : i32>
// CHECK:         memref.store %v, %f[%{{.*}}] : memref<17xi32, 1 : i32>
// CHECK:       }) {sym_name = "single_heap", gpu_alloc.heap_bytes_per_block = 68 : i64} : () -> ()

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
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" align 16 : memref<96xi8, 3 : i32>

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
// CHECK:       %shared_alloc = gpu_alloc.alloc "shared_alloc" align 16 : memref<32xi8, 3 : i32>
// CHECK:       gpu_alloc.offset_pointer %shared_alloc[
// CHECK:       gpu_alloc.offset_pointer %shared_alloc[
// CHECK:       sym_name = "k1"
// CHECK:       %[[B2:.*]] = gpu_alloc.alloc "shared_alloc_1" align 16 : memref<32xi8, 3 : i32>
// CHECK:       gpu_alloc.offset_pointer %[[B2]][
// CHECK:       gpu_alloc.offset_pointer %[[B2]][
// CHECK:       sym_name = "k2"
