// REQUIRES: mlir-opt-22
// RUN: gpu-alloc-opt %S/inputs/launch_dynamic.mlir -p import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs | filecheck %s
// RUN: gpu-alloc-opt %S/inputs/launch_dynamic.mlir -p import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs | mlir-opt-22 --gpu-kernel-outlining --symbol-dce | filecheck %s --check-prefix OUTLINED
// RUN: gpu-alloc-opt %S/../import/launch-bodies.mlir -p import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs | mlir-opt-22 --gpu-kernel-outlining --symbol-dce --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | filecheck %s --check-prefix PTX

// A launch body's dynamically sized backing is the block's dynamic shared memory: its
// byte size (the 256 B tile, then 4 * (%sx + %n) bytes) is computed before the launch,
// the block size argument %sx replaced by the launch's operand %c64.
// CHECK:      func.func @host(%n: index, %out: memref<?xf32>)
// CHECK:        %c256 = arith.constant 256 : index
// CHECK:        %m = arith.addi %c64, %n : index
// CHECK-NEXT:   %[[BYTES:.*]] = arith.muli %c4, %m : index
// CHECK-NEXT:   %[[TOTAL:.*]] = arith.addi %{{.*}}, %[[BYTES]] : index
// CHECK:        %[[SIZE:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK-NEXT:   "gpu.launch"(%c1, %c1, %c1, %c64, %c1, %c1, %[[SIZE]]) <{operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1>}>
// The record fusion wrote names the static Func (the dynamic one has no fixed bytes).
// CHECK:        %shared_alloc = "gpu.dynamic_shared_memory"() {gpu_alloc.layout = [{name = "tile", offset = 0 : i64, bytes = 256 : i64, stages = array<i64: 1, 1>}]} : () -> memref<?xi8, #gpu.address_space<workgroup>>
// CHECK:        %dyn = memref.view
// CHECK-SAME:     to memref<?xf32, #gpu.address_space<workgroup>>
// CHECK:        %tile = memref.view

// IREE-style workgroup code keeps IREE's input form, a workgroup memref.alloc (the two
// buffers share it across the barrier); a device function gets a space-3 global.
// CHECK:      func.func @workgroup_code
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %shared_alloc = memref.alloc() {alignment = 16 : i64, gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 64 : i64, stages = array<i64: 0, 0>}, {name = "b", offset = 0 : i64, bytes = 64 : i64, stages = array<i64: 1, 1>}]} : memref<64xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:   %a = memref.view %shared_alloc[%c0][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK-NEXT:   %b = memref.view %shared_alloc[%c0][] : memref<64xi8, #gpu.address_space<workgroup>> to memref<16xf32, #gpu.address_space<workgroup>>
// CHECK:      "memref.global"() <{sym_name = "device__a", type = memref<16xf32, #gpu.address_space<workgroup>>, initial_value, sym_visibility = "private", alignment = 16 : i64}> {gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 64 : i64, stages = array<i64: 0, 0>}]}
// CHECK:      func.func @device
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %cst = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:   %a = memref.get_global @device__a
// CHECK-NOT:  gpu_alloc.

// MLIR outlines the launch: the kernel reads the dynamic shared memory its launch sizes.
// OUTLINED:      gpu.launch_func  @host_kernel::@host_kernel {{.*}} dynamic_shared_memory_size
// OUTLINED:      gpu.func @host_kernel
// OUTLINED:        gpu.dynamic_shared_memory {gpu_alloc.layout = [{bytes = 256 : i64, name = "tile", offset = 0 : i64, stages = array<i64: 1, 1>}]} : memref<?xi8, #gpu.address_space<workgroup>>

// A static backing is a global outlining clones into the kernel's module with its
// alignment (symbol-dce drops the host's unused copy): a 16-aligned .shared array.
// PTX:     gpu.binary @host_kernel
// PTX-SAME: .shared .align 16 .b8 host__shared_alloc[256];
