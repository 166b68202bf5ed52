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
pass and IR read from MLIR print alike. `MLIR_GPU` is the replacement `gpu` dialect; see
`gpu_alloc.universe.register_dialects` for how a context uses it instead of xDSL's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParametrizedAttribute,
    irdl_attr_definition,
    irdl_op_definition,
    result_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
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


def space_number(memory_space: Attribute) -> int | None:
    """The NVVM number of a memref memory space: `3 : i32` or `#gpu.address_space<...>`."""
    if isinstance(memory_space, IntegerAttr):
        return memory_space.value.data
    if isinstance(memory_space, GpuAddressSpaceAttr) and memory_space.space.data in ADDRESS_SPACES:
        return memory_space.number
    return None


class MlirNameParser(Parser):
    """xDSL's parser with MLIR's op-name rule: the enclosing op's dialect may complete a
    bare (custom-form) op name only; a quoted (generic-form) name is always complete."""

    def _get_op_by_name(self, name: str) -> type[Operation]:
        before = self.lexer.input.content[: self._current_token.span.start].rstrip()
        quoted = before.endswith(b'"' if isinstance(before, bytes) else '"')
        if not quoted:
            return super()._get_op_by_name(name)
        if op_type := self.ctx.get_optional_op(name):
            return op_type
        self.raise_error(f"Operation {name} is not registered")


# ---------------------------------------------------------------------------- shared syntax


def _parse_async(parser: Parser) -> tuple[bool, list[SSAValue]]:
    """`async`? (`[` %token, ... `]`)?"""
    is_async = parser.parse_optional_keyword("async") is not None
    deps = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: parser.parse_operand(),
    )
    return is_async, list(deps or [])


def _index_operands(parser: Parser, count: int, type_: Attribute) -> list[SSAValue]:
    """`(` %a, %b, ... `)` with exactly `count` operands of type `type_`."""
    pos = parser.pos
    unresolved = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_unresolved_operand
    )
    if len(unresolved) != count:
        parser.raise_error(f"expected {count} operands, got {len(unresolved)}", pos, parser.pos)
    return [parser.resolve_operand(u, type_) for u in unresolved]


def _attr_dict(parser: Parser, keyword: bool = False) -> dict[str, Attribute]:
    if keyword:
        attrs = parser.parse_optional_attr_dict_with_keyword()
        return dict(attrs.data) if attrs is not None else {}
    return parser.parse_optional_attr_dict()


def _parse_typed_values(parser: Parser) -> list[SSAValue]:
    """%a, %b `:` type, type (or nothing)."""
    unresolved = parser.parse_optional_undelimited_comma_separated_list(
        parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
    )
    if not unresolved:
        return []
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    return list(parser.resolve_operands(unresolved, types, parser.pos))


# ----------------------------------------------------------------------------- simple ops

_Op = TypeVar("_Op", bound=IRDLOperation)


def _with_syntax(
    base: type[_Op], parse: Callable[[type[_Op], Parser], _Op], fixed_operands: int | None = None
) -> type[_Op]:
    """`base` with MLIR's custom syntax `parse`.

    xDSL cannot re-define a subclass of a defined op, so this is a plain subclass: it
    keeps `base`'s definition, accessors and generic printing, and is a `base`. With
    `fixed_operands`, the op's async dependencies and then that many operands: MLIR's
    generic form has no `operandSegmentSizes` for it, which xDSL requires."""
    namespace: dict[str, Any] = {"parse": classmethod(parse), "__doc__": base.__doc__}
    if fixed_operands is not None:
        namespace["create"] = classmethod(_segment_filling_create(fixed_operands))
    return type(base.__name__, (base,), namespace)


def _segment_filling_create(fixed: int) -> Callable[..., Any]:
    def create(cls: type[Operation], **kwargs: Any) -> Operation:
        op = super(cls, cls).create(**kwargs)  # pyright: ignore
        if "operandSegmentSizes" not in op.attributes:
            _set_segments(op, [len(op.operands) - fixed, *[1] * fixed], as_property=False)
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
    attributes.update(_attr_dict(parser))
    return cls.create(result_types=[IndexType()], properties=props, attributes=attributes)


