"""MLIR's syntax for the `gpu` ops that hold kernels: `gpu.module`, `gpu.func` (with
workgroup and private attributions), `gpu.launch`, `gpu.launch_func`; and `MLIR_GPU`,
xDSL's `gpu` dialect with all of MLIR's syntax (see `gpu_alloc.syntax.mlir_gpu`).
Kept with `mlir_gpu` to propose upstream.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# the one import from above: the verifier of attributions reads every spelling of a
# memory space (issue 27's one model); moving that check into the dialect is open
from gpu_alloc.dialect.spellings import space_number
from gpu_alloc.syntax.mlir_gpu import (
    SIMPLE_OPS,
    DynamicSharedMemorySyntax,
    GpuAddressSpaceAttr,
    parse_async,
)
from gpu_alloc.syntax.mlir_gpu_lanes import LANE_ATTRIBUTES, LANE_OPS
from gpu_alloc.syntax.mlir_gpu_warp import WARP_ATTRIBUTES, WARP_OPS
from gpu_alloc.syntax.mlir_syntax import set_segments
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    SymbolRefAttr,
    UnitAttr,
    i32,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.utils.exceptions import VerifyException

# --------------------------------------------------------------------------- module, func


class ModuleOp(gpu.ModuleOp):
    """`gpu.module @name ([targets])? (attributes {...})? { ... }`

    Like `LaunchOp` and `LaunchFuncOp`, a plain subclass that only parses: the ops it
    makes are xDSL's own. `FuncOp` alone makes instances of itself, for its verifier."""

    @classmethod
    def parse(cls, parser: Parser) -> gpu.ModuleOp:
        name = parser.parse_symbol_name()
        props: dict[str, Attribute] = {"sym_name": name}
        targets = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_attribute
        )
        attributes = dict(
            (parser.parse_optional_attr_dict_with_keyword() or DictionaryAttr({})).data
        )
        if targets is not None:
            attributes["targets"] = ArrayAttr(targets)
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        return gpu.ModuleOp.create(properties=props, attributes=attributes, regions=[region])

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {}, **kwargs: Any) -> gpu.ModuleOp:
        """MLIR's generic form has `targets` (and `offloadingHandler`) as properties,
        which xDSL does not define: they stay in the attribute dictionary."""
        return gpu.ModuleOp.create(**_split_properties(gpu.ModuleOp, properties, kwargs))


def _split_properties(
    base: type[Operation], properties: Mapping[str, Attribute], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """`create`'s arguments with the properties `base` does not define moved to the
    attribute dictionary, where MLIR reads them back."""
    defined = base.get_irdl_definition().properties  # pyright: ignore[reportAttributeAccessIssue]
    attributes = dict(kwargs.pop("attributes", {}))
    attributes |= {k: v for k, v in properties.items() if k not in defined}
    kept = {k: v for k, v in properties.items() if k in defined}
    return {**kwargs, "properties": kept, "attributes": attributes}


KERNEL_ATTRIBUTE = "gpu.kernel"
"""MLIR's spelling of a kernel (`kernel` in the custom form); xDSL uses a property."""


WORKGROUP_ATTRIBUTIONS = "workgroup_attributions"
"""The `gpu.func` attribute counting its workgroup attributions (MLIR's name)."""


def workgroup_count(op: Operation) -> int:
    """How many of `op`'s (a `gpu.func`'s or `gpu.launch`'s) attributions are workgroup
    ones (the rest, after them, are private)."""
    count = op.attributes.get(WORKGROUP_ATTRIBUTIONS)
    return count.value.data if isinstance(count, IntegerAttr) else 0


def verify_attribution_types(types: Sequence[Attribute], n_workgroup: int, what: str) -> None:
    """Workgroup attributions are memrefs in workgroup memory (3, in any spelling of
    `dialect.spellings`), private ones (after them) in private memory (5) or in the
    default memory space, which MLIR reads as the attribution's own: private."""
    for index, type_ in enumerate(types):
        expected = 3 if index < n_workgroup else 5
        space = type_.memory_space if isinstance(type_, MemRefType) else None
        if space is not None and expected == 5 and isinstance(space, NoneAttr):
            continue
        if space is None or space_number(space) != expected:
            kind = "workgroup" if expected == 3 else "private"
            raise VerifyException(
                f"{what}{kind} attribution must be a memref in #gpu.address_space<{kind}>, "
                f"got {type_}"
            )


_MLIR_ONLY_FUNC_PROPERTIES = (
    "arg_attrs",
    "res_attrs",
    "workgroup_attrib_attrs",
    "private_attrib_attrs",
    "known_block_size",
    "known_grid_size",
    "known_cluster_size",
)


def _parse_func_argument(parser: Parser) -> tuple[Parser.Argument, DictionaryAttr]:
    argument = parser.parse_argument()
    attrs = parser.parse_optional_dictionary_attr_dict()
    parser.parse_optional_location()
    return argument, DictionaryAttr(attrs)


def _parse_attributions(
    parser: Parser, keyword: str, attributes: dict[str, Attribute]
) -> list[Parser.Argument]:
    """`workgroup(%a : type {attrs}?, ...)`; attributes go to `<keyword>_attrib_attrs`."""
    if parser.parse_optional_keyword(keyword) is None:
        return []
    parsed = parser.parse_comma_separated_list(
        parser.Delimiter.PAREN, lambda: _parse_func_argument(parser)
    )
    if any(attrs.data for _, attrs in parsed):
        attributes[f"{keyword}_attrib_attrs"] = ArrayAttr(attrs for _, attrs in parsed)
    return [argument for argument, _ in parsed]


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
        attribution_attrs: dict[str, Attribute] = {}
        workgroup = _parse_attributions(parser, "workgroup", attribution_attrs)
        private = _parse_attributions(parser, "private", attribution_attrs)
        props: dict[str, Attribute] = {
            "function_type": FunctionType.from_lists([a.type for a, _ in arguments], results)
        }
        if parser.parse_optional_keyword("kernel") is not None:
            props["kernel"] = UnitAttr()
        attributes = (
            dict((parser.parse_optional_attr_dict_with_keyword() or DictionaryAttr({})).data)
            | attribution_attrs
        )
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
        n_workgroup = workgroup_count(self)
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
        verify_attribution_types(arg_types[len(inputs) :], n_workgroup, "")
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
        return argument, parser.parse_operand(index)

    pairs = parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)
    if len(ids) != 3 or len(pairs) != 3:
        parser.raise_error(f"'{ids_keyword}' takes three ids and three sizes")
    return ids, [a for a, _ in pairs], [v for _, v in pairs]


