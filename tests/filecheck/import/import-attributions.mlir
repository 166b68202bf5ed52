// RUN: gpu-alloc-opt %s -p import-gpu-allocs | filecheck %s

// Workgroup and private attributions of kernels and device functions become
// gpu_alloc.allocs at the entry, named after the argument; `llvm.align` carries over and
// the attributions leave the signature.
gpu.module @m {
  gpu.func @k(%out: memref<32xf32>)
      workgroup(%stage: memref<32xf32, #gpu.address_space<workgroup>> {llvm.align = 32 : i64},
                %flags: memref<4xi32, 3>)
      private(%acc: memref<2xf32, #gpu.address_space<private>>) kernel {
    %tx = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %v = memref.load %out[%tx] : memref<32xf32>
    memref.store %v, %stage[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %acc[%c0] : memref<2xf32, #gpu.address_space<private>>
    gpu.barrier
    gpu.return
  }
  gpu.func @device(%x: f32) workgroup(%scratch: memref<8xf32, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    memref.store %x, %scratch[%c0] : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}

// CHECK:      "gpu.func"() <{function_type = (memref<32xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%out: memref<32xf32>):
// CHECK-NEXT:   %stage = gpu_alloc.alloc "stage" align 32 : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:   %flags = gpu_alloc.alloc "flags" : memref<4xi32, 3 : i64>
// CHECK-NEXT:   %acc = gpu_alloc.alloc "acc" : memref<2xf32, #gpu.address_space<private>>
// CHECK:      }) {sym_name = "k", gpu.kernel} : () -> ()
// CHECK:      "gpu.func"() <{function_type = (f32) -> ()}> ({
// CHECK-NEXT: ^bb0(%x: f32):
// CHECK-NEXT:   %scratch = gpu_alloc.alloc "scratch" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:      }) {sym_name = "device"} : () -> ()
