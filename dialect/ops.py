"""Ops and types of the `gpu_alloc` dialect.

The generic form of every op (names, operands, properties) is a stable contract,
see docs/design.md "The IR contract". The pretty forms are:

    %f  = gpu_alloc.alloc "f1" (%n) align 16 : memref<?x16xf32, 3 : i32>
    %b  = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<884xi8, 3 : i32>
    gpu_alloc.dealloc %f : memref<?x16xf32, 3 : i32>
    %p  = gpu_alloc.offset_pointer %b[%off] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %f1 = gpu_alloc.alias "f1" %p : !gpu_alloc.ptr<3 : i32> -> memref<11x11xi32, 3 : i32>
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from gpu_alloc.dialect.layout import LAYOUT_ATTR, read_layout
from gpu_alloc.dialect.spellings import space_number
from gpu_alloc.memref_sizes import static_byte_size
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    I64,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i8,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue, TypeAttribute
from xdsl.irdl import (
    IRDLOperation,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
)
from xdsl.utils.exceptions import VerifyException


class MemorySpace(IntEnum):
    """The NVVM address spaces an allocation may live in."""

    GLOBAL = 1
    """Global memory ("heap"): per-block scratch slices of one device buffer."""
    SHARED = 3
    """Shared (workgroup) memory: one arena per thread block."""
    PRIVATE = 5
    """Private ("register") memory: one copy per thread."""


MEMORY_SPACES = frozenset(int(s) for s in MemorySpace)

SPACE_WORDS = {1: "heap", 3: "shared", 5: "private"}
"""How diagnostics name each memory space's allocations."""


def memory_space_of(memref_type: Attribute) -> int | None:
    """The number of a memref type's memory space, in either spelling (`3 : i32` or
    `#gpu.address_space<workgroup>`), or None if it has none. What that memory is, and
    whose, is `gpu_alloc.dialect.memory`'s answer."""
    if not isinstance(memref_type, MemRefType):
        return None
    return space_number(memref_type.memory_space)


def _space_attr(space: int) -> IntegerAttr:
    return IntegerAttr(space, 32)


@irdl_attr_definition
class PtrType(ParametrizedAttribute, TypeAttribute):
    """A byte address into a backing allocation of memory space `S`: `!gpu_alloc.ptr<S>`."""

    name = "gpu_alloc.ptr"

    memory_space: IntegerAttr

    def __init__(self, memory_space: int | IntegerAttr):
        if isinstance(memory_space, int):
            memory_space = _space_attr(memory_space)
        super().__init__(memory_space)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            start = parser.pos
            space = parser.parse_attribute()
            if not isinstance(space, IntegerAttr):
                parser.raise_error(
                    f"!gpu_alloc.ptr takes a memory space number (1, 3 or 5), got {space}",
                    start,
                    parser.pos,
                )
        return (space,)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_attribute(self.memory_space)

    @property
    def space(self) -> int:
        return self.memory_space.value.data

    def verify(self) -> None:
        if self.space not in MEMORY_SPACES:
            raise VerifyException(
                f"!gpu_alloc.ptr memory space must be 1, 3 or 5, got {self.space}"
            )


class AllocatesOwnResult(MemoryEffect):
    """The op creates a fresh storage identity: its only effect is on its own result.

    xDSL's `dce` removes such an op once its result is unused, while `cse` and `licm`
    never merge or hoist it, since two of them are never interchangeable.
    """

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.ALLOC, r) for r in op.results}


def _verify_memref_result(
    op: Operation, memref_type: Attribute, dynamic_sizes: Sequence[SSAValue]
) -> int:
    """Shared checks of `alloc` and `alias` results; returns the memory space."""
    assert isinstance(memref_type, MemRefType)
    space = memory_space_of(memref_type)
    if space not in MEMORY_SPACES:
        raise VerifyException(
            f"{op.name} result must be a memref in memory space 1 (global), "
            f"3 (shared) or 5 (private), got {memref_type}"
        )
    n_dynamic = sum(1 for d in memref_type.get_shape() if d == DYNAMIC_INDEX)
    if n_dynamic != len(dynamic_sizes):
        raise VerifyException(
            f"{op.name} has {len(dynamic_sizes)} dynamic size operand(s) but its type "
            f"{memref_type} has {n_dynamic} '?' dimension(s)"
        )
    return space


