// RUN: not gpu-alloc-opt %s -t ptx 2>&1 | filecheck %s --check-prefix PTX
// RUN: not gpu-alloc-opt %s -t amdgcn 2>&1 | filecheck %s --check-prefix AMD
// RUN: not gpu-alloc-opt %s -p fuse-gpu-allocs 2>&1 | filecheck %s --check-prefix FUSE

// Issue 30: a workgroup memref.global (spelled #gpu.address_space<workgroup>, MLIR input
// given straight to -t) read only by a callee was left out of every limit check: exit 0,
// then ptxas refused 80 KiB of static shared data (LLVM's AMDGPU target: "local memory
// (81920) exceeds limit (65536)"). 20480 x f32 = 81920 B, plus the kernel's own 'a'
// (64 x f32 = 256 B) for fuse. Each is a located error, with no output.
gpu.module @m {
  memref.global "private" @g : memref<20480xf32, #gpu.address_space<workgroup>>
  func.func @helper(%t: index) -> f32 {
    %m = memref.get_global @g : memref<20480xf32, #gpu.address_space<workgroup>>
    %z = arith.constant 1.0 : f32
    memref.store %z, %m[%t] : memref<20480xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c = arith.constant 20000 : index
    %v = memref.load %m[%c] : memref<20480xf32, #gpu.address_space<workgroup>>
    return %v : f32
  }
  gpu.func @k(%out: memref<64xf32>) kernel {
    %t = gpu.thread_id x
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<64xf32, 3 : i32>
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[%t] : memref<64xf32, 3 : i32>
    %v = func.call @helper(%t) : (index) -> f32
    %w = memref.load %a[%t] : memref<64xf32, 3 : i32>
    %x = arith.addf %v, %w : f32
    memref.store %x, %out[%t] : memref<64xf32>
    gpu.return
  }
}

// PTX: workgroup-global-in-callee-limit.mlir:21:3: error: kernel 'k' uses 82176 bytes of static shared memory; NVIDIA kernels may declare 49152 statically
// PTX-NOT: .entry
// AMD: workgroup-global-in-callee-limit.mlir:21:3: error: kernel 'k' uses 82176 bytes of static LDS memory; one block of gfx942 may use 65536
// FUSE: workgroup-global-in-callee-limit.mlir:21:3: error: kernel 'k' needs 82176 bytes of shared memory with the functions it calls (256 B its own; workgroup memref.globals 81920 B), over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'a' (256 B)
// FUSE-NOT: gpu.module
