// RUN: gpu-alloc-opt %s -p import-gpu-allocs,fuse-gpu-allocs 2>%t.err | filecheck %s
// RUN: filecheck %s --allow-empty --check-prefix REMARK < %t.err

// Allocations in a gpu.launch body and in IREE-style workgroup code (a func.func that
// allocates workgroup memory) are imported. fuse-gpu-allocs fuses both like a kernel
// (here: one allocation each, kept as it is) and has nothing to remark on.
func.func @host(%n: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %buf = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    gpu.terminator
  }
  return
}
func.func @workgroup_code() {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %a[%c0] : memref<128xf32, #gpu.address_space<workgroup>>
  return
}

// CHECK: %buf = gpu_alloc.alloc "buf" : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %a = gpu_alloc.alloc "a" : memref<128xf32, #gpu.address_space<workgroup>>

// REMARK-NOT: remark
