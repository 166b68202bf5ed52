// RUN: not gpu-alloc-opt %s -p fuse-gpu-allocs,lower-gpu-allocs 2>&1 | filecheck %s
// RUN: not gpu-alloc-opt %s -t ptx 2>&1 | filecheck %s

// Issue 30 item 8: the kernel's dynamic backing was placed at offset 0 of the block's
// dynamic shared memory although 'helper', which it calls, lays out
// gpu.dynamic_shared_memory itself from offset 0: the helper's store of 5.0 overwrote d
// (the simulator gave a different output). Refused at the allocation, with no output.
gpu.module @m {
  func.func @helper(%t: index) {
    %c0 = arith.constant 0 : index
    %dsm = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %v = memref.view %dsm[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %z = arith.constant 5.0 : f32
    memref.store %z, %v[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    return
  }
  func.func @middle(%t: index) {
    func.call @helper(%t) : (index) -> ()
    return
  }
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %d = "gpu_alloc.alloc"(%n) <{name = "d"}> : (index) -> memref<?xf32, 3 : i32>
    memref.store %one, %d[%t] : memref<?xf32, 3 : i32>
    gpu.barrier
    func.call @middle(%t) : (index) -> ()
    gpu.barrier
    %v = memref.load %d[%t] : memref<?xf32, 3 : i32>
    memref.store %v, %out[%t] : memref<64xf32>
    gpu.return
  }
}

// CHECK: dynamic-shared-memory-in-callee.mlir:[[# @LINE - 11]]:5: error: 'helper', which kernel 'k' calls, lays out gpu.dynamic_shared_memory itself (from offset 0), so 'd' cannot be placed in it too
// CHECK-NOT: gpu.module
// CHECK-NOT: .entry
