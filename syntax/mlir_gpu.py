"""MLIR's `gpu` dialect syntax, which xDSL 0.75 lacks, kept in one module to propose upstream.

xDSL's `gpu` ops only read and write the generic form. This module subclasses them with
MLIR's custom syntax (what `mlir-opt` prints) and adds what is missing:

- `#gpu.address_space<global|workgroup|private>` (NVVM spaces 1, 3, 5);
- `gpu.dynamic_shared_memory`;
- `gpu.func` workgroup and private attributions (`workgroup(%a : memref<...>)`), which
  xDSL's verifier rejects, and MLIR's generic spelling of `kernel` (`gpu.kernel`);
- MLIR's rule that a region's default dialect applies to custom-form op names only: a
  quoted generic `"terminator"() : () -> ()` inside a `gpu.func` is an unregistered op,
  never `gpu.terminator` (`MlirNameParser`).

The subclasses keep xDSL's generic printing (which `mlir-opt` reads), so IR written by a
pass and IR read from MLIR print alike. `mlir_gpu_kernels` has the kernel-holding ops
and `MLIR_GPU`, the replacement `gpu` dialect; `gpu_alloc.universe.register_dialects`
makes a context use it instead of xDSL's.
"""

from __future__ import annotations

from typing import Any, TypeVar

from gpu_alloc.syntax.mlir_attributes import opaque_attribute_type
from gpu_alloc.syntax.mlir_directives import AsyncDependencies
from gpu_alloc.syntax.mlir_llvm import CALLING_CONVENTION_ATTRIBUTE, parse_calling_convention
from gpu_alloc.syntax.mlir_syntax import with_declared_syntax, with_parser
from gpu_alloc.syntax.mlir_transform import script_op_type
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnregisteredOp,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    irdl_to_attr_constraint,
    result_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class AddressSpace(StrEnum):
    """MLIR's `gpu::AddressSpace` (GPUBase.td)."""

    GLOBAL = "global"
    WORKGROUP = "workgroup"
    PRIVATE = "private"


ADDRESS_SPACES = {AddressSpace.GLOBAL: 1, AddressSpace.WORKGROUP: 3, AddressSpace.PRIVATE: 5}
"""MLIR's GPU address spaces and the NVVM numbers they stand for."""


@irdl_attr_definition
class GpuAddressSpaceAttr(EnumAttribute[AddressSpace]):
    """`#gpu.address_space<workgroup>`: a memref memory space, equivalent to 1, 3 or 5
    (GPUBase.td's `GPU_AddressSpaceAttr`, `<` $value `>`)."""

    name = "gpu.address_space"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> AddressSpace:
        with parser.in_angle_brackets():  # as xDSL's `llvm.tailcallkind`
            return super().parse_parameter(parser)

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            super().print_parameter(printer)

    @property
    def number(self) -> int:
        return ADDRESS_SPACES[self.data]


WORKGROUP = GpuAddressSpaceAttr(AddressSpace.WORKGROUP)
PRIVATE = GpuAddressSpaceAttr(AddressSpace.PRIVATE)


class MlirNameParser(Parser):
    """xDSL's parser with MLIR's op-name rule: the enclosing op's dialect may complete a
    bare (custom-form) op name only; a quoted (generic-form) name is always complete."""

    def _get_op_by_name(self, name: str) -> type[Operation]:
        content = self.lexer.input.content
        before = content[: self._current_token.span.start].rstrip()
        quoted = before[-1:] in ('"', b'"')  # the input is str or bytes
        if (script := script_op_type(name, quoted)) is not None:
            return script
        if not quoted:
            stack = self._parser_state.dialect_stack
            op_type = self.ctx.get_optional_op(name, dialect_stack=stack)
            if op_type is None or issubclass(op_type, UnregisteredOp):
                end = len(before)  # at the name, not at what follows it
                start = max(end - len(name), 0)
                self.raise_error(
                    unknown_custom_op_message(name, self.ctx.allow_unregistered), start, end
                )
            return op_type
        if op_type := self.ctx.get_optional_op(name):
            return op_type
        self.raise_error(
            f"Operation {name} is not registered (pass --allow-unregistered-dialect to "
            "read it as an unregistered op)"
        )

    def _parse_dialect_type_or_attribute_body(
        self, attr_name: str, is_type: bool, is_opaque: bool, starting_opaque_pos: Any
    ) -> Any:
        """MLIR's own dialects' attributes and types that no loaded dialect defines are
        kept as text (`mlir_attributes`); `#llvm.cconv` reads MLIR 22's conventions
        (`mlir_llvm`)."""
        if attr_name == CALLING_CONVENTION_ATTRIBUTE and not (is_type or is_opaque):
            return parse_calling_convention(self)
        opaque_attribute_type(self.ctx, attr_name, is_type, is_opaque)
        return super()._parse_dialect_type_or_attribute_body(
            attr_name, is_type, is_opaque, starting_opaque_pos
        )


