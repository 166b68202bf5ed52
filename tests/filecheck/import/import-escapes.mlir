// RUN: gpu-alloc-opt --allow-unregistered-dialect %s -p import-gpu-allocs 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix REMARK < %t.err

// A buffer whose storage leaves what the pass can see stays a memref.alloc, with a
// remark saying why: passed to an unregistered op (also through a view), to a call, or
// returned. The others in the same function are imported.
gpu.module @m {
  func.func @callee(%b: memref<8xf32, #gpu.address_space<workgroup>>) {
    return
  }
  gpu.func @k() kernel {
    %to_nvgpu = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %viewed = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %called = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %fine = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    "nvgpu.device_async_copy"(%to_nvgpu) : (memref<8xf32, #gpu.address_space<workgroup>>) -> ()
    %sub = memref.subview %viewed[0] [4] [1] : memref<8xf32, #gpu.address_space<workgroup>> to memref<4xf32, #gpu.address_space<workgroup>>
    "test.use"(%sub) : (memref<4xf32, #gpu.address_space<workgroup>>) -> ()
    func.call @callee(%called) : (memref<8xf32, #gpu.address_space<workgroup>>) -> ()
    gpu.return
  }
  gpu.func @device() -> memref<8xf32, 3> {
    %returned = memref.alloc() : memref<8xf32, 3>
    gpu.return %returned : memref<8xf32, 3>
  }
}

// CHECK: %to_nvgpu = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %viewed = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %called = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %fine = gpu_alloc.alloc "fine" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %returned = memref.alloc() : memref<8xf32, 3 : i64>

// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %to_nvgpu stays as it is: its storage is passed to an unregistered op ('nvgpu.device_async_copy')
// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %viewed stays as it is: its storage is passed to an unregistered op ('test.use')
// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %called stays as it is: its storage is passed to a call ('func.call')
// REMARK-DAG: import-gpu-allocs: remark: in 'device': memref.alloc %returned stays as it is: its storage is returned or yielded ('gpu.return')