def _is_byte_buffer(memref_type: MemRefType) -> bool:
    return len(memref_type.get_shape()) == 1 and memref_type.element_type == i8


def _verify_name(op: Operation, name: StringAttr) -> None:
    if not name.data:
        raise VerifyException(f"{op.name} must have a non-empty 'name'")


BACKING_SPACES = frozenset({int(MemorySpace.GLOBAL), int(MemorySpace.SHARED)})
"""The memory spaces a backing (an alloc with the `backing` property) may live in."""


@irdl_op_definition
class AllocOp(IRDLOperation):
    """The storage of one Func, or a backing buffer that aliases point into.

    Space 1 and 3 allocations are per-block storage (every block gets its own bytes),
    space 5 ones per-thread. With the `backing` unit property the allocation is a
    byte buffer (1-D `i8`, space 1 or 3) that `offset_pointer`s carve Funcs out of;
    see `gpu_alloc.dialect.backing.is_backing` for the one rule every pass asks.
    """

    name = "gpu_alloc.alloc"

    dynamic_sizes = var_operand_def(IndexType)
    memref = result_def(MemRefType)

    alloc_name = prop_def(StringAttr, prop_name="name")
    backing = opt_prop_def(UnitAttr)
    alignment = opt_prop_def(IntegerAttr[I64])

    traits = traits_def(AllocatesOwnResult())

    assembly_format = (
        "$name (`(` $dynamic_sizes^ `)`)? (`backing` $backing^)? (`align` $alignment^)? "
        "attr-dict `:` type($memref)"
    )

    def __init__(
        self,
        name: str | StringAttr,
        result_type: MemRefType,
        dynamic_sizes: Sequence[SSAValue | Operation] = (),
        alignment: int | None = None,
        backing: bool = False,
    ):
        if isinstance(name, str):
            name = StringAttr(name)
        super().__init__(
            operands=[dynamic_sizes],
            result_types=[result_type],
            properties={
                "name": name,
                "backing": UnitAttr() if backing else None,
                "alignment": None if alignment is None else IntegerAttr(alignment, 64),
            },
        )

    @property
    def space(self) -> int:
        space = memory_space_of(self.memref.type)
        assert space is not None
        return space

    def verify_(self) -> None:
        _verify_name(self, self.alloc_name)
        space = _verify_memref_result(self, self.memref.type, self.dynamic_sizes)
        if self.backing is not None:
            memref_type = self.memref.type
            assert isinstance(memref_type, MemRefType)
            if space not in BACKING_SPACES or not _is_byte_buffer(memref_type):
                raise VerifyException(
                    "gpu_alloc.alloc with 'backing' must be a 1-D memref of i8 in memory "
                    f"space 1 (global) or 3 (shared), got {memref_type}"
                )
        if self.alignment is not None:
            value = self.alignment.value.data
            if value <= 0 or value & (value - 1):
                raise VerifyException(
                    f"gpu_alloc.alloc alignment must be a positive power of two, got {value}"
                )
        record = self.attributes.get(LAYOUT_ATTR)
        if record is not None:
            memref_type = self.memref.type
            assert isinstance(memref_type, MemRefType)
            read_layout(record, static_byte_size(memref_type))


@irdl_op_definition
class DeallocOp(IRDLOperation):
    """Explicit end of the lifetime of an `alloc` or `alias`."""

    name = "gpu_alloc.dealloc"

    memref = operand_def(MemRefType)

    traits = traits_def(MemoryFreeEffect())

    assembly_format = "$memref attr-dict `:` type($memref)"

    def __init__(self, memref: SSAValue | Operation):
        super().__init__(operands=[memref])

    def verify_(self) -> None:
        owner = self.memref.owner
        if not isinstance(owner, AllocOp | AliasOp):
            raise VerifyException(
                "gpu_alloc.dealloc operand must be made by gpu_alloc.alloc or "
                f"gpu_alloc.alias, got a value made by {_describe_owner(self.memref)}"
            )


