// The packer's limits as pass options: `budget` (work units, deterministic) and the optional
// wall-clock cap `time-limit`. A bad value is a one-line diagnostic.

// RUN: xdsl-opt %examples/stencil_chain.mlir -p 'fuse-gpu-allocs{report=true budget=500}' 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: xdsl-opt %examples/stencil_chain.mlir -p 'fuse-gpu-allocs{report=true time-limit=30.0}' 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: not xdsl-opt %examples/stencil_chain.mlir -p 'fuse-gpu-allocs{budget=-1}' 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not xdsl-opt %examples/stencil_chain.mlir -p 'fuse-gpu-allocs{time-limit=-0.5}' 2>&1 | filecheck %s --check-prefix=NEGATIVE-TIME

// The chain's optimum (884 B, the lower bound) is found either way.
// BUDGET: shared backing 'shared_alloc': unfused 1208 B, fused 884 B, lower bound 884 B, {{.*}}(optimal)

// NEGATIVE: fuse-gpu-allocs: option budget must be a non-negative number of work units, got -1
// NEGATIVE-TIME: fuse-gpu-allocs: option time-limit must be a non-negative number of seconds, got -0.5
