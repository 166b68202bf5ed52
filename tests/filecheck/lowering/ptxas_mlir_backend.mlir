// REQUIRES: ptxas, mlir-opt-22
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs -t 'ptx{backend=mlir}' > %t.ptx
// RUN: ptxas -arch=sm_90 -v %t.ptx -o %t.cubin 2>&1 | filecheck %s
// RUN: env XDSL_MLIR_OPT=/nonexistent/mlir-opt not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'ptx{backend=mlir}' 2>&1 | filecheck %s --check-prefix MISSING

// The reference backend's PTX assembles and has the same 884 shared bytes.
// CHECK: Compiling entry function 'stencil_chain' for 'sm_90'
// CHECK: Used {{[0-9]+}} registers, used 1 barriers, 884 bytes smem

// A missing mlir-opt is one line, no traceback.
// MISSING: error: XDSL_MLIR_OPT=/nonexistent/mlir-opt is not an executable
// MISSING-NOT: Traceback
