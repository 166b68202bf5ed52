// RUN: gpu-alloc-opt %s --split-input-file --verify-diagnostics -p 'import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs' | filecheck %s
// RUN: not gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs' 2>&1 | filecheck %s --check-prefix LOCATED

// What a gpu.launch body cannot do, each a one-line diagnostic naming the allocation.

// A shared size computed from a thread id (an argument of the body) is refused by fuse.
func.func @host(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %t = arith.addi %tx, %c1 : index
    %a = memref.alloc(%t) : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
// CHECK: the size of allocation 'a' depends on the thread id (an argument of the gpu.launch body); a block-level allocation has one size for the whole block
// LOCATED: launch-bodies-errors.mlir:{{[0-9]+}}:{{[0-9]+}}: error: the size of allocation 'a' depends on the thread id

// -----

// So is an allocation under control flow that depends on the thread id.
func.func @host(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %first = arith.cmpi eq, %ty, %c1 : index
    scf.if %first {
      %a = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    }
    gpu.terminator
  }
  return
}
// CHECK: shared allocation 'a' is under thread-dependent control flow ('scf.if'); block-level allocations must be made by every thread of the block

// -----

// A dynamic shared size becomes the launch's dynamic shared memory, sized before the
// launch from values above it and the launch's grid and block sizes; a size that
// depends on the block id cannot be computed once for every block.
func.func @host(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %m = arith.addi %bx, %c1 : index
    %a = memref.alloc(%m) : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}
// CHECK: the size of shared allocation 'a' in 'gpu.launch in host' depends on a block id; the host sizes a launch's dynamic shared memory once for every block

// -----

// A device function cannot size dynamic shared memory.
gpu.module @m {
  func.func @device(%n: index) {
    %a = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    return
  }
}
// CHECK: dynamic shared allocation 'a' in device function 'device' cannot be lowered: only a kernel's launch can size dynamic shared memory

// -----

// Heap memory in a launch body has no per-block slice to live in.
func.func @host(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %h = gpu_alloc.alloc "h" : memref<16xf32, 1 : i32>
    gpu.terminator
  }
  return
}
// CHECK: heap allocation 'h' in 'gpu.launch in host' cannot be lowered: per-block heap slices are kernel arguments sized at gpu.launch_func (outline the launch first: mlir-opt --gpu-kernel-outlining)

// -----

// IREE-style workgroup code: heap memory has no launch to size it either.
func.func @workgroup_code() {
  %s = gpu_alloc.alloc "s" : memref<16xf32, 3 : i32>
  %h = gpu_alloc.alloc "h" : memref<16xf32, 1 : i32>
  return
}
// CHECK: heap allocation 'h' in 'workgroup_code' cannot be lowered: per-block heap slices are kernel arguments sized at gpu.launch_func (a func.func is not launched)
