// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs' 2>&1 | filecheck %s --check-prefix FUSE
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{report=true}' 2>&1 >/dev/null | filecheck %s --check-prefix REPORT
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs' | filecheck %s --check-prefix LOWER

// A gpu.launch body is block-level code like a kernel: its arguments are MLIR's block
// ids, thread ids (%tx: thread-dependent), grid and block sizes (uniform), and values
// from above the launch (%n, %c4) are uniform too. %a and %b are used on either side of
// a barrier, so they share bytes: 512 -> 256 B. The loop's bounds come from above the
// launch, so the barrier in it is block-level and the stage map stays intact.
func.func @host(%n: index, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %cst = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %p = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    memref.store %cst, %a[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %a[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %p[%c1] : memref<4xf32, #gpu.address_space<private>>
    gpu.barrier
    %u = memref.load %p[%c1] : memref<4xf32, #gpu.address_space<private>>
    memref.store %u, %b[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    scf.for %i = %c1 to %c4 step %c1 {
      gpu.barrier
    }
    %w = memref.load %b[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// FUSE-NOT:  remark
// FUSE:      "gpu.launch"
// FUSE:      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 256 : i64, stages = array<i64: 0, 1>}, {name = "b", offset = 0 : i64, bytes = 256 : i64, stages = array<i64: 2, 3>}]} : memref<256xi8, #gpu.address_space<workgroup>>
// FUSE:      %a = gpu_alloc.alias "a"
// FUSE:      %b = gpu_alloc.alias "b"
// FUSE:      %p = gpu_alloc.alloc "p" : memref<4xf32, #gpu.address_space<private>>

// REPORT:      kernel gpu.launch in host: 4 barrier stage(s)
// REPORT-NEXT:   Func             space      bytes   offset  lifetime
// REPORT-NEXT:   a                shared       256        0  [0, 1]
// REPORT-NEXT:   b                shared       256        0  [2, 3]
// REPORT-NEXT:   shared backing 'shared_alloc': unfused 512 B, fused 256 B

// Lowered, the backing is a private space-3 global beside the host function, aligned to
// 16, read in the body (gpu-kernel-outlining clones it into the kernel's gpu.module);
// the private buffer is an alloca at the entry of the body.
// LOWER:      "memref.global"() <{sym_name = "host__shared_alloc", type = memref<256xi8, #gpu.address_space<workgroup>>, initial_value, sym_visibility = "private", alignment = 16 : i64}>
// LOWER:      func.func @host
// LOWER:      "gpu.launch"
// LOWER-NEXT: ^bb0(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
// LOWER-NEXT:   %p = memref.alloca() {{.*}}: memref<4xf32, #gpu.address_space<private>>
// LOWER:        %shared_alloc = memref.get_global @host__shared_alloc : memref<256xi8, #gpu.address_space<workgroup>>
// LOWER-NEXT:   %a = memref.view %shared_alloc[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// LOWER-NEXT:   %b = memref.view %shared_alloc[%c0][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// LOWER-NOT:  gpu_alloc
