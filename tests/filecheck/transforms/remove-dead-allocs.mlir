// RUN: xdsl-opt %s -p remove-dead-allocs --split-input-file | filecheck %s

// Halide's failing pattern (reference §4.2): the backing is named only by the
// offset_pointers of live aliases. It must stay, with every alias that is read.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xi32>):
      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<884xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %0 = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f2 = gpu_alloc.alias "f2" %0 : !gpu_alloc.ptr<3 : i32> -> memref<10x10xi32, 3 : i32>
      %c400 = arith.constant 400 : index
      %1 = gpu_alloc.offset_pointer %shared_alloc[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %f1 = gpu_alloc.alias "f1" %1 : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = arith.constant 7 : i32
      memref.store %v, %f1[%t, %t] : memref<11x11xi32, 3 : i32>
      %a = memref.load %f1[%t, %t] : memref<11x11xi32, 3 : i32>
      memref.store %a, %f2[%t, %t] : memref<10x10xi32, 3 : i32>
      %b = memref.load %f2[%t, %t] : memref<10x10xi32, 3 : i32>
      memref.store %b, %out[%t] : memref<4xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%out: memref<4xi32>):
// CHECK-NEXT:   %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<884xi8, 3 : i32>
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %0 = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f2 = gpu_alloc.alias "f2" %0 : !gpu_alloc.ptr<3 : i32> -> memref<10x10xi32, 3 : i32>
// CHECK-NEXT:   %c400 = arith.constant 400 : index
// CHECK-NEXT:   %1 = gpu_alloc.offset_pointer %shared_alloc[%c400] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %f1 = gpu_alloc.alias "f1" %1 : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
// CHECK-NEXT:   %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %v = arith.constant 7 : i32
// CHECK-NEXT:   memref.store %v, %f1[%t, %t] : memref<11x11xi32, 3 : i32>
// CHECK-NEXT:   %a = memref.load %f1[%t, %t] : memref<11x11xi32, 3 : i32>
// CHECK-NEXT:   memref.store %a, %f2[%t, %t] : memref<10x10xi32, 3 : i32>
// CHECK-NEXT:   %b = memref.load %f2[%t, %t] : memref<10x10xi32, 3 : i32>
// CHECK-NEXT:   memref.store %b, %out[%t] : memref<4xi32>
// CHECK-NEXT:   "gpu.return"() : () -> ()

// -----

// A write-only Func goes with its stores, its dealloc and the values only they used;
// a Func that is read stays.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xf32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %w = gpu_alloc.alloc "write_only" : memref<32xf32, 3 : i32>
      %r = gpu_alloc.alloc "read" : memref<32xf32, 3 : i32>
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      memref.store %two, %w[%t] : memref<32xf32, 3 : i32>
      memref.store %one, %r[%t] : memref<32xf32, 3 : i32>
      %x = memref.load %r[%t] : memref<32xf32, 3 : i32>
      memref.store %x, %out[%t] : memref<4xf32>
      gpu_alloc.dealloc %w : memref<32xf32, 3 : i32>
      gpu_alloc.dealloc %r : memref<32xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%out: memref<4xf32>):
// CHECK-NEXT:   %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %r = gpu_alloc.alloc "read" : memref<32xf32, 3 : i32>
// CHECK-NEXT:   %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:   memref.store %one, %r[%t] : memref<32xf32, 3 : i32>
// CHECK-NEXT:   %x = memref.load %r[%t] : memref<32xf32, 3 : i32>
// CHECK-NEXT:   memref.store %x, %out[%t] : memref<4xf32>
// CHECK-NEXT:   gpu_alloc.dealloc %r : memref<32xf32, 3 : i32>
// CHECK-NEXT:   "gpu.return"() : () -> ()

// -----

// An alias that is never used is removed with its pointer; the backing stays for the
// alias that is read ("a dead alias does not keep its backing alive" is the next case).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xi32>):
      %shared_alloc = gpu_alloc.alloc "shared_alloc" : memref<64xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %c32 = arith.constant 32 : index
      %p0 = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %unused = gpu_alloc.alias "unused" %p0 : !gpu_alloc.ptr<3 : i32> -> memref<8xi32, 3 : i32>
      %p1 = gpu_alloc.offset_pointer %shared_alloc[%c32] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %live = gpu_alloc.alias "live" %p1 : !gpu_alloc.ptr<3 : i32> -> memref<8xi32, 3 : i32>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = memref.load %live[%t] : memref<8xi32, 3 : i32>
      memref.store %x, %out[%t] : memref<4xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%out: memref<4xi32>):
// CHECK-NEXT:   %shared_alloc = gpu_alloc.alloc "shared_alloc" : memref<64xi8, 3 : i32>
// CHECK-NEXT:   %c32 = arith.constant 32 : index
// CHECK-NEXT:   %p1 = gpu_alloc.offset_pointer %shared_alloc[%c32] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT:   %live = gpu_alloc.alias "live" %p1 : !gpu_alloc.ptr<3 : i32> -> memref<8xi32, 3 : i32>
// CHECK-NEXT:   %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %x = memref.load %live[%t] : memref<8xi32, 3 : i32>
// CHECK-NEXT:   memref.store %x, %out[%t] : memref<4xi32>
// CHECK-NEXT:   "gpu.return"() : () -> ()

