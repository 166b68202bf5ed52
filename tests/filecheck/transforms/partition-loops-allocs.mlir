// RUN: xdsl-opt %s -p partition-loops --split-input-file | filecheck %s

// The allocation rule (reference §4.3): a loop whose body makes a heap alias from
// a block offset computed just before it. Every part is a whole copy of the body:
// the offset is computed before its offset_pointer, the alias keeps its dealloc,
// and nothing is sunk into or hoisted out of the body. The bound %n is a kernel
// argument, the same for every thread, so the loop may be split despite its
// barrier.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, index) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c512 = arith.constant 512 : index
      %per_block = arith.constant 1024 : index
      %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
      %total = arith.muli %per_block, %gx : index
      %global_alloc = gpu_alloc.alloc "global_alloc"(%total) backing align 16 : memref<?xi8, 1 : i32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      scf.for %i = %c0 to %n step %c1 {
        %slice = arith.muli %bx, %per_block : index
        %off = arith.addi %slice, %c512 : index
        %p = gpu_alloc.offset_pointer %global_alloc[%off] : memref<?xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
        %h = gpu_alloc.alias "h" %p : !gpu_alloc.ptr<1 : i32> -> memref<32xf32, 1 : i32>
        %first = arith.cmpi slt, %i, %c1 : index
        %v = scf.if %first -> (f32) {
          %z = arith.constant 0.0 : f32
          scf.yield %z : f32
        } else {
          %o = arith.constant 1.0 : f32
          scf.yield %o : f32
        }
        memref.store %v, %h[%t] : memref<32xf32, 1 : i32>
        "gpu.barrier"() : () -> ()
        %x = memref.load %h[%t] : memref<32xf32, 1 : i32>
        memref.store %x, %out[%i] : memref<?xf32>
        gpu_alloc.dealloc %h : memref<32xf32, 1 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c512 = arith.constant 512 : index
// CHECK-NEXT: %per_block = arith.constant 1024 : index
// CHECK-NEXT: %gx = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %total = arith.muli %per_block, %gx : index
// CHECK-NEXT: %global_alloc = gpu_alloc.alloc "global_alloc"(%total) backing align 16 : memref<?xi8, 1 : i32>
// CHECK-NEXT: %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %0 = arith.maxsi %c0, %n : index
// CHECK-NEXT: %1 = arith.minsi %0, %c1 : index
// CHECK-NEXT: %2 = arith.maxsi %c0, %1 : index
// CHECK-NEXT: scf.for %i = %c0 to %2 step %c1 {
// CHECK-NEXT: %slice = arith.muli %bx, %per_block : index
// CHECK-NEXT: %off = arith.addi %slice, %c512 : index
// CHECK-NEXT: %p = gpu_alloc.offset_pointer %global_alloc[%off] : memref<?xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
// CHECK-NEXT: %h = gpu_alloc.alias "h" %p : !gpu_alloc.ptr<1 : i32> -> memref<32xf32, 1 : i32>
// CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %z, %h[%t] : memref<32xf32, 1 : i32>
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %x = memref.load %h[%t] : memref<32xf32, 1 : i32>
// CHECK-NEXT: memref.store %x, %out[%i] : memref<?xf32>
// CHECK-NEXT: gpu_alloc.dealloc %h : memref<32xf32, 1 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %i_1 = %2 to %n step %c1 {
// CHECK-NEXT: %slice_1 = arith.muli %bx, %per_block : index
// CHECK-NEXT: %off_1 = arith.addi %slice_1, %c512 : index
// CHECK-NEXT: %p_1 = gpu_alloc.offset_pointer %global_alloc[%off_1] : memref<?xi8, 1 : i32> -> !gpu_alloc.ptr<1 : i32>
// CHECK-NEXT: %h_1 = gpu_alloc.alias "h" %p_1 : !gpu_alloc.ptr<1 : i32> -> memref<32xf32, 1 : i32>
// CHECK-NEXT: %o = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: memref.store %o, %h_1[%t] : memref<32xf32, 1 : i32>
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %x_1 = memref.load %h_1[%t] : memref<32xf32, 1 : i32>
// CHECK-NEXT: memref.store %x_1, %out[%i_1] : memref<?xf32>
// CHECK-NEXT: gpu_alloc.dealloc %h_1 : memref<32xf32, 1 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()

// -----

// A loop with a barrier whose test depends on the thread id is left alone:
// splitting it would send threads to different barrier ops.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<?xf32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c8 = arith.constant 8 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %s = gpu_alloc.alloc "s" : memref<8xf32, 3 : i32>
      scf.for %i = %c0 to %c8 step %c1 {
        %mine = arith.cmpi slt, %i, %t : index
        scf.if %mine {
          %z = arith.constant 0.0 : f32
          memref.store %z, %s[%i] : memref<8xf32, 3 : i32>
        }
        "gpu.barrier"() : () -> ()
        %x = memref.load %s[%i] : memref<8xf32, 3 : i32>
        memref.store %x, %out[%i] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      %s = gpu_alloc.alloc "s" : memref<8xf32, 3 : i32>
// CHECK-NEXT: scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT: %mine = arith.cmpi slt, %i, %t : index
// CHECK-NEXT: scf.if %mine {
// CHECK-NEXT: %z = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: memref.store %z, %s[%i] : memref<8xf32, 3 : i32>
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.barrier"() : () -> ()
// CHECK-NEXT: %x = memref.load %s[%i] : memref<8xf32, 3 : i32>
// CHECK-NEXT: memref.store %x, %out[%i] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()

// -----

// A loop that yields an allocation made in its body is left alone: its storage
// outlives the loop, so its copies would not be self-contained.
func.func @yields_storage(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %first = gpu_alloc.alloc "buf" : memref<4xf32, 5 : i32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %first) -> (memref<4xf32, 5 : i32>) {
    %edge = arith.cmpi slt, %i, %c1 : index
    %next = gpu_alloc.alloc "buf" : memref<4xf32, 5 : i32>
    %keep = arith.select %edge, %cur, %next : memref<4xf32, 5 : i32>
    scf.yield %next : memref<4xf32, 5 : i32>
  }
  %v = memref.load %last[%c0] : memref<4xf32, 5 : i32>
  func.return
}

// CHECK:      %last = scf.for %i = %c0 to %n step %c1 iter_args(%cur = %first) -> (memref<4xf32, 5 : i32>) {
// CHECK-NEXT:   %edge = arith.cmpi slt, %i, %c1 : index
