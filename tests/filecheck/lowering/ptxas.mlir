// REQUIRES: ptxas
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs -t ptx > %t.fused.ptx
// RUN: ptxas -arch=sm_90 -v %t.fused.ptx -o %t.fused.cubin 2>&1 | filecheck %s --check-prefix FUSED
// RUN: xdsl-opt %examples/stencil_chain.mlir -p lower-gpu-allocs -t ptx > %t.unfused.ptx
// RUN: ptxas -arch=sm_90 -v %t.unfused.ptx -o %t.unfused.cubin 2>&1 | filecheck %s --check-prefix UNFUSED

// The embedded backend's PTX of the stencil chain assembles; fused, the kernel has the
// 884 bytes of the backing, unfused the three Funcs' 1220 (16-byte aligned each).
// FUSED: Compiling entry function 'stencil_chain' for 'sm_90'
// FUSED: Used {{[0-9]+}} registers, used 1 barriers, 884 bytes smem
// UNFUSED: Compiling entry function 'stencil_chain' for 'sm_90'
// UNFUSED: Used {{[0-9]+}} registers, used 1 barriers, 1220 bytes smem
