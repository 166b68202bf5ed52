// Names PTX cannot spell: a non-ASCII Func name becomes '_' in its global's symbol
// (the PTX assembles); a non-ASCII kernel name is one located error line, exit 1,
// never LLVM's abort ("Symbol name with unsupported characters").
// RUN: gpu-alloc-opt %s -p lower-gpu-allocs | filecheck %s --check-prefix GLOBAL
// RUN: gpu-alloc-opt %s -t ptx | filecheck %s --check-prefix PTX
// RUN: sed 's/sym_name = "k"/sym_name = "\\C3\\A9"/' %s > %t.mlir
// RUN: not gpu-alloc-opt %t.mlir -t ptx 2>&1 | filecheck %s --check-prefix KERNEL
// RUN: not gpu-alloc-opt %t.mlir -t 'ptx{backend=mlir}' 2>&1 | filecheck %s --check-prefix KERNEL

// GLOBAL: "memref.global"() <{sym_name = "k___",
// GLOBAL: "memref.global"() <{sym_name = "k____1",
// PTX-DAG: .shared .align 16 .b8 k___[16];
// PTX-DAG: .shared .align 16 .b8 k____1[16];
// PTX-DAG: .entry k(
// KERNEL: .tmp.mlir:20:5: error: symbol name 'é' is not a PTX identifier
// KERNEL-NOT: LLVM ERROR

builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xi32, 1>) -> ()}> ({
    ^bb0(%out: memref<4xi32, 1>):
      %a = "gpu_alloc.alloc"() <{name = "é"}> : () -> memref<4xi32, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "ü"}> : () -> memref<4xi32, 3 : i32>
      %c0 = arith.constant 0 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = memref.load %out[%t] : memref<4xi32, 1>
      memref.store %x, %a[%t] : memref<4xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %v = memref.load %a[%c0] : memref<4xi32, 3 : i32>
      memref.store %v, %b[%t] : memref<4xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %w = memref.load %b[%c0] : memref<4xi32, 3 : i32>
      memref.store %w, %out[%t] : memref<4xi32, 1>
      "gpu.return"() : () -> ()
    }) {sym_name = "k", gpu.kernel} : () -> ()
  }) : () -> ()
}
