// RUN: %gpu-alloc-opt %S/fuse.mlir -p import-gpu-allocs | %gpu-alloc-sim - --grid 1 --block 256 > %t.before
// RUN: %gpu-alloc-opt %S/fuse.mlir -p import-gpu-allocs,fuse-gpu-allocs,flatten-aliases | %gpu-alloc-sim - --grid 1 --block 256 > %t.after
// RUN: diff %t.before %t.after
// RUN: %filecheck %s < %t.after

// Fusion keeps the kernel's output (the simulator's digest of each memref argument) and
// adds no race (gpu-alloc-sim exits 3 on one).
// CHECK: in 256xf32 sha256=
// CHECK: out 256xf32 sha256=
