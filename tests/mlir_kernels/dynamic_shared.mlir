// sim-launch: --grid 2 --block 64
// A kernel that lays out the block's dynamic shared memory itself, and the host function
// that launches it with 256 bytes of it (what the simulator gives each block). Block b,
// thread t: v[t] = in[64 b + t]; after a barrier, out[64 b + t] = v[63 - t]. The
// passes leave those bytes alone (fuse-gpu-allocs says so).
module attributes {gpu.container_module} {
  func.func @host(%in: memref<128xf32>, %out: memref<128xf32>) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c64 = arith.constant 64 : index
    %bytes = arith.constant 256 : i32
    gpu.launch_func @dyn::@dynamic_shared blocks in (%c2, %c1, %c1) threads in (%c64, %c1, %c1)
        dynamic_shared_memory_size %bytes args(%in : memref<128xf32>, %out : memref<128xf32>)
    return
  }
  gpu.module @dyn {
    gpu.func @dynamic_shared(%in: memref<128xf32>, %out: memref<128xf32>) kernel {
      %c0 = arith.constant 0 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %t = gpu.thread_id x
      %bid = gpu.block_id x
      %base = arith.muli %bid, %c64 : index
      %i = arith.addi %base, %t : index
      %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
      %x = memref.load %in[%i] : memref<128xf32>
      memref.store %x, %v[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c63, %t : index
      %y = memref.load %v[%r] : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %y, %out[%i] : memref<128xf32>
      gpu.return
    }
  }
}
