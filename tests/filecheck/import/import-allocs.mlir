// RUN: gpu-alloc-opt %s -p import-gpu-allocs | filecheck %s
// RUN: gpu-alloc-opt %s -p import-gpu-allocs | gpu-alloc-opt -p import-gpu-allocs | filecheck %s

// Workgroup and private memref.alloc/alloca, in MLIR's and in integer spelling, become
// named gpu_alloc.allocs in place, of the type written (`3` stays `3 : i64`); sizes and
// alignment carry over; deallocs follow.
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {
    %tx = gpu.thread_id x
    %tile = memref.alloc() {alignment = 64 : i64} : memref<64xf32, #gpu.address_space<workgroup>>
    %dyn = memref.alloc(%n) : memref<?xf32, 3>
    %0 = memref.alloc() : memref<8xi32, #gpu.address_space<workgroup>>
    %1 = memref.alloca() : memref<4xf32, #gpu.address_space<private>>
    %v = memref.load %out[%tx] : memref<64xf32>
    memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %dyn[%tx] : memref<?xf32, 3>
    gpu.barrier
    %w = memref.load %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tx] : memref<64xf32>
    memref.dealloc %dyn : memref<?xf32, 3>
    gpu.return
  }
}

// CHECK:      "gpu.func"() <{function_type = (memref<64xf32>, index) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%out: memref<64xf32>, %n: index):
// CHECK-NEXT:   %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %tile = gpu_alloc.alloc "tile" align 64 : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:   %dyn = gpu_alloc.alloc "dyn"(%n) : memref<?xf32, 3 : i64>
// CHECK-NEXT:   %{{.*}} = gpu_alloc.alloc "smem0" : memref<8xi32, #gpu.address_space<workgroup>>
// CHECK-NEXT:   %{{.*}} = gpu_alloc.alloc "pmem0" : memref<4xf32, #gpu.address_space<private>>
// CHECK:        memref.store %v, %tile[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
// CHECK:        gpu_alloc.dealloc %dyn : memref<?xf32, 3 : i64>
// CHECK-NOT:  memref.alloc
