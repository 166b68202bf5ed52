// RUN: gpu-alloc-opt %s --split-input-file --allow-unregistered-dialect -p 'import-gpu-allocs,fuse-gpu-allocs{insert-barriers=never report=true}' 2>&1 >/dev/null | filecheck %s
// RUN: gpu-alloc-opt %s --split-input-file --allow-unregistered-dialect -p 'import-gpu-allocs,fuse-gpu-allocs,flatten-aliases' | filecheck %s --check-prefix IR

// A view's creation is not an access of its buffer: %X's subview is made at the start,
// but %X is first written through it in stage 2, after %Y's last read, so %X and %Y
// share bytes (512 -> 256 B).
gpu.module @m {
  gpu.func @views(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %X = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %Y = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %Xv = memref.subview %X[0] [64] [1] : memref<64xi32, #gpu.address_space<workgroup>> to memref<64xi32, strided<[1]>, #gpu.address_space<workgroup>>
    %ti = arith.index_cast %t : index to i32
    memref.store %ti, %Y[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %y = memref.load %Y[%c0] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %y, %Xv[%t] : memref<64xi32, strided<[1]>, #gpu.address_space<workgroup>>
    gpu.barrier
    %x = memref.load %Xv[%c0] : memref<64xi32, strided<[1]>, #gpu.address_space<workgroup>>
    memref.store %x, %out[%t] : memref<64xi32>
    gpu.return
  }
}

// CHECK:      kernel @views: 4 barrier stage(s)
// CHECK:      X {{.*}} 256 {{.*}} 0  [2, 3]
// CHECK-NEXT: Y {{.*}} 256 {{.*}} 0  [0, 1]
// CHECK:      shared backing 'shared_alloc': unfused 512 B, fused 256 B

// IR:      %[[X:.*]] = memref.view %shared_alloc[%{{.*}}][] : memref<256xi8, #gpu.address_space<workgroup>> to memref<64xi32, #gpu.address_space<workgroup>>
// IR:      memref.subview %[[X]][0] [64] [1]

// -----

// The same, already imported, with the view passed to an op the memory-effects table
// does not know: the view escapes, so %X lives for the whole kernel (512 B).
gpu.module @m {
  gpu.func @escapes(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %X = gpu_alloc.alloc "X" : memref<64xi32, 3 : i32>
    %Y = gpu_alloc.alloc "Y" : memref<64xi32, 3 : i32>
    %Xv = memref.subview %X[0] [64] [1] : memref<64xi32, 3 : i32> to memref<64xi32, strided<[1]>, 3 : i32>
    "test.opaque"(%Xv) : (memref<64xi32, strided<[1]>, 3 : i32>) -> ()
    %ti = arith.index_cast %t : index to i32
    memref.store %ti, %Y[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    %y = memref.load %Y[%c0] : memref<64xi32, 3 : i32>
    gpu.barrier
    memref.store %y, %Xv[%t] : memref<64xi32, strided<[1]>, 3 : i32>
    gpu.return
  }
}

// CHECK:      kernel @escapes: 3 barrier stage(s)
// CHECK:      X {{.*}} 256 {{.*}}  [0, 2]
// CHECK-NEXT: Y {{.*}} 256 {{.*}}  [0, 1]
// CHECK:      shared backing 'shared_alloc': unfused 512 B, fused 512 B