def _parse_index_op(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.lane_id (upper_bound 32)?`"""
    props: dict[str, Attribute] = {}
    return _create_index_op(cls, parser, props)


def _create_index_op(cls: type[_Op], parser: Parser, props: dict[str, Attribute]) -> _Op:
    attributes: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("upper_bound") is not None:
        # MLIR's inherent attribute, kept in the dictionary (MLIR reads it back there)
        attributes["upper_bound"] = IntegerAttr(parser.parse_integer(), IndexType())
    attributes.update(_attr_dict(parser))
    return cls.create(result_types=[IndexType()], properties=props, attributes=attributes)


def _parse_nullary(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.barrier`, `gpu.terminator`: an attribute dictionary at most."""
    return cls.create(attributes=_attr_dict(parser))


def _parse_values(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.return %a, %b : t1, t2`, `gpu.yield ...`"""
    operands = _parse_typed_values(parser)
    return cls.create(operands=operands, attributes=_attr_dict(parser))


def _parse_wait(cls: type[_Op], parser: Parser) -> _Op:
    is_async, deps = _parse_async(parser)
    token = [gpu.AsyncTokenType()] if is_async else []
    return cls.create(operands=deps, result_types=token, attributes=_attr_dict(parser))


def _parse_alloc(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.alloc async? [deps]? (%dyn, ...) ([%sym, ...])? host_shared? : type`"""
    is_async, deps = _parse_async(parser)
    sizes = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_operand()
    )
    symbols = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand()
    )
    props: dict[str, Attribute] = {}
    if parser.parse_optional_keyword("host_shared") is not None:
        props["hostShared"] = UnitAttr()
    parser.parse_punctuation(":")
    result_type = parser.parse_type()
    op = cls.create(
        operands=[*deps, *sizes, *(symbols or [])],
        result_types=[result_type, *([gpu.AsyncTokenType()] if is_async else [])],
        properties=props,
        attributes=_attr_dict(parser),
    )
    _set_segments(op, [len(deps), len(sizes), len(symbols or [])], as_property=True)
    return op


def _parse_dealloc(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.dealloc async? [deps]? %m : type`"""
    is_async, deps = _parse_async(parser)
    buffer = parser.parse_unresolved_operand()
    parser.parse_punctuation(":")
    buffer_value = parser.resolve_operand(buffer, parser.parse_type())
    op = cls.create(
        operands=[*deps, buffer_value],
        result_types=[gpu.AsyncTokenType()] if is_async else [],
        attributes=_attr_dict(parser),
    )
    _set_segments(op, [len(deps), 1], as_property=False)
    return op


def _parse_memcpy(cls: type[_Op], parser: Parser) -> _Op:
    """`gpu.memcpy async? [deps]? %dst, %src : dst_type, src_type`"""
    is_async, deps = _parse_async(parser)
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
        attributes=_attr_dict(parser),
    )
    _set_segments(op, [len(deps), 1, 1], as_property=False)
    return op


def _set_segments(op: Operation, sizes: Sequence[int], *, as_property: bool) -> None:
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
BarrierOp = _with_syntax(gpu.BarrierOp, _parse_nullary)
TerminatorOp = _with_syntax(gpu.TerminatorOp, _parse_nullary)
ReturnOp = _with_syntax(gpu.ReturnOp, _parse_values)
YieldOp = _with_syntax(gpu.YieldOp, _parse_values)
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

    assembly_format = "attr-dict `:` type($memref)"

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


# --------------------------------------------------------------------------- module, func


class ModuleOp(gpu.ModuleOp):
    """`gpu.module @name ([targets])? (attributes {...})? { ... }`"""

    @classmethod
    def parse(cls, parser: Parser) -> ModuleOp:
        name = parser.parse_symbol_name()
        props: dict[str, Attribute] = {"sym_name": name}
        targets = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_attribute
        )
        attributes = _attr_dict(parser, keyword=True)
        if targets is not None:
            attributes["targets"] = ArrayAttr(targets)
        region = parser.parse_region()
        if not region.blocks:
            from xdsl.ir import Block

            region.add_block(Block())
        return cls.create(properties=props, attributes=attributes, regions=[region])


KERNEL_ATTRIBUTE = "gpu.kernel"
"""MLIR's spelling of a kernel (`kernel` in the custom form); xDSL uses a property."""

WORKGROUP_ATTRIBUTIONS = "workgroup_attributions"
"""The `gpu.func` attribute counting its workgroup attributions (MLIR's name)."""

_MLIR_ONLY_FUNC_PROPERTIES = (
    "arg_attrs",
    "res_attrs",
    "workgroup_attrib_attrs",
    "private_attrib_attrs",
)


def _parse_func_argument(parser: Parser) -> tuple[Parser.Argument, DictionaryAttr]:
    argument = parser.parse_argument()
    attrs = parser.parse_optional_dictionary_attr_dict()
    parser.parse_optional_location()
    return argument, DictionaryAttr(attrs)


def _parse_attributions(parser: Parser, keyword: str) -> list[Parser.Argument]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    return parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_argument()
    )


def _parse_results(parser: Parser) -> list[Attribute]:
    if parser.parse_optional_punctuation("->") is None:
        return []
    results = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    return list(results) if results is not None else [parser.parse_type()]


class FuncOp(gpu.FuncOp):
    """`gpu.func @k(%a: t, ...) (-> results)? (workgroup(%w : t, ...))? (private(...))?
    kernel? (attributes {...})? { ... }`

    The entry block holds the arguments, then the workgroup attributions (their number is
    the `workgroup_attributions` attribute), then the private attributions.
    """

    @classmethod
    def create(
        cls,
        *,
        properties: Mapping[str, Attribute] = {},
        attributes: Mapping[str, Attribute] = {},
        **kwargs: Any,
    ) -> FuncOp:
        """MLIR's generic form spells `kernel` as the `gpu.kernel` unit attribute; MLIR's
        inherent attributes xDSL does not define stay in the attribute dictionary."""
        attributes = dict(attributes)
        properties = dict(properties)
        for name in _MLIR_ONLY_FUNC_PROPERTIES:
            if name in properties:
                attributes[name] = properties.pop(name)
        if isinstance(attributes.get(KERNEL_ATTRIBUTE), UnitAttr) or "kernel" in properties:
            # both spellings: xDSL reads the property, MLIR the attribute
            attributes[KERNEL_ATTRIBUTE] = properties["kernel"] = UnitAttr()
        if "sym_name" in properties:
            attributes["sym_name"] = properties.pop("sym_name")
        return super().create(properties=properties, attributes=attributes, **kwargs)

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        name = parser.parse_symbol_name()
        arguments = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: _parse_func_argument(parser)
        )
        results = _parse_results(parser)
        workgroup = _parse_attributions(parser, "workgroup")
        private = _parse_attributions(parser, "private")
        props: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists([a.type for a, _ in arguments], results)
        }
        if parser.parse_optional_keyword("kernel") is not None:
            props["kernel"] = UnitAttr()
        attributes = _attr_dict(parser, keyword=True)
        if any(attrs.data for _, attrs in arguments):
            attributes["arg_attrs"] = ArrayAttr(attrs for _, attrs in arguments)
        attributes["sym_name"] = name
        if workgroup:
            attributes[WORKGROUP_ATTRIBUTIONS] = IntegerAttr(len(workgroup), 64)
        region = parser.parse_region([*(a for a, _ in arguments), *workgroup, *private])
        return cls.create(properties=props, attributes=attributes, regions=[region])

    def attribution_counts(self) -> tuple[int, int]:
        """(workgroup, private) attributions at the end of the entry block."""
        n_inputs = len(self.function_type.inputs.data)
        count = self.attributes.get(WORKGROUP_ATTRIBUTIONS)
        n_workgroup = count.value.data if isinstance(count, IntegerAttr) else 0
        n_args = len(self.body.blocks[0].args) if self.body.blocks else n_inputs
        return n_workgroup, n_args - n_inputs - n_workgroup

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        if not self.body.blocks:
            raise VerifyException("gpu.func must have a body")
        inputs = self.function_type.inputs.data
        n_workgroup, n_private = self.attribution_counts()
        arg_types = self.body.blocks[0].arg_types
        if arg_types[: len(inputs)] != inputs or n_private < 0:
            raise VerifyException(
                "Expected first entry block arguments to have the same types as the "
                "function input types"
            )
        for index, type_ in enumerate(arg_types[len(inputs) :]):
            expected = 3 if index < n_workgroup else 5
            if not isinstance(type_, MemRefType) or space_number(type_.memory_space) != expected:
                kind = "workgroup" if expected == 3 else "private"
                raise VerifyException(
                    f"{kind} attribution must be a memref in #gpu.address_space<{kind}>, "
                    f"got {type_}"
                )
        if self.kernel is not None and self.function_type.outputs.data:
            raise VerifyException("Expected void return type for kernel function")


