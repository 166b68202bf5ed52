// RUN: gpu-alloc-opt --allow-unregistered-dialect %s -p import-gpu-allocs 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix REMARK < %t.err

// A buffer whose storage leaves the code (returned, stored as a value) stays a
// memref.alloc, with a remark saying why. One passed to an unregistered op (also through
// a view) or to a call is imported and lives for the whole kernel, with a remark.
gpu.module @m {
  func.func @callee(%b: memref<8xf32, #gpu.address_space<workgroup>>) {
    return
  }
  gpu.func @k() kernel {
    %to_vendor = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %viewed = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %called = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    %fine = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    "vendor.async_copy"(%to_vendor) : (memref<8xf32, #gpu.address_space<workgroup>>) -> ()
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

// CHECK: %to_vendor = gpu_alloc.alloc "to_vendor" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %viewed = gpu_alloc.alloc "viewed" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %called = gpu_alloc.alloc "called" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %fine = gpu_alloc.alloc "fine" : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK: %returned = memref.alloc() : memref<8xf32, 3 : i64>

// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %to_vendor is passed to an unregistered op ('vendor.async_copy'), so it lives for the whole kernel
// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %viewed is passed to an unregistered op ('test.use'), so it lives for the whole kernel
// REMARK-DAG: import-gpu-allocs: remark: in 'k': memref.alloc %called is passed to a call ('func.call'), so it lives for the whole kernel
// REMARK-DAG: import-gpu-allocs: remark: in 'device': memref.alloc %returned stays as it is: its storage is returned or yielded ('gpu.return')
