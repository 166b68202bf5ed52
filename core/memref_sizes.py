"""Byte sizes of memref element types and statically shaped memrefs (dense, row-major)."""

from __future__ import annotations

from xdsl.dialects.builtin import DYNAMIC_INDEX, FixedBitwidthType, IndexType, MemRefType
from xdsl.ir import Attribute

INDEX_BYTES = 8
"""`index` is 64 bits wide on NVPTX64, the only target this package emits."""


def element_bytes(element_type: Attribute) -> int | None:
    """The storage size of one element, or None for a type this project cannot size."""
    if isinstance(element_type, IndexType):
        return INDEX_BYTES
    if isinstance(element_type, FixedBitwidthType):
        return element_type.size
    return None


def static_byte_size(memref_type: MemRefType) -> int | None:
    """The bytes a statically shaped memref occupies, or None if a dimension is dynamic
    (or its element type cannot be sized)."""
    size = element_bytes(memref_type.get_element_type())
    if size is None:
        return None
    for dim in memref_type.get_shape():
        if dim == DYNAMIC_INDEX:
            return None
        size *= dim
    return size
