// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=never report=true}' 2>&1 | filecheck %s --check-prefix NEVER
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always report=true}' 2>&1 >/dev/null | filecheck %s --check-prefix ALWAYS
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always}' | filecheck %s --check-prefix ALWAYS-IR
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{report=true}' 2>&1 | filecheck %s --check-prefix NEVER
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=300 report=true}' 2>&1 >/dev/null | filecheck %s --check-prefix ALWAYS
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=300}' | filecheck %s --check-prefix ALWAYS-IR
// RUN: not gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{max-shared-bytes=200}' 2>&1 | filecheck %s --check-prefix TOO-SMALL
// RUN: gpu-alloc-opt %s --split-input-file -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always},flatten-aliases,lower-gpu-allocs' | mlir-opt-22 --split-input-file > /dev/null

// Barriers inside block-uniform control flow. In @loop, %A and %B are made in the loop
// body and %A is read where %B is written: they share bytes only with a barrier between
// %A's read and %B's write *and* one closing the back edge (the next iteration writes %A
// while %B may still be read), so `always` inserts both (512 -> 256 B). The body's end
// is chosen (the start would do as well). `over-limit` inserts them only when 512 B does
// not fit, and nothing when even 256 B does not.
gpu.module @m {
  gpu.func @loop(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
      %B = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %ti, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = memref.load %A[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %a, %B[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %b = memref.load %B[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %b, %out[%t] : memref<64xi32>
    }
    gpu.return
  }
}

// NEVER-NOT:  inserted
// NEVER:      kernel @loop: 3 barrier stage(s)
// NEVER:      shared backing 'shared_alloc': unfused 512 B, fused 512 B

// ALWAYS:      fuse-gpu-allocs: remark: inserted gpu.barrier in 'loop' after %a = memref.load in 'scf.for': shared backing 512 -> 256 B (256 B saved)
// ALWAYS-NEXT: fuse-gpu-allocs: remark: inserted gpu.barrier in 'loop' after memref.store in 'scf.for': shared backing 512 -> 256 B (256 B saved)
// ALWAYS:      kernel @loop: 5 barrier stage(s)
// ALWAYS:      shared backing 'shared_alloc': unfused 512 B, fused 256 B
// ALWAYS-IR:      scf.for
// ALWAYS-IR:        %a = memref.load %A[%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// ALWAYS-IR-NEXT:   "gpu.barrier"() : () -> ()
// ALWAYS-IR-NEXT:   memref.store %a, %B[%t] : memref<64xi32, #gpu.address_space<workgroup>>
// ALWAYS-IR:        memref.store %b, %out[%t] : memref<64xi32>
// ALWAYS-IR-NEXT:   "gpu.barrier"() : () -> ()
// ALWAYS-IR-NEXT: }

// TOO-SMALL-NOT: inserted
// TOO-SMALL:     error: kernel 'loop' needs 512 bytes of shared memory, over the limit of 200

// -----

// In a block-uniform scf.if: %P is read before %Q is written in the same branch; a
// barrier between them inside the branch lets them share bytes (512 -> 256 B).
gpu.module @m {
  gpu.func @branch(%out: memref<64xi32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %P = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %Q = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %uniform = arith.cmpi ugt, %n, %c5 : index
    scf.if %uniform {
      memref.store %ti, %P[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %p = memref.load %P[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %p, %Q[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %q = memref.load %Q[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %q, %out[%t] : memref<64xi32>
    }
    gpu.return
  }
}

// NEVER-NOT:  inserted
// NEVER:      kernel @branch: 3 barrier stage(s)
// NEVER:      shared backing 'shared_alloc': unfused 512 B, fused 512 B

// ALWAYS:      fuse-gpu-allocs: remark: inserted gpu.barrier in 'branch' after %p = memref.load in 'scf.if': shared backing 512 -> 256 B (256 B saved)
// ALWAYS-NOT:  inserted
// ALWAYS:      kernel @branch: 4 barrier stage(s)
// ALWAYS:      shared backing 'shared_alloc': unfused 512 B, fused 256 B
// ALWAYS-IR:      scf.if %uniform {
// ALWAYS-IR:        %p = memref.load %P[%{{.*}}] : memref<64xi32, #gpu.address_space<workgroup>>
// ALWAYS-IR-NEXT:   "gpu.barrier"() : () -> ()
// ALWAYS-IR-NEXT:   memref.store %p, %Q[%t] : memref<64xi32, #gpu.address_space<workgroup>>
