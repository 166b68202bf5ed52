// RUN: xdsl-opt %s -p stripe-lane-allocs --verify-diagnostics --split-input-file | filecheck %s
// RUN: not gpu-alloc-opt %s -p stripe-lane-allocs --split-input-file 2>&1 | filecheck %s --check-prefix LOC
// A private allocation indexed by lane whose other accesses are not lane-local gets a
// diagnostic naming the access: xDSL 0.75 has no gpu.shuffle for a cross-lane read.

// A read of the next lane's element.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @use(memref<64xf32, 5 : i32>) -> ()
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = "gpu.lane_id"() : () -> index
      %r = gpu_alloc.alloc "r" : memref<64xf32, 5 : i32>
      %one = arith.constant 1.0 : f32
      memref.store %one, %r[%lane] : memref<64xf32, 5 : i32>
      %next = arith.addi %lane, %c1 : index
      %x = memref.load %r[%next] : memref<64xf32, 5 : i32>
      memref.store %x, %out[%lane] : memref<64xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// The driver stops at the first error and prints it at the load's location.
// LOC:      stripe-lane-allocs-invalid.mlir:19:7: error: cannot stripe private allocation 'r' across the lanes of a warp: this load reads
// LOC-NEXT:       %x = memref.load %r[%next] : memref<64xf32, 5 : i32>
// LOC-NOT:  error

// CHECK: cannot stripe private allocation 'r' across the lanes of a warp: this load reads an element of another lane (its index is not the lane id plus a multiple of 32); a cross-lane read needs gpu.shuffle, which xDSL 0.75 does not define

// -----

// A write to an element of another lane.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @use(memref<64xf32, 5 : i32>) -> ()
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = "gpu.lane_id"() : () -> index
      %r = gpu_alloc.alloc "r" : memref<64xf32, 5 : i32>
      %one = arith.constant 1.0 : f32
      memref.store %one, %r[%lane] : memref<64xf32, 5 : i32>
      memref.store %one, %r[%c1] : memref<64xf32, 5 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK: cannot stripe private allocation 'r' across the lanes of a warp: this store writes an element of another lane (its index is not the lane id plus a multiple of 32)

// -----

// An escape into a call.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @use(memref<64xf32, 5 : i32>) -> ()
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = "gpu.lane_id"() : () -> index
      %r = gpu_alloc.alloc "r" : memref<64xf32, 5 : i32>
      %one = arith.constant 1.0 : f32
      memref.store %one, %r[%lane] : memref<64xf32, 5 : i32>
      func.call @use(%r) : (memref<64xf32, 5 : i32>) -> ()
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK: cannot stripe private allocation 'r' across the lanes of a warp: it is used by func.call, which cannot be rewritten to lane-local indices

// -----

// Two lane values that need not agree (thread_id y % 32 is not the lane).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @use(memref<64xf32, 5 : i32>) -> ()
    "gpu.func"() <{function_type = (memref<64xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32>):
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %lane = "gpu.lane_id"() : () -> index
      %r = gpu_alloc.alloc "r" : memref<64xf32, 5 : i32>
      %one = arith.constant 1.0 : f32
      memref.store %one, %r[%lane] : memref<64xf32, 5 : i32>
      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index
      %l2 = arith.remui %ty, %c32 : index
      %x = memref.load %r[%l2] : memref<64xf32, 5 : i32>
      memref.store %x, %out[%lane] : memref<64xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK: cannot stripe private allocation 'r' across the lanes of a warp: its accesses use different lanes (gpu.lane_id and gpu.thread_id y)

