// RUN: gpu-alloc-opt %s -p import-gpu-allocs 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix REMARK < %t.err

// A workgroup memref.global read by one kernel becomes that kernel's allocation (named
// after the symbol) and the global goes; one shared by two kernels stays, with a remark.
module attributes {gpu.container_module} {
  gpu.module @m {
    memref.global "private" @tile : memref<16xf32, #gpu.address_space<workgroup>>
    memref.global "private" @shared_by_two : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.func @k(%out: memref<16xf32>) kernel {
      %tx = gpu.thread_id x
      %t = memref.get_global @tile : memref<16xf32, #gpu.address_space<workgroup>>
      %v = memref.load %out[%tx] : memref<16xf32>
      memref.store %v, %t[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
      %s = memref.get_global @shared_by_two : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
    gpu.func @other() kernel {
      %s = memref.get_global @shared_by_two : memref<4xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}

// CHECK:      "memref.global"() <{sym_visibility = "private", sym_name = "shared_by_two", type = memref<4xf32, #gpu.address_space<workgroup>>, initial_value}> : () -> ()
// CHECK-NOT:  sym_name = "tile"
// CHECK:      ^bb0(%out: memref<16xf32>):
// CHECK-NEXT:   %tile = gpu_alloc.alloc "tile" : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:        memref.store %v, %tile[%tx] : memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:        %s = memref.get_global @shared_by_two : memref<4xf32, #gpu.address_space<workgroup>>

// REMARK: import-gpu-allocs: remark: workgroup global @shared_by_two stays as it is: it is used by more than one kernel or function
