"""MLIR's `gpu.dynamic_shared_memory`, which xDSL 0.75's `gpu` dialect lacks.

MLIR requires its result to live in `#gpu.address_space<workgroup>` (an integer space 3
is rejected), so the lowering casts it to the `3 : i32` space this project uses with
`memref.memory_space_cast`. The op and the attribute are defined with the rest of MLIR's
`gpu` syntax in `gpu_alloc.dialect.mlir_gpu`; `gpu-alloc-opt` and `gpu-alloc-sim` read
them back. Stock `xdsl-opt` keeps xDSL's `gpu` dialect, so it reads the printed form back
only with `--allow-unregistered-dialect`, and the PTX backends recognise the op by name.
"""

from __future__ import annotations

from gpu_alloc.dialect.mlir_gpu import (
    WORKGROUP,
    DynamicSharedMemoryOp,
    GpuAddressSpaceAttr,
    is_dynamic_shared_memory,
)

__all__ = ["WORKGROUP", "DynamicSharedMemoryOp", "GpuAddressSpaceAttr", "is_dynamic_shared_memory"]
