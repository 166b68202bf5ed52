"""`scf.forall`, `scf.forall.in_parallel` and the custom form of `scf.parallel`.

xDSL 0.75 has no `scf.forall` (the op IREE and the transform dialect distribute work
with) and reads `scf.parallel` in generic form only. This module adds both with MLIR's
custom syntax (SCFOps.td in MLIR 22) and prints MLIR's generic form:

    scf.forall (%i, %j) in (4, %n) { ... } {mapping = [#gpu.thread<y>, #gpu.thread<x>]}
    scf.forall (%i) = (%lb) to (%ub) step (%s) shared_outs(%o = %t) -> (tensor<...>) {...}
    scf.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) init (%x) -> f32 { ... }

`scf.forall`'s bounds are MLIR's mixed static/dynamic lists: `staticLowerBound` etc.
hold the constants, with `DYNAMIC` where the operand list supplies the value
(`ForallOp.bounds`). `MLIR_SCF` is xDSL's `scf` with these. Written to be proposed to
xDSL as it is.
"""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, IndexType, i32, i64
from xdsl.dialects.utils.dynamic_index_list import parse_dynamic_index_list_without_types
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    lazy_traits_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.traits import (
    IsTerminator,
    NoTerminator,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

DYNAMIC = -(2**63)
"""MLIR's `ShapedType::kDynamic`: the bound is an operand."""

_INDEX = IndexType()


@irdl_op_definition
class InParallelOp(IRDLOperation):
    """`scf.forall.in_parallel { ... }`: the terminator of `scf.forall`, holding the
    parallel inserts into its shared outputs (none on memrefs)."""

    name = "scf.forall.in_parallel"

    region = region_def("single_block")

    traits = traits_def(IsTerminator(), NoTerminator())

    @classmethod
    def parse(cls, parser: Parser) -> InParallelOp:  # MLIR: InParallelOp::parse (C++)
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls.create(regions=[region])
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class ForallOp(IRDLOperation):
    """`scf.forall`: a parallel loop nest; each iteration runs once, in any order."""

    name = "scf.forall"

    dynamicLowerBound = var_operand_def(IndexType)
    dynamicUpperBound = var_operand_def(IndexType)
    dynamicStep = var_operand_def(IndexType)
    outputs = var_operand_def()
    staticLowerBound = prop_def(DenseArrayBase.constr(i64))
    staticUpperBound = prop_def(DenseArrayBase.constr(i64))
    staticStep = prop_def(DenseArrayBase.constr(i64))
    mapping = opt_prop_def(ArrayAttr)
    tensor_results = var_result_def()
    """One per shared output (MLIR's `$results`, a name `Operation` already has)."""
    body = region_def("single_block")

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = lazy_traits_def(
        lambda: (SingleBlockImplicitTerminator(InParallelOp), RecursiveMemoryEffect())
    )

    def bounds(self) -> list[tuple[SSAValue | int, SSAValue | int, SSAValue | int]]:
        """(lower bound, upper bound, step) per induction variable, each a constant or
        an operand."""
        columns = []
        for static, dynamic in (
            (self.staticLowerBound, self.dynamicLowerBound),
            (self.staticUpperBound, self.dynamicUpperBound),
            (self.staticStep, self.dynamicStep),
        ):
            values = iter(dynamic)
            column: list[SSAValue | int] = [
                next(values) if v == DYNAMIC else v for v in static.get_values()
            ]
            columns.append(column)
        return list(zip(*columns, strict=True))

    def verify_(self) -> None:
        rank = len(self.staticUpperBound.get_values())
        for name, static, dynamic in (
            ("lower bound", self.staticLowerBound, self.dynamicLowerBound),
            ("upper bound", self.staticUpperBound, self.dynamicUpperBound),
            ("step", self.staticStep, self.dynamicStep),
        ):
            values = static.get_values()
            if len(values) != rank or sum(v == DYNAMIC for v in values) != len(dynamic):
                raise VerifyException(f"scf.forall: inconsistent {name}s")
        args = self.body.block.args
        if len(args) != rank + len(self.outputs):
            raise VerifyException("scf.forall: one block argument per loop and output")

    @classmethod
    def parse(cls, parser: Parser) -> ForallOp:  # MLIR: ForallOp::parse (C++)
        paren = parser.Delimiter.PAREN
        ivs = parser.parse_comma_separated_list(
            paren, lambda: parser.parse_argument(expect_type=False)
        )
        mixed = lambda: parse_dynamic_index_list_without_types(  # noqa: E731
            parser, DYNAMIC, delimiter=paren
        )
        none: list[UnresolvedOperand] = []
        lower, steps = (none, [0] * len(ivs)), (none, [1] * len(ivs))
        if parser.parse_optional_keyword("in") is not None:
            upper = mixed()
        else:
            parser.parse_punctuation("=")
            lower = mixed()
            parser.parse_keyword("to")
            upper = mixed()
            parser.parse_keyword("step")
            steps = mixed()
        outputs: list[tuple[Parser.UnresolvedArgument, object, UnresolvedOperand]] = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("shared_outs") is not None:
            outputs = parser.parse_comma_separated_list(  # `%arg = %value`
                paren,
                lambda: (
                    parser.parse_argument(expect_type=False),
                    parser.parse_punctuation("="),
                    parser.parse_unresolved_operand(),
                ),
            )
            parser.parse_punctuation("->")
            at = parser.pos
            types = parser.parse_comma_separated_list(paren, parser.parse_type)
            if len(types) != len(outputs):
                parser.raise_error("scf.forall: one type per shared output", at, parser.pos)
        properties: dict[str, Attribute] = {}
        operands: list[SSAValue] = []
        for key, (dynamic, static) in zip(
            ("staticLowerBound", "staticUpperBound", "staticStep"),
            (lower, upper, steps),
            strict=True,
        ):
            properties[key] = DenseArrayBase.from_list(i64, static)
            operands += parser.resolve_operands(dynamic, [_INDEX] * len(dynamic), parser.pos)
        segments = [len(lower[0]), len(upper[0]), len(steps[0]), len(outputs)]
        properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, segments)
        operands += [
            parser.resolve_operand(v, t) for (_, _, v), t in zip(outputs, types, strict=True)
        ]
        args = [iv.resolve(_INDEX) for iv in ivs]
        args += [arg.resolve(t) for (arg, _, _), t in zip(outputs, types, strict=True)]
        region = parser.parse_region(args)
        block = region.block
        if not block.ops or not isinstance(block.last_op, InParallelOp):
            block.add_op(InParallelOp.create(regions=[Region(Block())]))
        attributes = parser.parse_optional_attr_dict()
        if "mapping" in attributes:
            properties["mapping"] = attributes.pop("mapping")
        return cls.create(
            operands=operands,
            result_types=types,
            properties=properties,
            attributes=attributes,
            regions=[region],
        )


