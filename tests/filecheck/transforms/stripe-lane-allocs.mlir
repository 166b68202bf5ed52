// RUN: xdsl-opt %s -p stripe-lane-allocs --split-input-file | filecheck %s

// Private storage indexed by lane + 32k (lane = thread_id x % 32) shrinks to
// ceil(n / 32) per lane, static (128 -> 4) or dynamic (ceildivui n, 32), and every
// access divides its last index by 32. The heap allocation with the same indices
// is not touched.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<256xf32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<256xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %lane = arith.remui %t, %c32 : index
      %r = gpu_alloc.alloc "r" align 16 : memref<128xf32, 5 : i32>
      %d = gpu_alloc.alloc "d"(%n) : memref<?xf32, 5 : i32>
      %h = gpu_alloc.alloc "h" : memref<128xf32, 1 : i32>
      scf.for %k = %c0 to %c4 step %c1 {
        %base = arith.muli %k, %c32 : index
        %i = arith.addi %lane, %base : index
        %kf = arith.index_cast %k : index to i32
        %v = arith.sitofp %kf : i32 to f32
        memref.store %v, %r[%i] : memref<128xf32, 5 : i32>
        memref.store %v, %d[%i] : memref<?xf32, 5 : i32>
        memref.store %v, %h[%i] : memref<128xf32, 1 : i32>
      }
      %j = arith.addi %lane, %c32 : index
      %a = memref.load %r[%j] : memref<128xf32, 5 : i32>
      %b = memref.load %d[%lane] : memref<?xf32, 5 : i32>
      %c = memref.load %h[%j] : memref<128xf32, 1 : i32>
      %s = arith.addf %a, %b : f32
      %s2 = arith.addf %s, %c : f32
      memref.store %s2, %out[%t] : memref<256xf32>
      gpu_alloc.dealloc %r : memref<128xf32, 5 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c4 = arith.constant 4 : index
// CHECK-NEXT: %c32 = arith.constant 32 : index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %lane = arith.remui %t, %c32 : index
// CHECK-NEXT: %r = gpu_alloc.alloc "r" align 16 : memref<4xf32, 5 : i32>
// CHECK-NEXT: %0 = arith.ceildivui %n, %c32 : index
// CHECK-NEXT: %d = gpu_alloc.alloc "d"(%0) : memref<?xf32, 5 : i32>
// CHECK-NEXT: %h = gpu_alloc.alloc "h" : memref<128xf32, 1 : i32>
// CHECK-NEXT: scf.for %k = %c0 to %c4 step %c1 {
// CHECK-NEXT: %base = arith.muli %k, %c32 : index
// CHECK-NEXT: %i = arith.addi %lane, %base : index
// CHECK-NEXT: %kf = arith.index_cast %k : index to i32
// CHECK-NEXT: %v = arith.sitofp %kf : i32 to f32
// CHECK-NEXT: %1 = arith.divui %i, %c32 : index
// CHECK-NEXT: memref.store %v, %r[%1] : memref<4xf32, 5 : i32>
// CHECK-NEXT: %2 = arith.divui %i, %c32 : index
// CHECK-NEXT: memref.store %v, %d[%2] : memref<?xf32, 5 : i32>
// CHECK-NEXT: memref.store %v, %h[%i] : memref<128xf32, 1 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: %j = arith.addi %lane, %c32 : index
// CHECK-NEXT: %3 = arith.divui %j, %c32 : index
// CHECK-NEXT: %a = memref.load %r[%3] : memref<4xf32, 5 : i32>
// CHECK-NEXT: %4 = arith.divui %lane, %c32 : index
// CHECK-NEXT: %b = memref.load %d[%4] : memref<?xf32, 5 : i32>
// CHECK-NEXT: %c = memref.load %h[%j] : memref<128xf32, 1 : i32>
// CHECK-NEXT: %s = arith.addf %a, %b : f32
// CHECK-NEXT: %s2 = arith.addf %s, %c : f32
// CHECK-NEXT: memref.store %s2, %out[%t] : memref<256xf32>
// CHECK-NEXT: gpu_alloc.dealloc %r : memref<4xf32, 5 : i32>
// CHECK-NEXT: "gpu.return"() : () -> ()

// -----

