// RUN: xdsl-opt %s --split-input-file --verify-diagnostics -p lower-gpu-allocs | filecheck %s
// lower-gpu-allocs alone refuses what fuse-gpu-allocs refuses about block-level sizes
// (the same check, transforms/block_sizes.py): one size per block.

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
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c4 = arith.constant 4 : index
      %n = arith.muli %t, %c4 : index
      %h = "gpu_alloc.alloc"(%n) <{name = "h"}> : (index) -> memref<?xi8, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: the size of allocation 'h' depends on the thread id ('gpu.thread_id'); a block-level allocation has one size for the whole block

// -----

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %h = "gpu_alloc.alloc"(%n) <{name = "h"}> : (index) -> memref<?xi8, 1 : i32>
      %g = "gpu_alloc.alloc"() <{name = "g"}> : () -> memref<4xi8, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
// CHECK: kernel 'k' has a dynamically sized heap allocation ('h') among others ('h', 'g'): run fuse-gpu-allocs first, so that one backing holds all heap memory
