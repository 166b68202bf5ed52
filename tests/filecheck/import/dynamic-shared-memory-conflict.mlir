// RUN: not gpu-alloc-opt %s -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs 2>&1 | filecheck %s

// A kernel that lays out gpu.dynamic_shared_memory itself cannot also get a dynamic
// shared backing from lower-gpu-allocs: both would start at byte 0. Refused, never
// overlapped silently; static shared buffers would still be fused.
gpu.module @m {
  gpu.func @k(%n: index, %out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %v = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %d = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    %x = memref.load %out[%tx] : memref<64xf32>
    memref.store %x, %v[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %d[%tx] : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// CHECK: fuse-gpu-allocs: remark: 'k' lays out gpu.dynamic_shared_memory itself; those bytes are not fused
// CHECK: error: kernel 'k' lays out gpu.dynamic_shared_memory itself, so 'd' cannot be placed in it too
