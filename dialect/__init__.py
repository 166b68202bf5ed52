"""The `gpu_alloc` dialect: GPU shared/heap/private allocations and their aliases."""

from gpu_alloc.dialect.ops import (
    MEMORY_SPACES,
    AliasOp,
    AllocOp,
    DeallocOp,
    GpuAlloc,
    MemorySpace,
    OffsetPointerOp,
    PtrType,
    memory_space_of,
)

__all__ = [
    "MEMORY_SPACES",
    "AliasOp",
    "AllocOp",
    "DeallocOp",
    "GpuAlloc",
    "MemorySpace",
    "OffsetPointerOp",
    "PtrType",
    "memory_space_of",
]