LAUNCH_CONFIG_ARGUMENTS = 12
"""A `gpu.launch` body's entry arguments before its attributions (without clusters)."""


class LaunchOp(gpu.LaunchOp):
    """`gpu.launch async? [deps]? blocks(...) in (...) threads(...) in (...)
    (dynamic_shared_memory_size %s)? (workgroup(%w : t, ...))? (private(...))?
    (attributes {...})? { ... }`

    The entry block holds the 12 ids and sizes, then the workgroup attributions (their
    number is the `workgroup_attributions` attribute), then the private ones, as in
    MLIR; xDSL's verifier accepts the 12 index arguments only."""

    @classmethod
    def parse(cls, parser: Parser) -> LaunchOp:
        is_async, deps = parse_async(parser)
        if parser.parse_optional_keyword("clusters") is not None:
            parser.raise_error("gpu.launch with clusters is not supported")
        block_ids, grid_args, grid = _parse_size_assignments(parser, "blocks")
        thread_ids, block_args, block = _parse_size_assignments(parser, "threads")
        dynamic: list[SSAValue] = []
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            dynamic = [parser.parse_operand(i32)]
        for keyword in ("module", "function"):
            if parser.parse_optional_keyword(keyword) is not None:
                parser.raise_error(f"gpu.launch with '{keyword}' is not supported")
        ignored: dict[str, Attribute] = {}
        workgroup = _parse_attributions(parser, "workgroup", ignored)
        private = _parse_attributions(parser, "private", ignored)
        attributes = dict(
            (parser.parse_optional_attr_dict_with_keyword() or DictionaryAttr({})).data
        )
        if workgroup:
            attributes[WORKGROUP_ATTRIBUTIONS] = IntegerAttr(len(workgroup), 64)
        region = parser.parse_region(
            [*block_ids, *thread_ids, *grid_args, *block_args, *workgroup, *private]
        )
        attributes |= (
            parser.parse_optional_attr_dict()
        )  # MLIR prints discardable attributes after the body
        op = cls.create(
            operands=[*deps, *grid, *block, *dynamic],
            result_types=[gpu.AsyncTokenType()] if is_async else [],
            attributes=attributes,
            regions=[region],
        )
        set_segments(op, [len(deps), 1, 1, 1, 1, 1, 1, 0, 0, 0, len(dynamic)], as_property=True)
        return op

    def verify_(self) -> None:
        if not any(b.ops for b in self.body.blocks):
            raise VerifyException("gpu.launch requires a non-empty body.")
        arg_types = self.body.blocks[0].arg_types
        config = LAUNCH_CONFIG_ARGUMENTS
        if arg_types[:config] != (IndexType(),) * config:
            raise VerifyException(
                f"gpu.launch's body must start with {config} index arguments (block ids, "
                "thread ids, grid sizes, block sizes)"
            )
        verify_attribution_types(arg_types[config:], workgroup_count(self), "gpu.launch ")


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
    def parse(cls, parser: Parser) -> gpu.LaunchFuncOp:
        is_async, deps = parse_async(parser)
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
            dynamic = [parser.parse_operand(i32)]
        arguments = _parse_kernel_arguments(parser)
        op = gpu.LaunchFuncOp.create(
            operands=[*deps, *sizes, *dynamic, *arguments],
            result_types=[gpu.AsyncTokenType()] if is_async else [],
            properties={"kernel": kernel},
            attributes=parser.parse_optional_attr_dict(),
        )
        segments = [len(deps), 1, 1, 1, 1, 1, 1, 0, 0, 0, len(dynamic), len(arguments), 0]
        set_segments(op, segments, as_property=True)
        return op


_XDSL_OPS = {op.name for op in gpu.GPU.operations}
_REPLACEMENTS: dict[str, type[Operation]] = {
    op.name: op for op in (*SIMPLE_OPS, ModuleOp, FuncOp, LaunchOp, LaunchFuncOp, *WARP_OPS)
}
_NEW_OPS = [
    op for op in (DynamicSharedMemorySyntax, *LANE_OPS, *WARP_OPS) if op.name not in _XDSL_OPS
]
_NEW_ATTRIBUTES = [GpuAddressSpaceAttr, *LANE_ATTRIBUTES, *WARP_ATTRIBUTES]

MLIR_GPU = Dialect(
    "gpu",
    [*(_REPLACEMENTS.get(op.name, op) for op in gpu.GPU.operations), *_NEW_OPS],
    [
        *(a for a in gpu.GPU.attributes if a.name not in {n.name for n in _NEW_ATTRIBUTES}),
        *_NEW_ATTRIBUTES,
    ],
)
"""xDSL's `gpu` dialect with MLIR's syntax: a drop-in replacement in a `Context`."""
