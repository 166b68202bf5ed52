"""Byte sizes of memref element types and memrefs (dense, row-major): the one rule that
fuse, lower and the launch sites all size allocations by."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ContainerType,
    FixedBitwidthType,
    IndexType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

INDEX_BYTES = 8
"""`index` is 64 bits wide on every target this package emits (64-bit NVPTX, AMDGPU and
SPIR-V: their LLVM triples are `nvptx64`, `amdgcn`, `spirv64`)."""

MAX_INDEX = 2**63 - 1
"""The largest value an `index` holds: no dimension, element count, byte size or byte
offset may pass it."""


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


def llvm_type_bytes(type_: Attribute) -> int | None:
    """The bytes an LLVM-dialect type occupies (`!llvm.array<N x T>`, vectors, structs
    laid out with their fields' natural alignment, pointers, integers and floats), or
    None for one this project cannot size."""
    return _llvm_layout(type_)[0]


def _llvm_layout(type_: Attribute) -> tuple[int | None, int]:
    """An LLVM-dialect type's size and alignment in bytes (size None: unknown)."""
    if isinstance(type_, llvm.LLVMArrayType | VectorType):
        if isinstance(type_, VectorType):
            count, element = prod(type_.get_shape()), type_.get_element_type()
        else:
            count, element = type_.size.data, type_.type
        size, alignment = _llvm_layout(element)
        return (None if size is None else size * count), alignment
    if isinstance(type_, llvm.LLVMStructType):
        offset, largest = 0, 1
        for field in type_.types.data:
            size, alignment = _llvm_layout(field)
            if size is None:
                return None, 1
            offset = -(-offset // alignment) * alignment + size
            largest = max(largest, alignment)
        return -(-offset // largest) * largest, largest
    if isinstance(type_, llvm.LLVMPointerType):
        return INDEX_BYTES, INDEX_BYTES
    size = element_bytes(type_)
    return size, size or 1


def static_factor(memref_type: MemRefType) -> int | None:
    """The bytes of one element times every static dimension: the byte size of a memref
    is this times its dynamic sizes. None if the element type cannot be sized."""
    size = element_bytes(memref_type.get_element_type())
    if size is None:
        return None
    for dim in memref_type.get_shape():
        if dim != DYNAMIC_INDEX:
            size *= dim
    return size


def byte_size_ops(
    memref_type: MemRefType, dynamic_sizes: Sequence[SSAValue]
) -> tuple[list[Operation], SSAValue]:
    """Ops computing the byte size of a memref of `memref_type` with `dynamic_sizes`
    (one `index` per `?`), and the value: `static_factor` times each dynamic size; a
    1-D byte buffer's size is its one dynamic size itself. The element type must be
    sizable (`static_factor` is not None)."""
    factor = static_factor(memref_type)
    assert factor is not None, "callers check the element type first"
    if factor == 1 and len(dynamic_sizes) == 1:
        return [], dynamic_sizes[0]
    ops: list[Operation] = [arith.ConstantOp.from_int_and_width(factor, IndexType())]
    size = ops[0].results[0]
    size.name_hint = f"c{factor}"
    for dynamic in dynamic_sizes:
        ops.append(arith.MuliOp(size, dynamic))
        size = ops[-1].results[0]
    return ops, size


def element_type_name(type_attr: Attribute) -> str | None:
    """The element type of a scalar, vector or memref type as MLIR spells it (`f32`,
    `bf16`, `i1`, `index`), or None for any other type."""
    if isinstance(type_attr, ContainerType):
        type_attr = type_attr.get_element_type()  # pyright: ignore[reportUnknownMemberType]
    if isinstance(type_attr, IndexType | FixedBitwidthType):
        return str(type_attr)
    return None
