// RUN: xdsl-opt %s -p lower-gpu-allocs --split-input-file | filecheck %s

// A fused static shared backing becomes one 16-byte aligned global named after the
// kernel and the backing; its views now read the global.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<884xi8, 3 : i32>
      %c400 = arith.constant 400 : index
      %f1 = memref.view %shared_alloc[%c400][] : memref<884xi8, 3 : i32> to memref<11x11xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "stencil"} : () -> ()
  }) : () -> ()
}

// CHECK:      "gpu.module"() <{sym_name = "m"}> ({
// CHECK-NEXT:   "memref.global"() <{sym_name = "stencil__shared_alloc", type = memref<884xi8, 3 : i32>, initial_value, sym_visibility = "private", alignment = 16 : i64}> : () -> ()
// CHECK-NEXT:   "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:     %shared_alloc = memref.get_global @stencil__shared_alloc : memref<884xi8, 3 : i32>
// CHECK-NEXT:     %c400 = arith.constant 400 : index
// CHECK-NEXT:     %f1 = memref.view %shared_alloc[%c400][] : memref<884xi8, 3 : i32> to memref<11x11xi32, 3 : i32>
// CHECK-NEXT:     "gpu.return"() : () -> ()
// CHECK-NEXT:   }) {sym_name = "stencil", gpu.kernel} : () -> ()

// -----


// Unfused shared allocations: one global each, even with the same name in two kernels.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %f = gpu_alloc.alloc "f" : memref<10xf32, 3 : i32>
      gpu_alloc.dealloc %f : memref<10xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "a"} : () -> ()
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %f = gpu_alloc.alloc "f" align 32 : memref<3xi8, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "b"} : () -> ()
  }) : () -> ()
}

// CHECK:      "memref.global"() <{sym_name = "a__f", type = memref<10xf32, 3 : i32>, initial_value, sym_visibility = "private", alignment = 16 : i64}> {gpu_alloc.layout = [{name = "f", offset = 0 : i64, bytes = 40 : i64, stages = array<i64: 0, 0>}]} : () -> ()
// CHECK-NEXT: "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:   %f = memref.get_global @a__f : memref<10xf32, 3 : i32>
// CHECK-NEXT:   "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "a", gpu.kernel} : () -> ()
// CHECK-NEXT: "memref.global"() <{sym_name = "b__f", type = memref<3xi8, 3 : i32>, initial_value, sym_visibility = "private", alignment = 32 : i64}> {gpu_alloc.layout = [{name = "f", offset = 0 : i64, bytes = 3 : i64, stages = array<i64: 0, 0>}]} : () -> ()
// CHECK-NEXT: "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:   %f = memref.get_global @b__f : memref<3xi8, 3 : i32>

// -----


// Private storage becomes an alloca at the kernel entry.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %r = gpu_alloc.alloc "r" : memref<4xf32, 5 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:   %r = memref.alloca() {gpu_alloc.layout = [{name = "r", offset = 0 : i64, bytes = 16 : i64, stages = array<i64: 0, 0>}]} : memref<4xf32, 5 : i32>
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   "gpu.return"() : () -> ()

// -----


// A per-block heap allocation of a kernel launched in the module: an extra argument,
// the block's slice at linear_block_id * 512, and a buffer of 512 * blocks around the
// launch (async gpu.alloc/dealloc in the default space, the only form MLIR 22 lowers,
// cast to space 1).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %h = gpu_alloc.alloc "h" : memref<128xf32, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @host() {
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    "gpu.launch_func"(%c8, %c1, %c1, %c8, %c1, %c1) <{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0>}> : (index, index, index, index, index, index) -> ()
    func.return
  }
}

// CHECK:      builtin.module attributes {gpu.container_module} {
// CHECK:      "gpu.func"() <{function_type = (memref<?xi8, 1 : i32>) -> (), kernel}> ({
// CHECK-NEXT: ^bb0(%[[HEAP:.*]]: memref<?xi8, 1 : i32>):
// CHECK-NEXT:   %[[SIZE:.*]] = arith.constant 512 : index
// CHECK-NEXT:   %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:   %[[BZ:.*]] = "gpu.block_id"() <{dimension = #gpu<dim z>}> : () -> index
// CHECK-NEXT:   %[[GX:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %[[GY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT:   %[[T0:.*]] = arith.muli %[[GY]], %[[BZ]] : index
// CHECK-NEXT:   %[[T1:.*]] = arith.addi %[[BY]], %[[T0]] : index
// CHECK-NEXT:   %[[T2:.*]] = arith.muli %[[GX]], %[[T1]] : index
// CHECK-NEXT:   %[[BID:.*]] = arith.addi %[[BX]], %[[T2]] : index
// CHECK-NEXT:   %heap_slice = arith.muli %[[BID]], %[[SIZE]] : index
// CHECK-NEXT:   %h = memref.view %[[HEAP]][%heap_slice][] : memref<?xi8, 1 : i32> to memref<128xf32, 1 : i32>
// CHECK-NEXT:   "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "k", gpu.kernel, gpu_alloc.heap_layout = [{name = "h", offset = 0 : i64, bytes = 512 : i64, stages = array<i64: 0, 0>}], gpu_alloc.heap_bytes_per_block = 512 : i64} : () -> ()
// CHECK:      func.func @host() {
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %c8 = arith.constant 8 : index
// CHECK-NEXT:   %[[PER_BLOCK:.*]] = arith.constant 512 : index
// CHECK-NEXT:   %[[X:.*]] = arith.muli %[[PER_BLOCK]], %c8 : index
// CHECK-NEXT:   %[[XY:.*]] = arith.muli %[[X]], %c1 : index
// CHECK-NEXT:   %[[TOTAL:.*]] = arith.muli %[[XY]], %c1 : index
// CHECK-NEXT:   %[[READY:.*]] = "gpu.wait"() : () -> !gpu.async.token
// CHECK-NEXT:   %[[BUFFER:.*]], %[[ALLOCATED:.*]] = "gpu.alloc"(%[[READY]], %[[TOTAL]]) <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (!gpu.async.token, index) -> (memref<?xi8>, !gpu.async.token)
// CHECK-NEXT:   "gpu.wait"(%[[ALLOCATED]]) : (!gpu.async.token) -> ()
// CHECK-NEXT:   %[[HEAP:.*]] = "memref.memory_space_cast"(%[[BUFFER]]) : (memref<?xi8>) -> memref<?xi8, 1 : i32>
// CHECK-NEXT:   "gpu.launch_func"(%c8, %c1, %c1, %c8, %c1, %c1, %[[HEAP]]) <{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<?xi8, 1 : i32>) -> ()
// CHECK-NEXT:   %[[DONE:.*]] = "gpu.wait"() : () -> !gpu.async.token
// CHECK-NEXT:   %[[FREED:.*]] = "gpu.dealloc"(%[[DONE]], %[[BUFFER]]) {operandSegmentSizes = array<i32: 1, 1>} : (!gpu.async.token, memref<?xi8>) -> !gpu.async.token
// CHECK-NEXT:   "gpu.wait"(%[[FREED]]) : (!gpu.async.token) -> ()
// CHECK-NEXT:   func.return
