// A kernel as MLIR writes it (mlir-opt-22's custom syntax, #gpu.address_space): a 32x32
// tile transpose of a 64x64 matrix, staged through three workgroup buffers: `tile`, a
// gpu.func workgroup attribution, and `flipped` and `result`, memref.allocs in workgroup
// memory; `acc` is a private attribution. Block 32x32 threads, grid 2x2.
// Barrier stages: tile [0, 1], flipped [1, 2], result [2, 3]: `result` may reuse the
// bytes of `tile`. Unfused 3 x 4096 = 12288 bytes; fused 8192 bytes.
//
//   gpu-alloc-opt -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases examples/mlir_transpose.mlir
gpu.module @transpose {
  gpu.func @transpose(%in: memref<64x64xf32>, %out: memref<64x64xf32>)
      workgroup(%tile: memref<32x32xf32, #gpu.address_space<workgroup>>)
      private(%acc: memref<1xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %tx = gpu.thread_id x
    %ty = gpu.thread_id y
    %bx = gpu.block_id x
    %by = gpu.block_id y
    %x0 = arith.muli %bx, %c32 : index
    %y0 = arith.muli %by, %c32 : index
    %gx = arith.addi %x0, %tx : index
    %gy = arith.addi %y0, %ty : index
    %v = memref.load %in[%gy, %gx] : memref<64x64xf32>
    memref.store %v, %tile[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %flipped = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
    %t = memref.load %tile[%tx, %ty] : memref<32x32xf32, #gpu.address_space<workgroup>>
    memref.store %t, %flipped[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %result = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
    %f = memref.load %flipped[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    %twice = arith.addf %f, %f : f32
    memref.store %twice, %acc[%c0] : memref<1xf32, #gpu.address_space<private>>
    %a = memref.load %acc[%c0] : memref<1xf32, #gpu.address_space<private>>
    memref.store %a, %result[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %r = memref.load %result[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    %ox = arith.addi %y0, %tx : index
    %oy = arith.addi %x0, %ty : index
    memref.store %r, %out[%oy, %ox] : memref<64x64xf32>
    gpu.return
  }
}
