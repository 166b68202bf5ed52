"""The `gpu_alloc` dialect: GPU shared/heap/private allocations and their aliases."""

from gpu_alloc.dialect.layout import (
    HEAP_LAYOUT_ATTR,
    LAYOUT_ATTR,
    FuncSlice,
    layout_attr,
    read_layout,
)
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
    "HEAP_LAYOUT_ATTR",
    "LAYOUT_ATTR",
    "FuncSlice",
    "layout_attr",
    "read_layout",
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
