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

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from gpu_alloc.syntax.mlir_attributes import opaque_attribute_type
from gpu_alloc.syntax.mlir_directives_gpu import AsyncDependencies
from gpu_alloc.syntax.mlir_llvm import CALLING_CONVENTION_ATTRIBUTE, parse_calling_convention
from gpu_alloc.syntax.mlir_transform import script_op_type
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnregisteredOp,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AttrConstraint,
    IRDLOperation,
    OptPropertyDef,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    irdl_to_attr_constraint,
    result_def,
)
from xdsl.irdl.declarative_assembly_format import FormatProgram
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

ADDRESS_SPACES = {"global": 1, "workgroup": 3, "private": 5}
"""MLIR's GPU address spaces and the NVVM numbers they stand for."""


@irdl_attr_definition
class GpuAddressSpaceAttr(ParametrizedAttribute):
    """`#gpu.address_space<workgroup>`: a memref memory space, equivalent to 1, 3 or 5."""

    name = "gpu.address_space"

    space: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            pos = parser.pos
            word = parser.parse_identifier()
            if word not in ADDRESS_SPACES:
                parser.raise_error(
                    f"unknown GPU address space '{word}' (expected global, workgroup or private)",
                    pos,
                    parser.pos,
                )
            return (StringAttr(word),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.space.data)

    def verify(self) -> None:
        if self.space.data not in ADDRESS_SPACES:
            raise VerifyException(f"unknown GPU address space '{self.space.data}'")

    @property
    def number(self) -> int:
        return ADDRESS_SPACES[self.space.data]


WORKGROUP = GpuAddressSpaceAttr(StringAttr("workgroup"))
PRIVATE = GpuAddressSpaceAttr(StringAttr("private"))


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


def attr_dict(parser: Parser, keyword: bool = False) -> dict[str, Attribute]:
    if keyword:
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return dict(attrs.data) if attrs is not None else {}
    return parser.parse_optional_attr_dict()


# ----------------------------------------------------------------------------- simple ops

_Op = TypeVar("_Op", bound=IRDLOperation)


def _with_syntax(base: type[_Op], parse: Callable[[type[_Op], Parser], _Op]) -> type[_Op]:
    """`base` with MLIR's custom syntax `parse`.

    xDSL cannot re-define a subclass of a defined op, so this is a plain subclass that
    only parses: the ops it makes are instances of `base` itself. MLIR's
    generic form may carry properties xDSL does not define (`upper_bound`,
    `address_spaces`): they move to the attribute dictionary, where MLIR reads them back."""
    namespace: dict[str, Any] = {"parse": classmethod(parse), "__doc__": base.__doc__}
    namespace["create"] = classmethod(_in_base(base, base.create))
    return type(base.__name__, (base,), namespace)  # pyright: ignore[reportReturnType]


def _declared(
    base: type[_Op],
    assembly_format: str,
    fixed_operands: int | None = None,
    **missing: AttrConstraint,
) -> type[_Op]:
    """`_with_syntax` for GPUOps.td's `assembly_format`, read by xDSL's `FormatProgram`
    with this project's custom directives (`mlir_directives_gpu`).

    `missing`: MLIR's optional properties that xDSL's class lacks (`upper_bound`): the
    format reads them into the attribute dictionary, where MLIR reads them back. Names
    in the format are xDSL's (`$result` where MLIR's ODS says `$memref`). With
    `fixed_operands`, the op's async dependencies and then that many operands: MLIR's
    generic form has no `operandSegmentSizes` for it, which xDSL requires."""
    op_def = base.get_irdl_definition()
    extra = {name: OptPropertyDef(constraint) for name, constraint in missing.items()}
    definition = replace(
        op_def,
        properties={**op_def.properties, **extra},
        accessor_names={**op_def.accessor_names, **{n: (n, "property") for n in extra}},
        custom_directives={d.__name__: d for d in (AsyncDependencies,)},
    )
    program = FormatProgram.from_str(assembly_format, definition)

    def parse(cls: type[_Op], parser: Parser) -> _Op:
        return program.parse(parser, cls)

    namespace: dict[str, Any] = {
        "parse": classmethod(parse),
        # the format builds the op: an instance of `base`, extras in its dictionary
        "build": classmethod(_in_base(base, base.build)),
        "create": classmethod(_in_base(base, base.create, fixed_operands)),
        "__doc__": base.__doc__,
    }
    return type(base.__name__, (base,), namespace)  # pyright: ignore[reportReturnType]


def _in_base(
    base: type[IRDLOperation], make: Callable[..., Operation], fixed: int | None = None
) -> Callable[..., Any]:
    defined = base.get_irdl_definition().properties

    def create(
        cls: type[Operation],  # noqa: ARG001 (the subclass only parses)
        *,
        properties: Mapping[str, Attribute | None] | None = None,
        attributes: Mapping[str, Attribute | None] | None = None,
        **kwargs: Any,
    ) -> Operation:
        properties = {k: v for k, v in (properties or {}).items() if v is not None}
        extra = {k: v for k, v in properties.items() if k not in defined}
        properties = {k: v for k, v in properties.items() if k in defined}
        attributes = {**(attributes or {}), **extra}
        # an instance of xDSL's own class: passes and backends see the op they know
        op = make(properties=properties, attributes=attributes, **kwargs)
        if fixed is not None and "operandSegmentSizes" not in op.attributes:
            set_segments(op, [len(op.operands) - fixed, *[1] * fixed], as_property=False)
        return op

    return create


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
    attributes.update(attr_dict(parser))
    return cls.create(attributes=attributes)


def set_segments(op: Operation, sizes: Sequence[int], *, as_property: bool) -> None:
    from xdsl.dialects.builtin import DenseArrayBase

    segments = DenseArrayBase.from_list(i32, sizes)
    if as_property:
        op.properties["operandSegmentSizes"] = segments
    else:
        op.attributes["operandSegmentSizes"] = segments


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
BarrierOp = _with_syntax(gpu.BarrierOp, _parse_barrier)
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

    @classmethod
    def parse(cls, parser: Parser) -> DynamicSharedMemoryOp:
        """`attr-dict : type`; printed in generic form like the other `gpu` ops, so that
        stock `xdsl-opt --allow-unregistered-dialect` reads it too."""
        attributes = attr_dict(parser)
        parser.parse_punctuation(":")
        op = cls(parser.parse_type())
        op.attributes.update(attributes)
        return op

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
