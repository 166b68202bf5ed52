// RUN: xdsl-opt %s -p pad-shared-allocs --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p pad-shared-allocs,pad-shared-allocs --split-input-file | filecheck %s
// RUN: xdsl-opt %s -p 'pad-shared-allocs{max-shared-bytes=4200}' --split-input-file | filecheck %s --check-prefix LIMIT
// RUN: not xdsl-opt %s -p 'pad-shared-allocs{max-shared-bytes=-5}' --split-input-file 2>&1 | filecheck %s --check-prefix NEGATIVE
// The second RUN line proves the pass idempotent. With a 4200-byte limit no 32x32 f32
// tile (4096 bytes, 4224 padded) may grow. A negative limit is refused as fuse refuses it
// (issue 30: it was accepted).
// NEGATIVE: pad-shared-allocs: option max-shared-bytes must be a non-negative number of bytes, got -5
// NEGATIVE-NOT: gpu.module

// A warp reads a column of a 32x32 f32 tile (thread id in the row index): the row
// pitch is 32 words, every read hits one bank. One f32 of padding makes it 33 words;
// accesses keep the original shape through a strided subview; the dealloc frees the
// padded allocation.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tile = "gpu_alloc.alloc"() <{name = "tile", alignment = 32 : i64}> : () -> memref<32x32xf32, 3 : i32>
      memref.store %v, %tile[%c0, %t] : memref<32x32xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %x = memref.load %tile[%t, %c0] : memref<32x32xf32, 3 : i32>
      "gpu_alloc.dealloc"(%tile) : (memref<32x32xf32, 3 : i32>) -> ()
      "gpu.return"() : () -> ()
    }) {sym_name = "column"} : () -> ()
  }) : () -> ()
}
// CHECK:      %tile = gpu_alloc.alloc "tile" align 32 : memref<32x33xf32, 3 : i32>
// CHECK-NEXT: %[[V:.*]] = memref.subview %tile[0, 0] [32, 32] [1, 1] : memref<32x33xf32, 3 : i32> to memref<32x32xf32, strided<[33, 1]>, 3 : i32>
// CHECK:      memref.store %v, %[[V]][%c0, %t] : memref<32x32xf32, strided<[33, 1]>, 3 : i32>
// CHECK:      %x = memref.load %[[V]][%t, %c0] : memref<32x32xf32, strided<[33, 1]>, 3 : i32>
// CHECK-NEXT: gpu_alloc.dealloc %tile : memref<32x33xf32, 3 : i32>
// CHECK:      sym_name = "column"
// LIMIT:      gpu_alloc.alloc "tile" align 32 : memref<32x32xf32, 3 : i32>
// LIMIT-NOT:  memref.subview
// LIMIT:      sym_name = "column"

// -----

// The pad depends on the element size: f64 and f16 tiles need one element, a 64x16 f16
// tile (32-byte rows) two, a 16x64 i8 tile (64-byte rows) two. A 3-D tile read along
// its middle dimension is padded in the innermost one.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<32x32xf64, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<32x32xf16, 3 : i32>
      %c = "gpu_alloc.alloc"() <{name = "c"}> : () -> memref<64x16xf16, 3 : i32>
      %d = "gpu_alloc.alloc"() <{name = "d"}> : () -> memref<16x64xi8, 3 : i32>
      %e = "gpu_alloc.alloc"() <{name = "e"}> : () -> memref<2x32x32xf32, 3 : i32>
      %xa = memref.load %a[%t, %c0] : memref<32x32xf64, 3 : i32>
      %xb = memref.load %b[%t, %c0] : memref<32x32xf16, 3 : i32>
      %xc = memref.load %c[%t, %c0] : memref<64x16xf16, 3 : i32>
      %xd = memref.load %d[%t, %c0] : memref<16x64xi8, 3 : i32>
      %xe = memref.load %e[%c0, %t, %c0] : memref<2x32x32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "sizes"} : () -> ()
  }) : () -> ()
}
// CHECK: gpu_alloc.alloc "a" : memref<32x33xf64, 3 : i32>
// CHECK: gpu_alloc.alloc "b" : memref<32x33xf16, 3 : i32>
// CHECK: gpu_alloc.alloc "c" : memref<64x18xf16, 3 : i32>
// CHECK: gpu_alloc.alloc "d" : memref<16x66xi8, 3 : i32>
// CHECK: gpu_alloc.alloc "e" : memref<2x32x33xf32, 3 : i32>
// CHECK-NEXT: memref.subview %e[0, 0, 0] [2, 32, 32] [1, 1, 1] : memref<2x32x33xf32, 3 : i32> to memref<2x32x32xf32, strided<[1056, 33, 1]>, 3 : i32>
// CHECK:      sym_name = "sizes"