// -----

// A removal chain in a fused heap backing: h2 is written only, so its stores go; then
// the loads of h1 that fed them go, h1 is write-only and goes; then the backing has no
// alias left and goes, with the offset arithmetic. (xDSL declares no effects for the
// gpu id ops, so they stay: removing them is `dce`'s business, not this pass's.)
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<128xf32>) -> (), kernel}> ({
    ^bb0(%in: memref<128xf32>):
      %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %global_alloc = gpu_alloc.alloc "global_alloc" backing align 16 : memref<1024xi8, 1 : i32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %p1 = gpu_alloc.offset_pointer %global_alloc[%c0] : memref<1024xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
      %h1 = gpu_alloc.alias "h1" %p1 : !gpu_alloc.ptr<1 : i32> -> memref<128xf32, 1 : i32>
      %c512 = arith.constant 512 : index
      %p2 = gpu_alloc.offset_pointer %global_alloc[%c512] : memref<1024xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
      %h2 = gpu_alloc.alias "h2" %p2 : !gpu_alloc.ptr<1 : i32> -> memref<128xf32, 1 : i32>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %v = memref.load %in[%t] : memref<128xf32>
      memref.store %v, %h1[%t] : memref<128xf32, 1 : i32>
      "gpu.barrier"() : () -> ()
      %a = memref.load %h1[%t] : memref<128xf32, 1 : i32>
      %b = arith.addf %a, %a : f32
      memref.store %b, %h2[%t] : memref<128xf32, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%in: memref<128xf32>):
// CHECK-NEXT:   %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   "gpu.barrier"() : () -> ()
// CHECK-NEXT:   "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "k"} : () -> ()

// -----

// Escapes keep an allocation alive even with no load: a call, a launch argument
// (through a view), and a pointer used by something other than an alias.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    func.func private @consume(memref<16xf32, 5 : i32>) -> ()
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %r = gpu_alloc.alloc "passed_to_call" : memref<16xf32, 5 : i32>
      func.call @consume(%r) : (memref<16xf32, 5 : i32>) -> ()
      %b = gpu_alloc.alloc "pointer_escapes" : memref<64xi8, 3 : i32>
      %c0 = arith.constant 0 : index
      %p = gpu_alloc.offset_pointer %b[%c0] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      "test.op"(%p) : (!gpu_alloc.ptr<3 : i32>) -> ()
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @host(%n: index) {
    %c1 = arith.constant 1 : index
    %h = gpu_alloc.alloc "launched" : memref<256xf32, 1 : i32>
    %v = "memref.cast"(%h) : (memref<256xf32, 1 : i32>) -> memref<?xf32, 1 : i32>
    "gpu.launch_func"(%c1, %c1, %c1, %c1, %c1, %c1, %v) <{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, memref<?xf32, 1 : i32>) -> ()
    func.return
  }
}

// CHECK:      %r = gpu_alloc.alloc "passed_to_call" : memref<16xf32, 5 : i32>
// CHECK-NEXT: func.call @consume(%r) : (memref<16xf32, 5 : i32>) -> ()
// CHECK-NEXT: %b = gpu_alloc.alloc "pointer_escapes" : memref<64xi8, 3 : i32>
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %p = gpu_alloc.offset_pointer %b[%c0] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
// CHECK-NEXT: "test.op"(%p) : (!gpu_alloc.ptr<3 : i32>) -> ()
// CHECK:      %h = gpu_alloc.alloc "launched" : memref<256xf32, 1 : i32>
// CHECK-NEXT: %v = "memref.cast"(%h) : (memref<256xf32, 1 : i32>) -> memref<?xf32, 1 : i32>
// CHECK-NEXT: "gpu.launch_func"

// -----

// Reads through a view keep the allocation; writes through a view do not.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xf32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %one = arith.constant 1.0 : f32
      %read = gpu_alloc.alloc "read_through_view" : memref<8x8xf32, 3 : i32>
      %rv = memref.subview %read[0, 0] [1, 8] [1, 1] : memref<8x8xf32, 3 : i32> to memref<8xf32, strided<[1]>, 3 : i32>
      %x = memref.load %rv[%t] : memref<8xf32, strided<[1]>, 3 : i32>
      memref.store %x, %out[%t] : memref<4xf32>
      %written = gpu_alloc.alloc "written_through_view" : memref<8x8xf32, 3 : i32>
      %wv = memref.subview %written[0, 0] [1, 8] [1, 1] : memref<8x8xf32, 3 : i32> to memref<8xf32, strided<[1]>, 3 : i32>
      memref.store %one, %wv[%t] : memref<8xf32, strided<[1]>, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      ^bb0(%out: memref<4xf32>):
// CHECK-NEXT:   %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT:   %read = gpu_alloc.alloc "read_through_view" : memref<8x8xf32, 3 : i32>
// CHECK-NEXT:   %rv = memref.subview %read[0, 0] [1, 8] [1, 1] : memref<8x8xf32, 3 : i32> to memref<8xf32, strided<[1]>, 3 : i32>
// CHECK-NEXT:   %x = memref.load %rv[%t] : memref<8xf32, strided<[1]>, 3 : i32>
// CHECK-NEXT:   memref.store %x, %out[%t] : memref<4xf32>
// CHECK-NEXT:   "gpu.return"() : () -> ()
