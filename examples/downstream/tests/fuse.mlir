// RUN: %gpu-alloc-opt %s -p import-gpu-allocs,fuse-gpu-allocs | %filecheck %s

// Two 1 KiB tiles, `a` live in stages 0-1 and `b` in 2-3, share their bytes.
gpu.module @m {
  gpu.func @k(%in: memref<256xf32>, %out: memref<256xf32>) kernel {
    %c255 = arith.constant 255 : index
    %tx = gpu.thread_id x
    %rx = arith.subi %c255, %tx : index
    %a = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<256xf32, #gpu.address_space<workgroup>>
    %x = memref.load %in[%tx] : memref<256xf32>
    memref.store %x, %a[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %a[%rx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %z = arith.addf %y, %x : f32
    memref.store %z, %b[%tx] : memref<256xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %b[%rx] : memref<256xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tx] : memref<256xf32>
    gpu.return
  }
}
// CHECK:      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 1024 : i64, stages = array<i64: 0, 1>}, {name = "b", offset = 0 : i64, bytes = 1024 : i64, stages = array<i64: 2, 3>}]} : memref<1024xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT: %{{.*}} = gpu_alloc.offset_pointer %shared_alloc[%[[ZERO:.*]]] : memref<1024xi8, #gpu.address_space<workgroup>> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: %a = gpu_alloc.alias "a"
// CHECK-NEXT: %{{.*}} = gpu_alloc.offset_pointer %shared_alloc[%[[ZERO]]]
// CHECK-NEXT: %b = gpu_alloc.alias "b"
