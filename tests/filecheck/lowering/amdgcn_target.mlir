// REQUIRES: mlir-opt-22, ld.lld-22
// `-t amdgcn`: AMDGPU assembly that LLVM's own assembler and linker turn into a code
// object, with the fused backing as the kernel's static LDS (884 bytes, the bytes ptxas
// reports for the same kernel), on both backends and on every chip's wave size.
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -t amdgcn > %t.s
// RUN: filecheck %s --check-prefix GFX942 < %t.s
// RUN: llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.s -o %t.o
// RUN: ld.lld-22 -shared %t.o -o %t.hsaco
// RUN: gpu-alloc-opt %examples/stencil_chain.mlir -p fuse-gpu-allocs -t 'amdgcn{backend=mlir}' > %t.mlir.s
// RUN: filecheck %s --check-prefix GFX942 < %t.mlir.s
// RUN: llvm-mc-22 -triple=amdgcn-amd-amdhsa -mcpu=gfx942 -filetype=obj %t.mlir.s -o %t.mlir.o
// RUN: ld.lld-22 -shared %t.mlir.o -o %t.mlir.hsaco
// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'amdgcn{chip=gfx1100}' | filecheck %s --check-prefix GFX1100
// RUN: gpu-alloc-opt %examples/stencil_chain.mlir -p fuse-gpu-allocs -t 'amdgcn{chip=gfx1100 backend=mlir}' | filecheck %s --check-prefix GFX1100
// RUN: not xdsl-opt %S/inputs/stencil_chain_fused.mlir -t 'amdgcn{chip=sm_90}' 2>&1 | filecheck %s --check-prefix CHIP
// RUN: not gpu-alloc-opt %S/inputs/stencil_chain_fused.mlir -t 'amdgcn{backend=hip}' 2>&1 | filecheck %s --check-prefix BACKEND

// The barrier is s_barrier between workgroup-scope release and acquire fences: LDS
// writes are waited for (lgkmcnt) before it.
// GFX942:      .amdgcn_target "amdgcn-amd-amdhsa--gfx942"
// GFX942:      stencil_chain:
// GFX942:      ds_write_b32
// GFX942:      s_waitcnt lgkmcnt(0)
// GFX942-NEXT: s_barrier
// GFX942:      .amdhsa_kernel stencil_chain
// GFX942:        .amdhsa_group_segment_fixed_size 884
// GFX942:      .end_amdhsa_kernel

// GFX1100:     .amdgcn_target "amdgcn-amd-amdhsa--gfx1100"
// GFX1100:       .amdhsa_group_segment_fixed_size 884
// GFX1100:       .amdhsa_wavefront_size32 1

// CHIP:        error: unknown chip 'sm_90' (choose from gfx908, gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1200)
// CHIP-NOT:    .amdgcn_target
// BACKEND:     error: unknown AMDGPU backend 'hip' (choose from llvmlite, mlir)
