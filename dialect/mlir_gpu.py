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
from typing import Any, TypeVar

from gpu_alloc.dialect.mlir_attributes import opaque_attribute_type
from gpu_alloc.dialect.mlir_llvm import CALLING_CONVENTION_ATTRIBUTE, parse_calling_convention
from gpu_alloc.dialect.mlir_syntax import with_declared_syntax
from gpu_alloc.dialect.mlir_transform import script_op_type
from gpu_alloc.dialect.spellings import space_number as space_number  # re-exported
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    UnregisteredOp,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    result_def,
)
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


def _with_syntax(
    base: type[_Op], parse: Callable[[type[_Op], Parser], _Op], fixed_operands: int | None = None
) -> type[_Op]:
    """`base` with MLIR's custom syntax `parse`.

    xDSL cannot re-define a subclass of a defined op, so this is a plain subclass that
    only parses: the ops it makes are instances of `base` itself. MLIR's
    generic form may carry properties xDSL does not define (`upper_bound`,
    `address_spaces`): they move to the attribute dictionary, where MLIR reads them back.
    With `fixed_operands`, the op's async dependencies and then that many operands:
    MLIR's generic form has no `operandSegmentSizes` for it, which xDSL requires."""
    namespace: dict[str, Any] = {"parse": classmethod(parse), "__doc__": base.__doc__}
    namespace["create"] = classmethod(_mlir_generic_create(base, fixed_operands))
    return type(base.__name__, (base,), namespace)  # pyright: ignore[reportReturnType]


def _mlir_generic_create(base: type[IRDLOperation], fixed: int | None) -> Callable[..., Any]:
    defined = base.get_irdl_definition().properties

    def create(
        cls: type[Operation],  # noqa: ARG001 (the subclass only parses)
        *,
        properties: Mapping[str, Attribute] = {},
        attributes: Mapping[str, Attribute] = {},
        **kwargs: Any,
    ) -> Operation:
        extra = {k: v for k, v in properties.items() if k not in defined}
        properties = {k: v for k, v in properties.items() if k in defined}
        attributes = {**attributes, **extra}
        # an instance of xDSL's own class: passes and backends see the op they know
        op = base.create(properties=properties, attributes=attributes, **kwargs)
        if fixed is not None and "operandSegmentSizes" not in op.attributes:
            set_segments(op, [len(op.operands) - fixed, *[1] * fixed], as_property=False)
        return op

    return create


def _parse_dimension_op(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.thread_id x (upper_bound 128)?`"""
    dim = parser.parse_str_enum(gpu.DimensionEnum)
    props: dict[str, Attribute] = {"dimension": gpu.DimensionAttr(dim)}
    return _create_index_op(cls, parser, props)


def _create_index_op(cls: type[_Op], parser: Parser, props: dict[str, Attribute]) -> _Op:
    attributes: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("upper_bound") is not None:
        # MLIR's inherent attribute, kept in the dictionary (MLIR reads it back there)
        attributes["upper_bound"] = IntegerAttr(parser.parse_integer(), IndexType())
    attributes.update(attr_dict(parser))
    if parser.parse_optional_punctuation(":") is not None:  # `gpu.subgroup_id : index`
        parser.parse_type()
    return cls.create(result_types=[IndexType()], properties=props, attributes=attributes)


def _parse_index_op(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.lane_id (upper_bound 32)?`"""
    props: dict[str, Attribute] = {}
    return _create_index_op(cls, parser, props)


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


def _parse_wait(cls: type[_Op], parser: Parser) -> _Op:
    is_async, deps = parse_async(parser)
    token = [gpu.AsyncTokenType()] if is_async else []
    return cls.create(operands=deps, result_types=token, attributes=attr_dict(parser))


def _parse_alloc(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.alloc async? [deps]? host_shared? (%dyn, ...) ([%sym, ...])? attr-dict : type`"""
    is_async, deps = parse_async(parser)
    props: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("host_shared") is not None:
        props["hostShared"] = UnitAttr()
    sizes = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_operand(IndexType())
    )
    symbols = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
    )
    attributes = attr_dict(parser)
    parser.parse_punctuation(":")
    result_type = parser.parse_type()
    op = cls.create(
        operands=[*deps, *sizes, *(symbols or [])],
        result_types=[result_type, *([gpu.AsyncTokenType()] if is_async else [])],
        properties=props,
        attributes=attributes,
    )
    set_segments(op, [len(deps), len(sizes), len(symbols or [])], as_property=True)
    return op


