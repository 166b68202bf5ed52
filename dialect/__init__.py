"""The `gpu_alloc` dialect: GPU shared/heap/private allocations and their aliases."""

from gpu_alloc.dialect.backing import (
    HEAP_ARGUMENT_TYPE,
    HEAP_BYTES_PER_BLOCK,
    heap_bytes_per_block,
    is_backing,
    is_heap_argument_type,
    set_heap_bytes_per_block,
    verify_heap_contract,
)
from gpu_alloc.dialect.layout import (
    HEAP_LAYOUT_ATTR,
    LAYOUT_ATTR,
    PROVEN_OPTIMAL_ATTR,
    FuncSlice,
    layout_attr,
    read_layout,
)
from gpu_alloc.dialect.ops import (
    BACKING_SPACES,
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
    "BACKING_SPACES",
    "HEAP_ARGUMENT_TYPE",
    "HEAP_BYTES_PER_BLOCK",
    "HEAP_LAYOUT_ATTR",
    "LAYOUT_ATTR",
    "PROVEN_OPTIMAL_ATTR",
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
    "heap_bytes_per_block",
    "is_backing",
    "is_heap_argument_type",
    "memory_space_of",
    "set_heap_bytes_per_block",
    "verify_heap_contract",
]
