"""The `vector` ops GPU kernels use that xDSL 0.75 does not define.

IREE's and IMEX's kernels reshape and reduce vectors with `vector.shape_cast`,
`transpose`, `extract_strided_slice`, `insert_strided_slice`, `step`,
`multi_reduction`, `from_elements`, `to_elements`, `constant_mask`, `interleave`,
`deinterleave`, `contract`, `outerproduct`, and touch memory with `vector.gather` and
`vector.scatter`. This module adds them with MLIR's custom syntax (VectorOps.td in
MLIR 22) and prints MLIR's generic form; the reductions and contractions are in
`mlir_vector_contract`. Only `gather` (reads its base) and `scatter`
(writes it) touch a memref (`transforms/memory_effects.py`). `MLIR_VECTOR` is xDSL's
`vector` with these. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc.dialect.mlir_syntax import finish_op, parse_i64_array, parse_index_list
from gpu_alloc.dialect.mlir_vector_contract import CONTRACTION_OPS, IteratorTypeAttr
from gpu_alloc.xdsl_fixes import PrintOp, PrintPunctuationAttr
from xdsl.dialects import vector
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IndexType,
    MemRefType,
    VectorType,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.traits import Pure

_INDEX = IndexType()


def _unary(
    cls: type[IRDLOperation], parser: Parser, *, between: Callable[[], dict[str, Attribute]]
) -> Operation:
    """`%source (extras) attr-dict : type to type`"""
    source = parser.parse_unresolved_operand()
    properties = between()
    attributes = parser.parse_optional_attr_dict() | properties
    parser.parse_punctuation(":")
    source_value = parser.resolve_operand(source, parser.parse_type())
    parser.parse_keyword("to")
    names = tuple(properties) + tuple(n for n in ("offsets", "sizes", "strides") if n in attributes)
    return finish_op(cls, parser, [source_value], [parser.parse_type()], names, attributes)


@irdl_op_definition
class ShapeCastOp(IRDLOperation):
    """`%r = vector.shape_cast %v : vector<4x8xf32> to vector<32xf32>`"""

    name = "vector.shape_cast"

    source = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"  # VectorOps.td


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`%r = vector.transpose %v, [1, 0] : vector<4x8xf32> to vector<8x4xf32>`"""

    name = "vector.transpose"

    vector = operand_def(VectorType)
    permutation = prop_def(DenseArrayBase)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        def permutation() -> dict[str, Attribute]:
            parser.parse_punctuation(",")
            return {"permutation": parse_i64_array(parser)}

        return _unary(cls, parser, between=permutation)


@irdl_op_definition
class ExtractStridedSliceOp(IRDLOperation):
    """`%r = vector.extract_strided_slice %v {offsets, sizes, strides} : T to T`"""

    name = "vector.extract_strided_slice"

    source = operand_def(VectorType)
    offsets = prop_def(ArrayAttr)
    sizes = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = "$source attr-dict `:` type($source) `to` type($result)"  # VectorOps.td


@irdl_op_definition
class InsertStridedSliceOp(IRDLOperation):
    """`%r = vector.insert_strided_slice %s, %d {offsets, strides} : T into T`"""

    name = "vector.insert_strided_slice"

    valueToStore = operand_def(VectorType)
    dest = operand_def(VectorType)
    offsets = prop_def(ArrayAttr)
    strides = prop_def(ArrayAttr)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dest = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_keyword("into")
        dest_type = parser.parse_type()
        dest_value = parser.resolve_operand(dest, dest_type)
        return finish_op(
            cls, parser, [source_value, dest_value], [dest_type], ("offsets", "strides"), attributes
        )


@irdl_op_definition
class StepOp(IRDLOperation):
    """`%r = vector.step : vector<4xindex>`: [0, 1, 2, 3]."""

    name = "vector.step"

    result = result_def(VectorType)
    traits = traits_def(Pure())

    assembly_format = "attr-dict `:` type($result)"  # VectorOps.td


@irdl_op_definition
class FromElementsOp(IRDLOperation):
    """`%v = vector.from_elements %a, %b : vector<2xf32>`"""

    name = "vector.from_elements"

    elements = var_operand_def()
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        elements = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result = parser.parse_type()
        assert isinstance(result, VectorType)
        values = [parser.resolve_operand(e, result.element_type) for e in elements]
        return finish_op(cls, parser, [*values], [result], (), attributes)


@irdl_op_definition
class ToElementsOp(IRDLOperation):
    """`%a:N = vector.to_elements %v : vector<Nxf32>`"""

    name = "vector.to_elements"

    source = operand_def(VectorType)
    elements = var_result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        source = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        if not isinstance(source_type, VectorType):
            parser.raise_error("vector.to_elements takes a vector")
        count = 1
        for dim in source_type.get_shape():
            count *= dim
        value = parser.resolve_operand(source, source_type)
        results = [source_type.element_type] * count
        return finish_op(cls, parser, [value], results, (), attributes)


