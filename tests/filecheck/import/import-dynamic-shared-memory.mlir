// RUN: gpu-alloc-opt %s -p import-gpu-allocs | filecheck %s
// RUN: gpu-alloc-opt %s -p import-gpu-allocs,import-gpu-allocs | filecheck %s
// RUN: gpu-alloc-opt %s -p import-gpu-allocs | mlir-opt-22 > /dev/null

// gpu.dynamic_shared_memory and its views are left as written (the kernel lays those
// bytes out itself), also after a second run.
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %tx = gpu.thread_id x
    %raw = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %v = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %out[%tx] : memref<64xf32>
    memref.store %x, %v[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// CHECK-NOT:  gpu_alloc.alloc
// CHECK:      %raw = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: %v = memref.view %raw[%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT:  memory_space_cast
