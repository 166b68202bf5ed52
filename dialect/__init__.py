"""The `gpu_alloc` dialect: GPU shared/heap/private allocations and their aliases."""

from gpu_alloc import xdsl_fixes as _xdsl_fixes
from gpu_alloc.dialect.backing import (
    DYNAMIC_SHARED_BYTES,
    DYNAMIC_SHARED_COMPUTED,
    HEAP_ARGUMENT_TYPE,
    HEAP_BYTES_PER_BLOCK,
    dynamic_shared_bytes,
    heap_bytes_per_block,
    is_backing,
    is_heap_argument_type,
    set_heap_bytes_per_block,
    verify_heap_contract,
)
from gpu_alloc.dialect.layout import (
    HEAP_LAYOUT_ATTR,
    LAYOUT_ATTR,
    LOWER_BOUND_ATTR,
    PROVEN_OPTIMAL_ATTR,
    FuncSlice,
    layout_attr,
    layout_of,
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

_xdsl_fixes.apply()  # before anything is parsed or printed with the dialect

__all__ = [
    "BACKING_SPACES",
    "DYNAMIC_SHARED_BYTES",
    "DYNAMIC_SHARED_COMPUTED",
    "HEAP_ARGUMENT_TYPE",
    "HEAP_BYTES_PER_BLOCK",
    "HEAP_LAYOUT_ATTR",
    "LAYOUT_ATTR",
    "LOWER_BOUND_ATTR",
    "PROVEN_OPTIMAL_ATTR",
    "FuncSlice",
    "layout_attr",
    "layout_of",
    "read_layout",
    "MEMORY_SPACES",
    "AliasOp",
    "AllocOp",
    "DeallocOp",
    "GpuAlloc",
    "MemorySpace",
    "OffsetPointerOp",
    "PtrType",
    "dynamic_shared_bytes",
    "heap_bytes_per_block",
    "is_backing",
    "is_heap_argument_type",
    "memory_space_of",
    "set_heap_bytes_per_block",
    "verify_heap_contract",
]