@irdl_op_definition
class ConstantMaskOp(IRDLOperation):
    """`%m = vector.constant_mask [2] : vector<4xi1>`"""

    name = "vector.constant_mask"

    mask_dim_sizes = prop_def(DenseArrayBase)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        # MLIR's `$mask_dim_sizes` is a bare `[2]`; xDSL's formats spell `array<i64: 2>`
        sizes = parse_i64_array(parser)
        attributes = parser.parse_optional_attr_dict() | {"mask_dim_sizes": sizes}
        parser.parse_punctuation(":")
        return finish_op(cls, parser, [], [parser.parse_type()], ("mask_dim_sizes",), attributes)


def _parse_gather_like(
    parser: Parser, with_result: bool
) -> tuple[list[SSAValue], list[Attribute], dict[str, Attribute]]:
    """`%base[%i...] [%indices], %mask, %value : memref, index-vec, mask-vec, vec (into vec)?`"""
    base = parser.parse_unresolved_operand()
    offsets = parse_index_list(parser)
    parser.parse_punctuation("[")
    indices = parser.parse_unresolved_operand()
    parser.parse_punctuation("]")
    rest: list[UnresolvedOperand] = [indices]
    for _ in range(2):
        parser.parse_punctuation(",")
        rest.append(parser.parse_unresolved_operand())
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
    results: list[Attribute] = []
    if with_result:
        parser.parse_keyword("into")
        results = [parser.parse_type()]
    if len(types) != 4:
        parser.raise_error("expected the base, index, mask and value types")
    base_value = parser.resolve_operand(base, types[0])
    values = [parser.resolve_operand(v, t) for v, t in zip(rest, types[1:], strict=True)]
    return [base_value, *offsets, *values], results, attributes


@irdl_op_definition
class GatherOp(IRDLOperation):
    """`%r = vector.gather %base[%i] [%idx], %mask, %pass : memref, vec, vec, vec into vec`:
    reads `base[i + idx[k]]` where `mask[k]`."""

    name = "vector.gather"

    base = operand_def(MemRefType)
    offsets = var_operand_def(IndexType)
    indices = operand_def(VectorType)
    mask = operand_def(VectorType)
    pass_thru = operand_def(VectorType)
    alignment = opt_prop_def(Attribute)
    result = result_def(VectorType)

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        operands, results, attributes = _parse_gather_like(parser, True)
        return finish_op(cls, parser, operands, results, ("alignment",), attributes)


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """`vector.scatter %base[%i] [%idx], %mask, %value : memref, vec, vec, vec`: writes
    `base[i + idx[k]]` where `mask[k]`."""

    name = "vector.scatter"

    base = operand_def(MemRefType)
    offsets = var_operand_def(IndexType)
    indices = operand_def(VectorType)
    mask = operand_def(VectorType)
    valueToStore = operand_def(VectorType)
    alignment = opt_prop_def(Attribute)

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        operands, _, attributes = _parse_gather_like(parser, False)
        return finish_op(cls, parser, operands, [], ("alignment",), attributes)


@irdl_op_definition
class InterleaveOp(IRDLOperation):
    """`%r = vector.interleave %a, %b : vector<4xf32> -> vector<8xf32>`"""

    name = "vector.interleave"

    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_punctuation("->")
        result = parser.parse_type()
        values = parser.resolve_operands([lhs, rhs], [source_type] * 2, parser.pos)
        return finish_op(cls, parser, [*values], [result], (), attributes)


@irdl_op_definition
class DeinterleaveOp(IRDLOperation):
    """`%a, %b = vector.deinterleave %v : vector<8xf32> -> vector<4xf32>`"""

    name = "vector.deinterleave"

    source = operand_def(VectorType)
    res1 = result_def(VectorType)
    res2 = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        source = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_punctuation("->")
        result = parser.parse_type()
        return finish_op(cls, parser, [value], [result, result], (), attributes)


NEW_OPS = (
    ShapeCastOp,
    TransposeOp,
    ExtractStridedSliceOp,
    InsertStridedSliceOp,
    StepOp,
    FromElementsOp,
    ToElementsOp,
    ConstantMaskOp,
    GatherOp,
    ScatterOp,
    InterleaveOp,
    DeinterleaveOp,
    *CONTRACTION_OPS,
)

MLIR_VECTOR = Dialect(
    "vector",
    [
        *(PrintOp if op is vector.PrintOp else op for op in vector.Vector.operations),
        *NEW_OPS,
    ],
    [*vector.Vector.attributes, IteratorTypeAttr, PrintPunctuationAttr],
)
"""xDSL's `vector` dialect with the ops above, and `vector.print` as MLIR defines it (in
place of xDSL 0.75's, which reads nothing MLIR prints: docs/xdsl-upstream.md)."""