// -----

// Left alone: rows read by the warp (only the innermost index depends on the thread),
// a pitch that is already conflict-free (11 words), a 1-D Func, a heap Func, a Func
// passed to an op other than load/store (it could be read through any layout), and a
// Func the LIMIT run may not pad either.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %rows = "gpu_alloc.alloc"() <{name = "rows"}> : () -> memref<32x32xf32, 3 : i32>
      %odd = "gpu_alloc.alloc"() <{name = "odd"}> : () -> memref<11x11xi32, 3 : i32>
      %flat = "gpu_alloc.alloc"() <{name = "flat"}> : () -> memref<1024xf32, 3 : i32>
      %heap = "gpu_alloc.alloc"() <{name = "heap"}> : () -> memref<32x32xf32, 1 : i32>
      %used = "gpu_alloc.alloc"() <{name = "used"}> : () -> memref<32x32xf32, 3 : i32>
      %x1 = memref.load %rows[%c0, %t] : memref<32x32xf32, 3 : i32>
      %x2 = memref.load %odd[%t, %c0] : memref<11x11xi32, 3 : i32>
      %x3 = memref.load %flat[%t] : memref<1024xf32, 3 : i32>
      %x4 = memref.load %heap[%t, %c0] : memref<32x32xf32, 1 : i32>
      %x5 = memref.load %used[%t, %c0] : memref<32x32xf32, 3 : i32>
      %cast = "memref.cast"(%used) : (memref<32x32xf32, 3 : i32>) -> memref<?x32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "kept"} : () -> ()
  }) : () -> ()
}
// CHECK-NOT:  memref.subview
// CHECK:      gpu_alloc.alloc "rows" : memref<32x32xf32, 3 : i32>
// CHECK-NEXT: gpu_alloc.alloc "odd" : memref<11x11xi32, 3 : i32>
// CHECK-NEXT: gpu_alloc.alloc "flat" : memref<1024xf32, 3 : i32>
// CHECK-NEXT: gpu_alloc.alloc "heap" : memref<32x32xf32, 1 : i32>
// CHECK-NEXT: gpu_alloc.alloc "used" : memref<32x32xf32, 3 : i32>
// CHECK-NOT:  memref.subview
// CHECK:      sym_name = "kept"

// -----

// Which threads make up a warp: consecutive ids along x. `yx[ty, tx]` is read a row per
// warp (no conflict: kept), `xy[tx, ty]` a column per warp (padded). In the second
// kernel blocks are 8 threads wide (`gpu.known_block_size`), so a warp spans 4 values of
// ty and `yx[ty, tx]` is read across rows too: padded.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %yx = "gpu_alloc.alloc"() <{name = "yx"}> : () -> memref<32x32xf32, 3 : i32>
      %xy = "gpu_alloc.alloc"() <{name = "xy"}> : () -> memref<32x32xf32, 3 : i32>
      %a = memref.load %yx[%ty, %tx] : memref<32x32xf32, 3 : i32>
      %b = memref.load %xy[%tx, %ty] : memref<32x32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "wide"} : () -> ()
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %yx = "gpu_alloc.alloc"() <{name = "yx"}> : () -> memref<32x32xf32, 3 : i32>
      %a = memref.load %yx[%ty, %tx] : memref<32x32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "narrow", gpu.known_block_size = array<i32: 8, 32, 1>} : () -> ()
  }) : () -> ()
}
// CHECK:      gpu_alloc.alloc "yx" : memref<32x32xf32, 3 : i32>
// CHECK-NEXT: gpu_alloc.alloc "xy" : memref<32x33xf32, 3 : i32>
// CHECK:      sym_name = "wide"
// CHECK:      gpu_alloc.alloc "yx" : memref<32x33xf32, 3 : i32>
// CHECK:      sym_name = "narrow"
