// REQUIRES: mlir-opt-22
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs' | filecheck %s --check-prefix IMPORT
// RUN: gpu-alloc-opt %s -p 'fuse-gpu-allocs' 2>&1 >/dev/null | filecheck %s --check-prefix UNOWNED
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs{report=true}' 2>&1 >/dev/null | filecheck %s --check-prefix REPORT
// RUN: gpu-alloc-opt %s -p 'import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs' | mlir-opt-22 --gpu-kernel-outlining --symbol-dce | filecheck %s --check-prefix OUTLINED

// A gpu.launch with workgroup and private attributions, as MLIR writes them: the
// attributions are read, become named allocations, and %w and %w2 (used on either side
// of a barrier) share one 256-byte backing.
func.func @f(%n: index, %buf: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) workgroup(%w : memref<64xf32, #gpu.address_space<workgroup>>, %w2 : memref<64xf32, #gpu.address_space<workgroup>>) private(%p : memref<4xf32, #gpu.address_space<private>>) {
    %x = memref.load %buf[%tx] : memref<64xf32>
    memref.store %x, %w[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %w[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %p[%c0] : memref<4xf32, #gpu.address_space<private>>
    gpu.barrier
    memref.store %y, %w2[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %z = memref.load %w2[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %z, %buf[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// IMPORT:      "gpu.launch"
// IMPORT-NEXT: ^bb0(%bx: index, %by: index, %bz: index, %tx: index, %ty: index, %tz: index, %gx: index, %gy: index, %gz: index, %sx: index, %sy: index, %sz: index):
// IMPORT-NEXT:   %w = gpu_alloc.alloc "w" : memref<64xf32, #gpu.address_space<workgroup>>
// IMPORT-NEXT:   %w2 = gpu_alloc.alloc "w2" : memref<64xf32, #gpu.address_space<workgroup>>
// IMPORT-NEXT:   %p = gpu_alloc.alloc "p" : memref<4xf32, #gpu.address_space<private>>
// IMPORT-NOT:    workgroup_attributions

// Without import-gpu-allocs, fuse says what it leaves alone.
// UNOWNED: fuse-gpu-allocs: remark: 'gpu.launch in f' has workgroup memory that fuse-gpu-allocs does not own and leaves as it is (workgroup attribution %w, workgroup attribution %w2); run import-gpu-allocs first

// REPORT:      kernel gpu.launch in f: 3 barrier stage(s)
// REPORT:        shared backing 'shared_alloc': unfused 512 B, fused 256 B

// OUTLINED:      gpu.func @f_kernel
// OUTLINED:        memref.alloca() {{.*}}: memref<4xf32, #gpu.address_space<private>>
// OUTLINED:        memref.get_global @f__shared_alloc : memref<256xi8, #gpu.address_space<workgroup>>
// OUTLINED:      memref.global "private" @f__shared_alloc : memref<256xi8, #gpu.address_space<workgroup>> = uninitialized {alignment = 16 : i64, gpu_alloc.layout = [{bytes = 256 : i64, name = "w", offset = 0 : i64, stages = array<i64: 0, 1>}, {bytes = 256 : i64, name = "w2", offset = 0 : i64, stages = array<i64: 2, 2>}]}
