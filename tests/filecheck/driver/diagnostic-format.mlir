// RUN: not gpu-alloc-opt %s -p 'fuse-gpu-allocs{max-shared-bytes=64}' 2>&1 | filecheck %s
// gpu-alloc-opt prints a failing pass's error at the op it is about: file, line and
// column, the source line, and a caret; exit code 1 (`not` checks it), no traceback.

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<17xi32, 3 : i32>
      %g = "gpu_alloc.alloc"() <{name = "g"}> : () -> memref<17xi32, 3 : i32>
      memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
      memref.store %v, %g[%c0] : memref<17xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}

// CHECK:      diagnostic-format.mlir:7:5: error: kernel 'k' needs 136 bytes of shared memory, over the limit of 64 (max-shared-bytes); largest: 'f' (68 B), 'g' (68 B)
// CHECK-NEXT:     "gpu.func"() <{function_type = () -> (), kernel}> ({
// CHECK-NEXT:     ^
// CHECK-NOT:  Traceback