def unknown_custom_op_message(name: str, unregistered_allowed: bool) -> str:
    """Why a custom-form op cannot be read, and what to do about it."""
    generic = f'the generic form ("{name}"(...) ... : (...) -> (...), as mlir-opt --mlir-print-op-generic writes it)'
    if unregistered_allowed:
        return f"operation '{name}' is not defined here, so its custom form cannot be read: give it in {generic}"
    return (
        f"operation '{name}' is not defined here: pass --allow-unregistered-dialect and give "
        f"it in {generic}"
    )


# ---------------------------------------------------------------------------- shared syntax


def parse_async(parser: Parser) -> tuple[bool, list[SSAValue]]:
    """`async`? (`[` %token, ... `]`)?"""
    is_async = parser.parse_optional_keyword("async") is not None
    deps = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: parser.parse_operand(gpu.AsyncTokenType()),
    )
    return is_async, list(deps or [])


_Op = TypeVar("_Op", bound=IRDLOperation)


def _parse_barrier(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.barrier (memfence [#gpu.address_space<...>, ...])?`

    Passes take every `gpu.barrier` to order workgroup memory, so a barrier whose fence
    list leaves workgroup memory out is refused rather than misread. The list is kept as
    MLIR's inherent `address_spaces` attribute."""
    attributes: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("memfence") is not None:
        pos = parser.pos
        spaces = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_attribute)
        if WORKGROUP not in spaces:
            parser.raise_error(
                "a gpu.barrier that does not fence workgroup memory is not supported",
                pos,
                parser.pos,
            )
        attributes["address_spaces"] = ArrayAttr(spaces)
    attributes.update(parser.parse_optional_attr_dict())
    return cls.create(attributes=attributes)


def _declared(
    base: type[_Op], assembly_format: str, fixed_operands: int | None = None, **missing: Any
) -> type[_Op]:
    """GPUOps.td's format on xDSL's `base`, with this project's gpu directives."""
    return with_declared_syntax(
        base,
        assembly_format,
        (AsyncDependencies,),
        missing=missing,
        fixed_operands=fixed_operands,
    )


# the formats of GPUOps.td (MLIR 22)
_DIMENSION = "$dimension (`upper_bound` $upper_bound^)? attr-dict"
_BOUND = irdl_to_attr_constraint(IntegerAttr[IndexType])
ThreadIdOp = _declared(gpu.ThreadIdOp, _DIMENSION, upper_bound=_BOUND)
BlockIdOp = _declared(gpu.BlockIdOp, _DIMENSION, upper_bound=_BOUND)
BlockDimOp = _declared(gpu.BlockDimOp, _DIMENSION, upper_bound=_BOUND)
GridDimOp = _declared(gpu.GridDimOp, _DIMENSION, upper_bound=_BOUND)
GlobalIdOp = _declared(gpu.GlobalIdOp, _DIMENSION, upper_bound=_BOUND)
LaneIdOp = _declared(gpu.LaneIdOp, "(`upper_bound` $upper_bound^)? attr-dict", upper_bound=_BOUND)
_COUNT = "(`upper_bound` $upper_bound^)? attr-dict `:` type($result)"
SubgroupIdOp = _declared(gpu.SubgroupIdOp, _COUNT, upper_bound=_BOUND)
NumSubgroupsOp = _declared(gpu.NumSubgroupsOp, _COUNT, upper_bound=_BOUND)
SubgroupSizeOp = _declared(gpu.SubgroupSizeOp, _COUNT, upper_bound=_BOUND)
# by hand: MLIR 22's format is `attr-dict`; `memfence [...]` (after MLIR 22) is read
# and a fence that leaves workgroup memory out is refused, at the list
BarrierOp = with_parser(gpu.BarrierOp, _parse_barrier)
HostRegisterOp = _declared(gpu.HostRegisterOp, "$value attr-dict `:` type($value)")
HostUnregisterOp = _declared(gpu.HostUnregisterOp, "$value attr-dict `:` type($value)")
TerminatorOp = _declared(gpu.TerminatorOp, "attr-dict")
ReturnOp = _declared(gpu.ReturnOp, "attr-dict ($args^ `:` type($args))?")
YieldOp = _declared(gpu.YieldOp, "attr-dict ($values^ `:` type($values))?")
_ASYNC = "custom<AsyncDependencies>(type($asyncToken), $asyncDependencies)"
WaitOp = _declared(gpu.WaitOp, f"{_ASYNC} attr-dict")
AllocOp = _declared(
    gpu.AllocOp,
    f"{_ASYNC} (` ` `host_shared` $hostShared^)? ` ` `(` $dynamicSizes `)`"
    " (`` `[` $symbolOperands^ `]`)? attr-dict `:` type($result)",
)
DeallocOp = _declared(gpu.DeallocOp, f"{_ASYNC} $buffer attr-dict `:` type($buffer)", 1)
MemcpyOp = _declared(
    gpu.MemcpyOp, f"{_ASYNC} $dst `,` $src `:` type($dst) `,` type($src) attr-dict", 2
)


@irdl_op_definition
class DynamicSharedMemoryOp(IRDLOperation):
    """`gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>`: the base
    of the block's dynamic shared memory."""

    name = "gpu.dynamic_shared_memory"

    memref = result_def(MemRefType)

    def __init__(self, result_type: Attribute | None = None):
        from xdsl.dialects.builtin import DYNAMIC_INDEX, i8

        if result_type is None:
            result_type = MemRefType(i8, [DYNAMIC_INDEX], memory_space=WORKGROUP)
        super().__init__(result_types=[result_type])

    def verify_(self) -> None:
        memref_type = self.memref.type
        assert isinstance(memref_type, MemRefType)
        if memref_type.memory_space != WORKGROUP:
            raise VerifyException(
                "gpu.dynamic_shared_memory result must be in #gpu.address_space<workgroup>, "
                f"got {memref_type}"
            )


# printed in generic form like the other `gpu` ops, so that stock
# `xdsl-opt --allow-unregistered-dialect` reads it too; GPUOps.td's format when read
DynamicSharedMemorySyntax = with_declared_syntax(
    DynamicSharedMemoryOp, "attr-dict `:` type($memref)"
)


def is_dynamic_shared_memory(op: Operation) -> bool:
    """`gpu.dynamic_shared_memory`, or the unregistered op stock `xdsl-opt` parses it as."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data == DynamicSharedMemoryOp.name and len(op.results) == 1
    return isinstance(op, DynamicSharedMemoryOp)


SIMPLE_OPS: tuple[type[Operation], ...] = (
    ThreadIdOp,
    BlockIdOp,
    BlockDimOp,
    GridDimOp,
    GlobalIdOp,
    LaneIdOp,
    SubgroupIdOp,
    NumSubgroupsOp,
    SubgroupSizeOp,
    BarrierOp,
    HostRegisterOp,
    HostUnregisterOp,
    TerminatorOp,
    ReturnOp,
    YieldOp,
    WaitOp,
    AllocOp,
    DeallocOp,
    MemcpyOp,
)
"""The `gpu` ops with MLIR's syntax defined here; `mlir_gpu_kernels` has the others."""
