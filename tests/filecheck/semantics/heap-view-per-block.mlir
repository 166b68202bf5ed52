// Issue 11 §1: a hand-written, unfused heap buffer read through a view is per-block
// scratch in every form. Thread 0 of each block stores the block id into %v[0]; after
// a barrier every thread copies %v[0] to out[block * 4 + thread]. The simulator on the
// original, on lower-gpu-allocs alone and on the whole pipeline must agree, with no
// race (exit 0): each block owns its own 64 bytes.
// RUN: gpu-alloc-sim %s --grid 2 --block 4 > %t.original
// RUN: gpu-alloc-opt %s -p lower-gpu-allocs > %t.lowered.mlir
// RUN: gpu-alloc-sim %t.lowered.mlir --grid 2 --block 4 > %t.lowered
// RUN: gpu-alloc-opt %s -p fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs > %t.pipeline.mlir
// RUN: gpu-alloc-sim %t.pipeline.mlir --grid 2 --block 4 > %t.pipeline
// RUN: diff %t.original %t.lowered
// RUN: diff %t.original %t.pipeline
// RUN: gpu-alloc-opt %s -p lower-gpu-allocs | filecheck %s --check-prefix LOWERED
// RUN: rm -rf %t.dir && mkdir %t.dir && gpu-alloc-sim %s --grid 2 --block 4 --out %t.dir > /dev/null
// RUN: python -c "import sys, numpy; a = numpy.load(sys.argv[1]); assert a.tolist() == [0] * 4 + [1] * 4, a" %t.dir/out.npy

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<8xi32>):
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %h = "gpu_alloc.alloc"() <{name = "h"}> : () -> memref<64xi8, 1 : i32>
      %v = memref.view %h[%c0][] : memref<64xi8, 1 : i32> to memref<16xi32, 1 : i32>
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %b = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %first = arith.cmpi eq, %t, %c0 : index
      scf.if %first {
        %bi = arith.index_cast %b : index to i32
        memref.store %bi, %v[%c0] : memref<16xi32, 1 : i32>
      }
      "gpu.barrier"() : () -> ()
      %r = memref.load %v[%c0] : memref<16xi32, 1 : i32>
      %base = arith.muli %b, %c4 : index
      %i = arith.addi %base, %t : index
      memref.store %r, %out[%i] : memref<8xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// lower-gpu-allocs alone: the buffer becomes the block's 64-byte slice of the heap
// argument, and the kernel carries the heap contract.
// LOWERED:      ^bb0(%out: memref<8xi32>, %{{.*}}: memref<?xi8, 1 : i32>):
// LOWERED:      %heap_slice = arith.muli %{{.*}}, %{{.*}} : index
// LOWERED-NEXT: %h = memref.view %{{.*}}[%heap_slice][] : memref<?xi8, 1 : i32> to memref<64xi8, 1 : i32>
// LOWERED:      gpu_alloc.heap_bytes_per_block = 64 : i64
