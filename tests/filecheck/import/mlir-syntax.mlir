// RUN: gpu-alloc-opt %s | filecheck %s
// RUN: gpu-alloc-opt %s | gpu-alloc-opt | filecheck %s
// RUN: gpu-alloc-opt %s | mlir-opt-22 | filecheck %s --check-prefix MLIR
// RUN: mlir-opt-22 %s --mlir-print-op-generic | gpu-alloc-opt | mlir-opt-22 | filecheck %s --check-prefix MLIR

// gpu-alloc-opt reads MLIR's custom syntax for GPU kernels and host code (what
// mlir-opt-22 prints), and what it prints (generic form) reads back in both tools.
module attributes {gpu.container_module} {
  memref.global "private" @lut : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]> {alignment = 16 : i64}
  gpu.module @kernels {
    gpu.func @k(%a: memref<64xf32> {llvm.noalias}, %n: index)
        workgroup(%w: memref<64xf32, #gpu.address_space<workgroup>>)
        private(%p: memref<2xf32, #gpu.address_space<private>>)
        kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>} {
      %tx = gpu.thread_id x
      %ty = gpu.thread_id y upper_bound 1
      %bx = gpu.block_id x
      %bd = gpu.block_dim x
      %gd = gpu.grid_dim z
      %lane = gpu.lane_id
      %dyn = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
      %v = memref.load %a[%tx] : memref<64xf32>
      memref.store %v, %w[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c = memref.cast %w : memref<64xf32, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
    gpu.func @device(%x: index) -> index {
      gpu.return %x : index
    }
  }
  func.func @main(%a: memref<64xf32>) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0 : i32
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1) dynamic_shared_memory_size %zero args(%a : memref<64xf32>, %c64 : index)
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1) {
      gpu.barrier
      gpu.terminator
    }
    %t = gpu.wait async
    %m, %t2 = gpu.alloc async [%t] (%c64) : memref<?xf32>
    %t3 = gpu.memcpy async [%t2] %m, %m : memref<?xf32>, memref<?xf32>
    %t4 = gpu.dealloc async [%t3] %m : memref<?xf32>
    gpu.wait [%t4]
    %g = memref.get_global @lut : memref<4xf32>
    memref.copy %g, %g : memref<4xf32> to memref<4xf32>
    return
  }
}

// CHECK:      "memref.global"() <{sym_visibility = "private", sym_name = "lut", type = memref<4xf32>, initial_value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>, alignment = 16 : i64}> : () -> ()
// CHECK:      ^bb0(%a: memref<64xf32>, %n: index, %w: memref<64xf32, #gpu.address_space<workgroup>>, %p: memref<2xf32, #gpu.address_space<private>>):
// CHECK:        %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> {upper_bound = 1 : index} : () -> index
// CHECK:        %dyn = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:        "gpu.barrier"() : () -> ()
// CHECK:      }) {{{.*}}workgroup_attributions = 1 : i64{{.*}}gpu.kernel} : () -> ()
// CHECK:      "gpu.launch_func"(%c1, %c1, %c1, %c64, %c1, %c1, %zero, %a, %c64) <{kernel = @kernels::@k

// MLIR:      gpu.func @k(%arg0: memref<64xf32> {llvm.noalias}, %arg1: index) workgroup(%arg2 : memref<64xf32, #gpu.address_space<workgroup>>) private(%arg3 : memref<2xf32, #gpu.address_space<private>>) kernel attributes {gpu.known_block_size = array<i32: 64, 1, 1>}
// MLIR:        gpu.thread_id  y upper_bound 1
// MLIR:        gpu.barrier
// MLIR:      gpu.launch_func  @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c64, %c1, %c1)  dynamic_shared_memory_size %c0_i32 args(%arg0 : memref<64xf32>, %c64 : index)
// MLIR:      gpu.launch blocks(
// MLIR:      gpu.memcpy async
