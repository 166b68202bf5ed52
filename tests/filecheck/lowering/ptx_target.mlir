// RUN: xdsl-opt %S/inputs/stencil_chain_fused.mlir -p lower-gpu-allocs -t 'ptx{chip=sm_80 ptx_version=78}' | filecheck %s --check-prefix CHIP
// RUN: xdsl-opt %S/inputs/dynamic_shared.mlir -p lower-gpu-allocs | xdsl-opt --allow-unregistered-dialect -t ptx | filecheck %s --check-prefix DYN

// The embedded backend (the default of `-t ptx`) compiles for the chip and PTX version
// the target options name; the fused backing is one 16-byte aligned shared array.
// CHIP:      .version 7.8
// CHIP-NEXT: .target sm_80
// CHIP:      .visible .entry stencil_chain(
// CHIP:      .shared .align 16 .b8 stencil_chain__shared_alloc[884];

// Dynamic shared memory is CUDA's `extern __shared__` array, also when the lowered
// module is read back (gpu.dynamic_shared_memory is unknown to xDSL's gpu dialect).
// DYN:      .extern .shared .align 16 .b8 __dynamic_shared_memory[];
// DYN:      .visible .entry reverse(
// DYN:      mov.b64 {{.*}}, __dynamic_shared_memory;
// DYN:      st.shared.b32
// DYN:      bar.sync 0;
// DYN:      ld.shared.b32