# --------------------------------------------------------------------------------- launch


def _parse_size_assignments(
    parser: Parser, ids_keyword: str
) -> tuple[list[Parser.Argument], list[Parser.Argument], list[SSAValue]]:
    """`blocks(%bx, %by, %bz) in (%gx = %a, %gy = %b, %gz = %c)`"""
    parser.parse_keyword(ids_keyword)
    index = IndexType()
    ids = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False).resolve(index)
    )
    parser.parse_keyword("in")

    def assignment() -> tuple[Parser.Argument, SSAValue]:
        argument = parser.parse_argument(expect_type=False).resolve(index)
        parser.parse_punctuation("=")
        return argument, parser.parse_operand()

    pairs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)
    if len(ids) != 3 or len(pairs) != 3:
        parser.raise_error(f"'{ids_keyword}' takes three ids and three sizes")
    return ids, [a for a, _ in pairs], [v for _, v in pairs]


class LaunchOp(gpu.LaunchOp):
    """`gpu.launch async? [deps]? blocks(...) in (...) threads(...) in (...)
    (dynamic_shared_memory_size %s)? (attributes {...})? { ... }`"""

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        is_async, deps = _parse_async(parser)
        if parser.parse_optional_keyword("clusters") is not None:
            parser.raise_error("gpu.launch with clusters is not supported")
        block_ids, grid_args, grid = _parse_size_assignments(parser, "blocks")
        thread_ids, block_args, block = _parse_size_assignments(parser, "threads")
        dynamic: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            dynamic = [parser.parse_operand()]
        for keyword in ("module", "function", "workgroup", "private"):
            if parser.parse_optional_keyword(keyword) is not None:
                parser.raise_error(f"gpu.launch with '{keyword}' is not supported")
        attributes = _attr_dict(parser, keyword=True)
        region = parser.parse_region([*block_ids, *thread_ids, *grid_args, *block_args])
        op = cls.create(
            operands=[*deps, *grid, *block, *dynamic],
            result_types=[gpu.AsyncTokenType()] if is_async else [],
            attributes=attributes,
            regions=[region],
        )
        _set_segments(op, [len(deps), 1, 1, 1, 1, 1, 1, 0, 0, 0, len(dynamic)], as_property=True)
        return op


