// Bad target options and ops a backend does not lower: one error line, exit 1, no
// traceback and no partial output, under stock xdsl-opt and gpu-alloc-opt alike.
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs -t 'ptx{chip=sm_1 ptx_version=1}' 2>&1 | filecheck %s --check-prefix CHIP
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs -t 'ptx{chip=sm_1 ptx_version=1 backend=mlir}' 2>&1 | filecheck %s --check-prefix CHIP
// RUN: not gpu-alloc-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{chip=sm_1}' 2>&1 | filecheck %s --check-prefix CHIP
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{ptx_version=1}' 2>&1 | filecheck %s --check-prefix VERSION
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{chip=sm_90 ptx_version=70}' 2>&1 | filecheck %s --check-prefix OLD
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{backend=nope}' 2>&1 | filecheck %s --check-prefix BACKEND
// RUN: not gpu-alloc-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{backend=nope}' 2>&1 | filecheck %s --check-prefix BACKEND
// RUN: not xdsl-opt %s -t ptx 2>&1 | filecheck %s --check-prefix MALLOC
// RUN: not gpu-alloc-opt %s -t 'ptx{backend=mlir}' 2>&1 | filecheck %s --check-prefix MALLOC-LOC

// CHIP:      error: unknown chip 'sm_1' (choose from sm_50, {{.*}}, sm_80, {{.*}}, sm_90, {{.*}})
// CHIP-NOT:  Traceback
// CHIP-NOT:  .entry

// VERSION:   error: unknown ptx_version 1 (PTX ISA x10; choose from 32, {{.*}}, 80, {{.*}})
// OLD:       error: ptx_version 70 is older than sm_90 allows (choose from 78, 80, {{.*}})
// BACKEND:   error: unknown PTX backend 'nope' (choose from llvmlite, mlir)
// BACKEND-NOT: Traceback

// MALLOC:     error: the llvmlite PTX backend cannot lower 'memref.alloc' in kernel 'grab' (device malloc: needs the device runtime, which no assembler alone links; no PTX backend lowers it)
// MALLOC-NOT: Traceback
// MALLOC-LOC: ptx_errors.mlir:[[# @LINE + 8]]:7: error: the mlir PTX backend cannot lower 'memref.alloc' in kernel 'grab' (device malloc: needs the device runtime, which no assembler alone links; no PTX backend lowers it)

// A kernel that calls memref.alloc: device malloc, which no PTX backend lowers.
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xf32, 1>) -> (), kernel}> ({
    ^bb0(%out: memref<64xf32, 1>):
      %c1 = arith.constant 1 : index
      %p = memref.alloc() : memref<8xf32, 1>
      %v = memref.load %p[%c1] : memref<8xf32, 1>
      memref.store %v, %out[%c1] : memref<64xf32, 1>
      "gpu.return"() : () -> ()
    }) {sym_name = "grab"} : () -> ()
  }) : () -> ()
}