// Halide's iir_blur pattern (reference §4.4): a heap alias and a shared allocation
// at block level, indexed by gpu.lane_id inside a serial loop, are never striped,
// resized or moved, and the alias keeps its dealloc. Only the private "rows" is
// striped (its last dimension 64 -> 2).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c64 = arith.constant 64 : index
      %lane = "gpu.lane_id"() : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 : memref<65536xi8, 1 : i32>
      %slice = arith.muli %bx, %c64 : index
      %p = gpu_alloc.offset_pointer %global_alloc[%slice] : memref<65536xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
      %blur = gpu_alloc.alias "blur" %p : !gpu_alloc.ptr<1 : i32> -> memref<2x64xf32, 1 : i32>
      %shared = gpu_alloc.alloc "wrapper" : memref<2x64xf32, 3 : i32>
      %rows = gpu_alloc.alloc "rows" : memref<2x64xf32, 5 : i32>
      scf.for %y = %c0 to %c2 step %c1 {
        %yf = arith.index_cast %y : index to i32
        %v = arith.sitofp %yf : i32 to f32
        memref.store %v, %blur[%y, %lane] : memref<2x64xf32, 1 : i32>
        memref.store %v, %shared[%y, %lane] : memref<2x64xf32, 3 : i32>
        memref.store %v, %rows[%y, %lane] : memref<2x64xf32, 5 : i32>
      }
      %a = memref.load %blur[%c1, %lane] : memref<2x64xf32, 1 : i32>
      %b = memref.load %shared[%c1, %lane] : memref<2x64xf32, 3 : i32>
      %c = memref.load %rows[%c1, %lane] : memref<2x64xf32, 5 : i32>
      %ab = arith.addf %a, %b : f32
      %abc = arith.addf %ab, %c : f32
      memref.store %abc, %out[%lane] : memref<?xf32>
      gpu_alloc.dealloc %blur : memref<2x64xf32, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %c64 = arith.constant 64 : index
// CHECK-NEXT: %lane = "gpu.lane_id"() : () -> index
// CHECK-NEXT: %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 : memref<65536xi8, 1 : i32>
// CHECK-NEXT: %slice = arith.muli %bx, %c64 : index
// CHECK-NEXT: %p = gpu_alloc.offset_pointer %global_alloc[%slice] : memref<65536xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
// CHECK-NEXT: %blur = gpu_alloc.alias "blur" %p : !gpu_alloc.ptr<1 : i32> -> memref<2x64xf32, 1 : i32>
// CHECK-NEXT: %shared = gpu_alloc.alloc "wrapper" : memref<2x64xf32, 3 : i32>
// CHECK-NEXT: %0 = arith.constant 32 : index
// CHECK-NEXT: %rows = gpu_alloc.alloc "rows" : memref<2x2xf32, 5 : i32>
// CHECK-NEXT: scf.for %y = %c0 to %c2 step %c1 {
// CHECK-NEXT: %yf = arith.index_cast %y : index to i32
// CHECK-NEXT: %v = arith.sitofp %yf : i32 to f32
// CHECK-NEXT: memref.store %v, %blur[%y, %lane] : memref<2x64xf32, 1 : i32>
// CHECK-NEXT: memref.store %v, %shared[%y, %lane] : memref<2x64xf32, 3 : i32>
// CHECK-NEXT: %1 = arith.divui %lane, %0 : index
// CHECK-NEXT: memref.store %v, %rows[%y, %1] : memref<2x2xf32, 5 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: %a = memref.load %blur[%c1, %lane] : memref<2x64xf32, 1 : i32>
// CHECK-NEXT: %b = memref.load %shared[%c1, %lane] : memref<2x64xf32, 3 : i32>
// CHECK-NEXT: %2 = arith.divui %lane, %0 : index
// CHECK-NEXT: %c = memref.load %rows[%c1, %2] : memref<2x2xf32, 5 : i32>
// CHECK-NEXT: %ab = arith.addf %a, %b : f32
// CHECK-NEXT: %abc = arith.addf %ab, %c : f32
// CHECK-NEXT: memref.store %abc, %out[%lane] : memref<?xf32>
// CHECK-NEXT: gpu_alloc.dealloc %blur : memref<2x64xf32, 1 : i32>
// CHECK-NEXT: "gpu.return"() : () -> ()

// -----

// Private storage that no access indexes by lane is left alone.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<8xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %acc = gpu_alloc.alloc "acc" : memref<8xf32, 5 : i32>
      %z = arith.constant 0.0 : f32
      scf.for %i = %c0 to %c8 step %c1 {
        memref.store %z, %acc[%i] : memref<8xf32, 5 : i32>
      }
      %x = memref.load %acc[%c1] : memref<8xf32, 5 : i32>
      memref.store %x, %out[%c0] : memref<8xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %acc = gpu_alloc.alloc "acc" : memref<8xf32, 5 : i32>
// CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:   memref.store %z, %acc[%i] : memref<8xf32, 5 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: %x = memref.load %acc[%c1] : memref<8xf32, 5 : i32>