class ParallelOp(scf.ParallelOp):
    """`scf.parallel (%i, ...) = (lbs) to (ubs) step (steps) (init (%x, ...) -> types)?
    region attr-dict`; the region's `scf.reduce` may be left implicit. A plain subclass
    that only parses: the op it makes is xDSL's own."""

    @classmethod
    def parse(cls, parser: Parser) -> scf.ParallelOp:  # MLIR: ParallelOp::parse (C++)
        ivs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_punctuation("=")
        index_list = lambda: parser.parse_comma_separated_list(  # noqa: E731
            parser.Delimiter.PAREN, lambda: parser.parse_operand(_INDEX)
        )
        lower = index_list()
        parser.parse_keyword("to")
        upper = index_list()
        parser.parse_keyword("step")
        steps = index_list()
        inits: list[SSAValue] = []
        if parser.parse_optional_keyword("init") is not None:
            unresolved = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
            parser.parse_punctuation("->")
            types = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            ) or [parser.parse_type()]
            inits = [*parser.resolve_operands(unresolved, types, parser.pos)]
        region = parser.parse_region([iv.resolve(_INDEX) for iv in ivs])
        block = region.block
        if not block.ops or not isinstance(block.last_op, scf.ReduceOp):
            block.add_op(scf.ReduceOp())
        op = scf.ParallelOp(lower, upper, steps, region, inits)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


_REPLACEMENTS: dict[str, type[Operation]] = {ParallelOp.name: ParallelOp}

MLIR_SCF = Dialect(
    "scf",
    [*(_REPLACEMENTS.get(op.name, op) for op in scf.Scf.operations), ForallOp, InParallelOp],
    list(scf.Scf.attributes),
)
"""xDSL's `scf` dialect with `scf.forall` and MLIR's `scf.parallel` syntax."""
