// RUN: xdsl-opt %s --split-input-file --verify-diagnostics -p 'fuse-gpu-allocs' | filecheck %s
// RUN: xdsl-opt %s --split-input-file --verify-diagnostics -p 'fuse-gpu-allocs{max-shared-bytes=100}' | filecheck %s --check-prefix=LIMIT
// User errors of fuse-gpu-allocs, each one line naming the allocation or kernel.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %a = "gpu_alloc.alloc"(%t) <{name = "a"}> : (index) -> memref<?xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: the size of allocation 'a' depends on the thread id ('gpu.thread_id'); a block-level allocation has one size for the whole block

// -----

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xindex>) -> (), kernel}> ({
    ^bb0(%m: memref<4xindex>):
      %c0 = arith.constant 0 : index
      %n = memref.load %m[%c0] : memref<4xindex>
      %a = "gpu_alloc.alloc"(%n) <{name = "a"}> : (index) -> memref<?xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: the size of allocation 'a' is computed by 'memref.load'; sizes must be computed from kernel arguments, constants and block/grid ids

// -----

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c4 = arith.constant 4 : index
      %lo = arith.cmpi ult, %t, %c4 : index
      scf.if %lo {
        %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<4xi32, 3 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: shared allocation 'a' is under thread-dependent control flow ('scf.if'); block-level allocations must be made by every thread of the block

// -----

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      scf.for %i = %c0 to %n step %c1 {
        %a = "gpu_alloc.alloc"(%i) <{name = "a"}> : (index) -> memref<?xi32, 1 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: the size of allocation 'a' depends on a loop variable or region argument; sizes must be computed from kernel arguments, constants and block/grid ids

// -----

// A 128x128 f32 tile is 64 KiB: over CUDA's 48 KiB default, which Halide only
// finds out at launch time (CUDA_ERROR_INVALID_VALUE).
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1.0 : f32
      %tile = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<128x128xf32, 3 : i32>
      %small = "gpu_alloc.alloc"() <{name = "small"}> : () -> memref<16xf32, 3 : i32>
      memref.store %v, %tile[%c0, %c0] : memref<128x128xf32, 3 : i32>
      memref.store %v, %small[%c0] : memref<16xf32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "too_big"} : () -> ()
  }) : () -> ()
}
// CHECK: kernel 'too_big' needs 65600 bytes of shared memory, over the limit of 49152 (what one block of ptx (any sm_XX) may use); largest: 'tile' (65536 B), 'small' (64 B)
// LIMIT: kernel 'too_big' needs 65600 bytes of shared memory, over the limit of 100 (max-shared-bytes); largest: 'tile' (65536 B), 'small' (64 B)