def _parse_dealloc(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.dealloc async? [deps]? %m : type`"""
    is_async, deps = parse_async(parser)
    buffer = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    buffer_value = parser.resolve_operand(buffer, parser.parse_type())
    op = cls.create(
        operands=[*deps, buffer_value],
        result_types=[gpu.AsyncTokenType()] if is_async else [],
        attributes=attr_dict(parser),
    )
    set_segments(op, [len(deps), 1], as_property=False)
    return op


def _parse_memcpy(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.memcpy async? [deps]? %dst, %src : dst_type, src_type`"""
    is_async, deps = parse_async(parser)
    dst = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    src = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    dst_value = parser.resolve_operand(dst, parser.parse_type())
    parser.parse_punctuation(",")
    src_value = parser.resolve_operand(src, parser.parse_type())
    op = cls.create(
        operands=[*deps, dst_value, src_value],
        result_types=[gpu.AsyncTokenType()] if is_async else [],
        attributes=attr_dict(parser),
    )
    set_segments(op, [len(deps), 1, 1], as_property=False)
    return op


def set_segments(op: Operation, sizes: Sequence[int], *, as_property: bool) -> None:
    from xdsl.dialects.builtin import DenseArrayBase

    segments = DenseArrayBase.from_list(i32, sizes)
    if as_property:
        op.properties["operandSegmentSizes"] = segments
    else:
        op.attributes["operandSegmentSizes"] = segments


ThreadIdOp = _with_syntax(gpu.ThreadIdOp, _parse_dimension_op)
BlockIdOp = _with_syntax(gpu.BlockIdOp, _parse_dimension_op)
BlockDimOp = _with_syntax(gpu.BlockDimOp, _parse_dimension_op)
GridDimOp = _with_syntax(gpu.GridDimOp, _parse_dimension_op)
GlobalIdOp = _with_syntax(gpu.GlobalIdOp, _parse_dimension_op)
LaneIdOp = _with_syntax(gpu.LaneIdOp, _parse_index_op)
SubgroupIdOp = _with_syntax(gpu.SubgroupIdOp, _parse_index_op)
NumSubgroupsOp = _with_syntax(gpu.NumSubgroupsOp, _parse_index_op)
SubgroupSizeOp = _with_syntax(gpu.SubgroupSizeOp, _parse_index_op)
BarrierOp = _with_syntax(gpu.BarrierOp, _parse_barrier)
# the formats of GPUOps.td
HostRegisterOp = with_declared_syntax(gpu.HostRegisterOp, "$value attr-dict `:` type($value)")
HostUnregisterOp = with_declared_syntax(gpu.HostUnregisterOp, "$value attr-dict `:` type($value)")
TerminatorOp = with_declared_syntax(gpu.TerminatorOp, "attr-dict")
ReturnOp = with_declared_syntax(gpu.ReturnOp, "attr-dict ($args^ `:` type($args))?")
YieldOp = with_declared_syntax(gpu.YieldOp, "attr-dict ($values^ `:` type($values))?")
WaitOp = _with_syntax(gpu.WaitOp, _parse_wait)
AllocOp = _with_syntax(gpu.AllocOp, _parse_alloc)
DeallocOp = _with_syntax(gpu.DeallocOp, _parse_dealloc, fixed_operands=1)
MemcpyOp = _with_syntax(gpu.MemcpyOp, _parse_memcpy, fixed_operands=2)


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