def _parse_launch_sizes(parser: Parser, keyword: str) -> list[UnresolvedOperand]:
    parser.parse_keyword(keyword)
    parser.parse_keyword("in")
    sizes = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, parser.parse_unresolved_operand
    )
    if len(sizes) != 3:
        parser.raise_error(f"'{keyword}' takes three sizes")
    return sizes


def _parse_kernel_arguments(parser: Parser) -> list[SSAValue]:
    if parser.parse_optional_keyword("args") is None:
        return []

    def argument() -> SSAValue:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(":")
        return parser.resolve_operand(value, parser.parse_type())

    return parser.parse_comma_separated_list(parser.Delimiter.PAREN, argument)


class LaunchFuncOp(gpu.LaunchFuncOp):
    """`gpu.launch_func async? [deps]? @module::@kernel blocks in (...) threads in (...)
    (: type)? (dynamic_shared_memory_size %s)? (args(%a : t, ...))? attr-dict`"""

    @classmethod
    def parse(cls, parser: Parser) -> LaunchFuncOp:
        is_async, deps = _parse_async(parser)
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr):
            parser.raise_error(f"expected the kernel's symbol (@module::@kernel), got {kernel}")
        if parser.parse_optional_keyword("clusters") is not None:
            parser.raise_error("gpu.launch_func with clusters is not supported")
        grid = _parse_launch_sizes(parser, "blocks")
        block = _parse_launch_sizes(parser, "threads")
        size_type: Attribute = IndexType()
        if parser.parse_optional_punctuation(":") is not None:
            size_type = parser.parse_type()
        sizes = [parser.resolve_operand(s, size_type) for s in (*grid, *block)]
        dynamic: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            dynamic = [parser.parse_operand()]
        arguments = _parse_kernel_arguments(parser)
        op = cls.create(
            operands=[*deps, *sizes, *dynamic, *arguments],
            result_types=[gpu.AsyncTokenType()] if is_async else [],
            properties={"kernel": kernel},
            attributes=_attr_dict(parser),
        )
        segments = [len(deps), 1, 1, 1, 1, 1, 1, 0, 0, 0, len(dynamic), len(arguments), 0]
        _set_segments(op, segments, as_property=True)
        return op


_REPLACEMENTS: dict[str, type[Operation]] = {
    op.name: op
    for op in (
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
        TerminatorOp,
        ReturnOp,
        YieldOp,
        WaitOp,
        AllocOp,
        DeallocOp,
        MemcpyOp,
        ModuleOp,
        FuncOp,
        LaunchOp,
        LaunchFuncOp,
    )
}

MLIR_GPU = Dialect(
    "gpu",
    [
        *(_REPLACEMENTS.get(op.name, op) for op in gpu.GPU.operations),
        DynamicSharedMemoryOp,
    ],
    [*gpu.GPU.attributes, GpuAddressSpaceAttr],
)
"""xDSL's `gpu` dialect with MLIR's syntax: a drop-in replacement in a `Context`."""
