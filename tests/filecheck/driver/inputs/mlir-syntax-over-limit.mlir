// Input of stock-xdsl-opt.mlir's MLIR runs: MLIR's custom syntax, 64 KiB of workgroup memory.
gpu.module @m {
  gpu.func @k(%out: memref<16384xf32>) kernel {
    %tx = gpu.thread_id x
    %tile = memref.alloc() : memref<16384xf32, #gpu.address_space<workgroup>>
    %v = memref.load %tile[%tx] : memref<16384xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<16384xf32>
    gpu.return
  }
}
