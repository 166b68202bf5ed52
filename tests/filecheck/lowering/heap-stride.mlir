// Issue 10 §4: the per-block heap stride is rounded up to the backing's alignment.
// An f32 Func h (32 B) and an i8 Func d (37 B), both live at once, fuse into a
// 69-byte per-block backing (h at 0, d at 32). Lowered, each block's slice starts at
// a multiple of 80 (69 rounded up to 16), so h keeps its 4-byte alignment in every
// block and flatten-aliases marks h's accesses {alignment = 4}, not 1.
// RUN: gpu-alloc-opt %s -p fuse-gpu-allocs,flatten-aliases | filecheck %s --check-prefix FLAT
// RUN: gpu-alloc-opt %s -p fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs | filecheck %s

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1.0 : f32
      %b = arith.constant 7 : i8
      %h = "gpu_alloc.alloc"() <{name = "h"}> : () -> memref<8xf32, 1 : i32>
      %d = "gpu_alloc.alloc"() <{name = "d"}> : () -> memref<37xi8, 1 : i32>
      memref.store %c1, %h[%c0] : memref<8xf32, 1 : i32>
      memref.store %b, %d[%c0] : memref<37xi8, 1 : i32>
      %x = memref.load %h[%c0] : memref<8xf32, 1 : i32>
      %y = memref.load %d[%c0] : memref<37xi8, 1 : i32>
      memref.store %x, %out[%c0] : memref<64xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// FLAT:      %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 {gpu_alloc.layout = [{name = "h", offset = 0 : i64, bytes = 32 : i64, stages = array<i64: 0, 0>}, {name = "d", offset = 32 : i64, bytes = 37 : i64, stages = array<i64: 0, 0>}]} : memref<69xi8, 1 : i32>
// FLAT:      memref.store %c1, %h[%{{.*}}] {alignment = 4 : i64} : memref<8xf32, 1 : i32>
// FLAT:      %x = memref.load %h[%{{.*}}] {alignment = 4 : i64} : memref<8xf32, 1 : i32>

// CHECK:      ^bb0(%out: memref<64xf32>, %[[HEAP:.*]]: memref<?xi8, 1 : i32>):
// CHECK-NEXT:   %[[STRIDE:.*]] = arith.constant 80 : index
// CHECK:        %heap_slice = arith.muli %{{.*}}, %[[STRIDE]] : index
// CHECK-NEXT:   %global_alloc = memref.view %[[HEAP]][%heap_slice][] : memref<?xi8, 1 : i32> to memref<69xi8, 1 : i32>
// CHECK:        memref.store %c1, %h[%{{.*}}] {alignment = 4 : i64} : memref<8xf32, 1 : i32>
// CHECK:        gpu_alloc.heap_layout = [{name = "h", offset = 0 : i64, bytes = 32 : i64, stages = array<i64: 0, 0>}, {name = "d", offset = 32 : i64, bytes = 37 : i64, stages = array<i64: 0, 0>}], gpu_alloc.heap_bytes_per_block = 80 : i64