def _describe_owner(value: SSAValue) -> str:
    owner = value.owner
    if isinstance(owner, Operation):
        return owner.name
    return "a block argument"


@irdl_op_definition
class OffsetPointerOp(IRDLOperation):
    """A byte address `offset` bytes into `backing`.

    The backing must be a 1-D `i8` `gpu_alloc.alloc`. New IR marks it with the
    `backing` property (fuse-gpu-allocs always does); IR written before the property
    existed is still accepted, and `is_backing` treats such an alloc as a backing.

    Not `Pure`: each one is a distinct pointer identity, so `cse` never merges two
    of them and `licm` never hoists one out of its kernel.
    """

    name = "gpu_alloc.offset_pointer"

    backing = operand_def(MemRefType)
    offset = operand_def(IndexType)
    pointer = result_def(PtrType)

    traits = traits_def(AllocatesOwnResult())

    assembly_format = "$backing `[` $offset `]` attr-dict `:` type($backing) `->` type($pointer)"

    def __init__(self, backing: SSAValue | Operation, offset: SSAValue | Operation):
        backing_value = SSAValue.get(backing)
        space = memory_space_of(backing_value.type)
        super().__init__(
            operands=[backing_value, offset],
            result_types=[PtrType(space if space is not None else 0)],
        )

    def verify_(self) -> None:
        backing_type = self.backing.type
        assert isinstance(backing_type, MemRefType)
        if not _is_byte_buffer(backing_type):
            raise VerifyException(
                f"gpu_alloc.offset_pointer backing must be a 1-D memref of i8, got {backing_type}"
            )
        if not isinstance(self.backing.owner, AllocOp):
            raise VerifyException(
                "gpu_alloc.offset_pointer backing must be made by gpu_alloc.alloc, "
                f"got a value made by {_describe_owner(self.backing)}"
            )
        pointer_type = self.pointer.type
        assert isinstance(pointer_type, PtrType)
        if memory_space_of(backing_type) != pointer_type.space:
            raise VerifyException(
                f"gpu_alloc.offset_pointer result space {pointer_type.space} differs "
                f"from its backing's space {memory_space_of(backing_type)}"
            )


@irdl_op_definition
class AliasOp(IRDLOperation):
    """A named allocation whose storage is given by a pointer into a backing."""

    name = "gpu_alloc.alias"

    pointer = operand_def(PtrType)
    dynamic_sizes = var_operand_def(IndexType)
    memref = result_def(MemRefType)

    alias_name = prop_def(StringAttr, prop_name="name")

    traits = traits_def(AllocatesOwnResult())

    assembly_format = (
        "$name $pointer (`(` $dynamic_sizes^ `)`)? attr-dict `:` type($pointer) `->` type($memref)"
    )

    def __init__(
        self,
        name: str | StringAttr,
        pointer: SSAValue | Operation,
        result_type: MemRefType,
        dynamic_sizes: Sequence[SSAValue | Operation] = (),
    ):
        if isinstance(name, str):
            name = StringAttr(name)
        super().__init__(
            operands=[pointer, dynamic_sizes],
            result_types=[result_type],
            properties={"name": name},
        )

    @property
    def space(self) -> int:
        space = memory_space_of(self.memref.type)
        assert space is not None
        return space

    def verify_(self) -> None:
        _verify_name(self, self.alias_name)
        space = _verify_memref_result(self, self.memref.type, self.dynamic_sizes)
        pointer_type = self.pointer.type
        assert isinstance(pointer_type, PtrType)
        if pointer_type.space != space:
            raise VerifyException(
                f"gpu_alloc.alias result space {space} differs from its pointer's "
                f"space {pointer_type.space}"
            )


GpuAlloc = Dialect(
    "gpu_alloc",
    [AllocOp, DeallocOp, OffsetPointerOp, AliasOp],
    [PtrType],
)
