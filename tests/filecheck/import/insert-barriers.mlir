// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=never report=true}' 2>&1 | filecheck %s --check-prefix NEVER
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always report=true}' 2>&1 | filecheck %s --check-prefix ALWAYS
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s --check-prefix NEVER
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=1600 report=true}' 2>&1 | filecheck %s --check-prefix ALWAYS
// RUN: not gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=1500}' 2>&1 | filecheck %s --check-prefix TOO-SMALL
// RUN: not gpu-alloc-opt %s -p 'fuse-gpu-allocs{insert-barriers=sometimes}' 2>&1 | filecheck %s --check-prefix BAD-MODE

// IREE's shared_memory_disjoint as a kernel: %a and %b are written in the loop, %c after
// it, with no barrier in between. A barrier after the loop lets %c reuse %a's bytes:
// 1664 -> 1536 B, what IREE's GPUReuseSharedMemoryAllocs reaches. `always` inserts it;
// `over-limit` (the default) only when the kernel would not fit `max-shared-bytes`
// otherwise, and never a barrier that saves nothing.
gpu.module @m {
  gpu.func @disjoint() kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    %cst_f32 = arith.constant 0.000000e+00 : f32
    %a = memref.alloc() : memref<128xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %c = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
    scf.for %arg0 = %c0 to %c128 step %c1 {
      memref.store %cst_f32, %a[%arg0] : memref<128xf32, #gpu.address_space<workgroup>>
      memref.store %cst_f32, %b[%arg0] : memref<256xf32, #gpu.address_space<workgroup>>
    }
    memref.store %cst_f32, %c[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// NEVER-NOT:  inserted
// NEVER:      kernel @disjoint: 1 barrier stage(s)
// NEVER:      shared backing 'shared_alloc': unfused 1664 B, fused 1664 B
// NEVER-NOT:  "gpu.barrier"

// ALWAYS:     fuse-gpu-allocs: remark: inserted gpu.barrier in 'disjoint' after scf.for: shared backing 1664 -> 1536 B (128 B saved)
// ALWAYS:     kernel @disjoint: 2 barrier stage(s)
// ALWAYS:     shared backing 'shared_alloc': unfused 1664 B, fused 1536 B
// ALWAYS:      "gpu.barrier"() : () -> ()
// ALWAYS-NEXT: memref.store %cst_f32, %c[%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>

// TOO-SMALL-NOT: inserted
// TOO-SMALL:     error: kernel 'disjoint' needs 1664 bytes of shared memory, over the limit of 1500

// BAD-MODE:   error: fuse-gpu-allocs: option insert-barriers must be one of never, over-limit, always, got 'sometimes'
