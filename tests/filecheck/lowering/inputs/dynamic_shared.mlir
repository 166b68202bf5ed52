// A dynamic shared backing (n floats, n a kernel argument) and a private scratch
// array, with a host launch: the launch must set dynamic_shared_memory_size = n * 4.
builtin.module {
  "gpu.module"() <{sym_name = "dyn"}> ({
    "gpu.func"() <{function_type = (index, memref<?xf32>) -> (), kernel}> ({
    ^bb0(%n: index, %out: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %bytes = arith.muli %n, %c4 : index
      %shared_alloc = gpu_alloc.alloc "shared_alloc"(%bytes) backing align 16 : memref<?xi8, 3 : i32>
      %buf = memref.view %shared_alloc[%c0][%n] : memref<?xi8, 3 : i32> to memref<?xf32, 3 : i32>
      %p = gpu_alloc.alloc "p" align 8 : memref<4xf32, 5 : i32>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %tf0 = arith.index_cast %t : index to i32
      %tf = arith.sitofp %tf0 : i32 to f32
      memref.store %tf, %p[%c1] : memref<4xf32, 5 : i32>
      %x = memref.load %p[%c1] : memref<4xf32, 5 : i32>
      memref.store %x, %buf[%t] {alignment = 4 : i64} : memref<?xf32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %r = arith.subi %n, %c1 : index
      %rt = arith.subi %r, %t : index
      %y = memref.load %buf[%rt] {alignment = 4 : i64} : memref<?xf32, 3 : i32>
      memref.store %y, %out[%t] : memref<?xf32>
      gpu_alloc.dealloc %p : memref<4xf32, 5 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "reverse"} : () -> ()
  }) : () -> ()
  func.func @run(%n: index, %out: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    "gpu.launch_func"(%c1, %c1, %c1, %n, %c1, %c1, %n, %out) <{kernel = @dyn::@reverse, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0>}> : (index, index, index, index, index, index, index, memref<?xf32>) -> ()
    func.return
  }
}
