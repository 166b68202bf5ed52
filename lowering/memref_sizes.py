"""Byte sizes of memref types, as the lowering lays them out (dense, row-major)."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute

INDEX_BYTES = 8
"""`index` is 64 bits wide on NVPTX64, the only target this package emits."""


def element_bytes(element_type: Attribute) -> int | None:
    """The storage size of one element, or None for a type the lowering does not know."""
    if isinstance(element_type, IntegerType):
        return max(1, (element_type.width.data + 7) // 8)
    if isinstance(element_type, IndexType):
        return INDEX_BYTES
    if isinstance(element_type, Float16Type):
        return 2
    if isinstance(element_type, Float32Type):
        return 4
    if isinstance(element_type, Float64Type):
        return 8
    return None


def static_byte_size(memref_type: MemRefType) -> int | None:
    """The bytes a statically shaped memref occupies, or None if a dimension is dynamic."""
    size = element_bytes(memref_type.element_type)
    if size is None:
        return None
    for dim in memref_type.get_shape():
        if dim == DYNAMIC_INDEX:
            return None
        size *= dim
    return size
