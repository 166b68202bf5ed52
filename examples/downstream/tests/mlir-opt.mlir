// REQUIRES: mlir-opt
// RUN: %gpu-alloc-opt %S/fuse.mlir -p import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs | %mlir-opt --gpu-lower-to-nvvm-pipeline="cubin-chip=sm_90 cubin-features=+ptx80 cubin-format=isa" | %filecheck %s

// The fused, lowered kernel goes through MLIR's own NVVM pipeline: one 1 KiB shared array.
// CHECK: gpu.binary @m
// CHECK-SAME: .shared .align 16 .b8 k__shared_alloc[1024];
