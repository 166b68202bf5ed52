// sim-launch: --grid 2 --block 64
// The dialect's own allocations in MLIR's spellings, beside MLIR's: heap Funcs %h and %g
// in #gpu.address_space<global> (fused into one heap backing, lowered to views of the
// kernel's heap argument, `1 : i32`), a shared %s in `3 : i32` and a workgroup
// memref.alloc %w (fused into one backing spelled `3 : i32`, %w's view cast back).
// Block b, thread t, r = 63 - t: h[t] = in[64 b + t]; s[t] = 2 h[t]; after a barrier
// g[t] = h[r] + s[r]; w[t] = g[t]; after a barrier out[64 b + t] = w[r] = 3 in[64 b + t].
gpu.module @spellings {
  gpu.func @spellings(%in: memref<128xf32>, %out: memref<128xf32>) kernel {
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x
    %bid = gpu.block_id x
    %base = arith.muli %bid, %c64 : index
    %i = arith.addi %base, %t : index
    %r = arith.subi %c63, %t : index
    %h = gpu_alloc.alloc "h" : memref<64xf32, #gpu.address_space<global>>
    %s = gpu_alloc.alloc "s" : memref<64xf32, 3 : i32>
    %x = memref.load %in[%i] : memref<128xf32>
    memref.store %x, %h[%t] : memref<64xf32, #gpu.address_space<global>>
    %x2 = arith.addf %x, %x : f32
    memref.store %x2, %s[%t] : memref<64xf32, 3 : i32>
    gpu.barrier
    %g = gpu_alloc.alloc "g" : memref<64xf32, #gpu.address_space<global>>
    %w = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %hr = memref.load %h[%r] : memref<64xf32, #gpu.address_space<global>>
    %sr = memref.load %s[%r] : memref<64xf32, 3 : i32>
    %sum = arith.addf %hr, %sr : f32
    memref.store %sum, %g[%t] : memref<64xf32, #gpu.address_space<global>>
    %gt = memref.load %g[%t] : memref<64xf32, #gpu.address_space<global>>
    memref.store %gt, %w[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %w[%r] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%i] : memref<128xf32>
    gpu.return
  }
}
