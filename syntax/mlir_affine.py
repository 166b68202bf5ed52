"""The `affine` ops GPU kernels use that xDSL 0.75 lacks or reads in generic form only.

IREE computes tile sizes and thread indices with `affine.max`,
`affine.delinearize_index` and `affine.linearize_index`, and guards tiles with
`affine.if`. This module adds them with MLIR's custom syntax (AffineOps.td in MLIR 22):
the index (de)linearizations declare AffineOps.td's `assemblyFormat` (and print it);
`affine.max` and `affine.if`, which MLIR parses in C++, are read by hand and print
MLIR's generic form:

    %m = affine.max affine_map<(d0) -> (16, -d0 + 100)>(%i)
    %q:2 = affine.delinearize_index %i into (%n, 32) : index, index
    %l = affine.linearize_index disjoint [%i, %j] by (4, 32) : index
    affine.if affine_set<(d0) : (d0 - 10 >= 0)>(%i) { ... } else { ... }

The bases of `delinearize_index`/`linearize_index` are MLIR's mixed static/dynamic
lists (`static_basis`, `DYNAMIC` where an operand gives the value). `MLIR_AFFINE` is
xDSL's `affine` with these. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from gpu_alloc.syntax.mlir_directives import ParenDynamicIndexList, UnitProperty
from xdsl.dialects import affine
from xdsl.dialects.builtin import (
    AffineMapAttr,
    AffineSetAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

DYNAMIC = -(2**63)
"""MLIR's `ShapedType::kDynamic`: the basis element is an operand."""

_INDEX = IndexType()


@irdl_op_definition
class MaxOp(IRDLOperation):
    """`%r = affine.max #map(%dims)[%symbols]`: the largest result of the map."""

    name = "affine.max"

    arguments = var_operand_def(IndexType)
    map = prop_def(AffineMapAttr)
    result = result_def(IndexType)

    traits = traits_def(Pure())

    def __init__(self, operands: list[SSAValue], map_attr: AffineMapAttr):
        super().__init__(operands=[operands], properties={"map": map_attr}, result_types=[_INDEX])

    def verify_(self) -> None:
        data = self.map.data
        if len(self.arguments) != data.num_dims + data.num_symbols:
            raise VerifyException("affine.max: one operand per dimension and symbol of the map")

    @classmethod
    def parse(cls, parser: Parser) -> MaxOp:  # MLIR: parseAffineMinMaxOp (C++)
        at = parser.pos  # `#map(%d0, ...)[%s0, ...]`
        map_attr = parser.parse_attribute()
        if not isinstance(map_attr, AffineMapAttr):
            parser.raise_error("expected an affine map", at, parser.pos)
        index = lambda: parser.parse_operand(_INDEX)  # noqa: E731
        dims = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, index)
        symbols = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, index)
        op = cls([*(dims or []), *(symbols or [])], map_attr)
        op.attributes |= parser.parse_optional_attr_dict()
        return op


@irdl_op_definition
class DelinearizeIndexOp(IRDLOperation):
    """`%q:N = affine.delinearize_index %i into (basis) : index, ...`"""

    name = "affine.delinearize_index"

    linear_index = operand_def(IndexType)
    dynamic_basis = var_operand_def(IndexType)
    static_basis = prop_def(DenseArrayBase.constr(i64))
    multi_index = var_result_def(IndexType)

    traits = traits_def(Pure())

    custom_directives = (ParenDynamicIndexList,)
    assembly_format = (  # AffineOps.td
        "$linear_index `into` custom<ParenDynamicIndexList>($dynamic_basis, $static_basis) "
        "attr-dict `:` type($multi_index)"
    )


@irdl_op_definition
class LinearizeIndexOp(IRDLOperation):
    """`%l = affine.linearize_index (disjoint)? [%i, %j] by (basis) : index`"""

    name = "affine.linearize_index"

    multi_index = var_operand_def(IndexType)
    dynamic_basis = var_operand_def(IndexType)
    static_basis = prop_def(DenseArrayBase.constr(i64))
    disjoint = opt_prop_def(base(UnitAttr) | base(IntegerAttr))
    """Set (`disjoint`, or `disjoint = true` in generic form) if the indices are in range."""
    linear_index = result_def(IndexType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    traits = traits_def(Pure())

    custom_directives = (ParenDynamicIndexList, UnitProperty)
    assembly_format = (  # AffineOps.td
        "(`disjoint` custom<UnitProperty>($disjoint)^)? ` ` `[` $multi_index `]` `by` "
        "custom<ParenDynamicIndexList>($dynamic_basis, $static_basis) "
        "attr-dict `:` type($linear_index)"
    )


class IfOp(affine.IfOp):
    """`(%r =)? affine.if #set(%dims)[%symbols] (-> types)? { ... } (else { ... })?`

    A plain subclass that only parses; the op it makes is xDSL's own. An `affine.yield`
    without values may be left out, as in MLIR."""

    @classmethod
    def parse(cls, parser: Parser) -> affine.IfOp:  # MLIR: AffineIfOp::parse (C++)
        at = parser.pos
        condition = parser.parse_attribute()
        if not isinstance(condition, AffineSetAttr):
            parser.raise_error("expected an integer set", at, parser.pos)
        index = lambda: parser.parse_operand(_INDEX)  # noqa: E731
        dims = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, index)
        symbols = parser.parse_optional_comma_separated_list(parser.Delimiter.SQUARE, index)
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            types = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            results = [*types] if types is not None else [parser.parse_type()]
        then_region = parser.parse_region()
        else_region = parser.parse_region() if parser.parse_optional_keyword("else") else None
        regions = [then_region, else_region] if else_region is not None else [then_region]
        for region in regions:
            if not region.blocks:
                region.add_block(Block())
            block = region.block
            if not block.ops or not isinstance(block.last_op, affine.YieldOp):
                block.add_op(affine.YieldOp.get())
        op = affine.IfOp.create(
            operands=[*(dims or []), *(symbols or [])],
            result_types=results,
            properties={"condition": condition},
            regions=[then_region, else_region or Region()],
        )
        op.attributes |= parser.parse_optional_attr_dict()
        return op


_REPLACEMENTS: dict[str, type[Operation]] = {IfOp.name: IfOp}

MLIR_AFFINE = Dialect(
    "affine",
    [
        *(_REPLACEMENTS.get(op.name, op) for op in affine.Affine.operations),
        MaxOp,
        DelinearizeIndexOp,
        LinearizeIndexOp,
    ],
    list(affine.Affine.attributes),
)
"""xDSL's `affine` with `affine.max`, the index (de)linearizations and MLIR's
`affine.if` syntax."""
