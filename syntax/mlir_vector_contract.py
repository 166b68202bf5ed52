"""The `vector` reductions and contractions GPU kernels use that xDSL 0.75 does not
define: `vector.multi_reduction`, `vector.contract` (with `#vector.iterator_type`) and
`vector.outerproduct`. `multi_reduction` declares the `assemblyFormat` of MLIR 22's
VectorOps.td, which it reads and prints; MLIR parses `contract` and `outerproduct` in
C++, and so do their parsers here (they print MLIR's generic form). None touches
memory. Part of `mlir_vector`'s `MLIR_VECTOR`. Written to be proposed to xDSL
as it is.
"""

from __future__ import annotations

from typing import ClassVar

from gpu_alloc.syntax.mlir_syntax import finish_op
from xdsl.dialects import vector
from xdsl.dialects.builtin import ArrayAttr, DenseArrayBase, StringAttr, VectorType, i64
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Operation
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.str_enum import StrEnum


class IteratorType(StrEnum):
    PARALLEL = "parallel"
    REDUCTION = "reduction"


@irdl_attr_definition
class IteratorTypeAttr(EnumAttribute[IteratorType]):
    """`#vector.iterator_type<parallel|reduction>`"""

    name = "vector.iterator_type"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> IteratorType:
        # MLIR's `<$value>`: xDSL's EnumAttribute spells it by hand (as for vector.kind)
        with parser.in_angle_brackets():
            return parser.parse_str_enum(IteratorType)


@irdl_op_definition
class MultiReductionOp(IRDLOperation):
    """`%r = vector.multi_reduction <add>, %v, %acc [1] : vector<4x8xf32> to vector<4xf32>`"""

    name = "vector.multi_reduction"

    _DEST: ClassVar = VarConstraint("DEST", AnyAttr())

    source = operand_def(VectorType)
    acc = operand_def(_DEST)
    kind = prop_def(vector.CombiningKindAttr)
    reduction_dims = prop_def(DenseArrayBase.constr(i64))
    dest = result_def(_DEST)
    traits = traits_def(Pure())

    assembly_format = (  # VectorOps.td
        "$kind `,` $source `,` $acc attr-dict $reduction_dims `:` type($source) `to` type($dest)"
    )


@irdl_op_definition
class ContractOp(IRDLOperation):
    """`%r = vector.contract {indexing_maps, iterator_types, kind} %a, %b, %acc (, %ma,
    %mb)? : A, B into C`"""

    name = "vector.contract"

    lhs = operand_def(VectorType)
    rhs = operand_def(VectorType)
    acc = operand_def()
    indexing_maps = prop_def(ArrayAttr)
    iterator_types = prop_def(ArrayAttr)
    kind = opt_prop_def(vector.CombiningKindAttr)
    result = result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        # MLIR parses it in C++ (ContractionOp::parse: hasCustomAssemblyFormat)
        attributes = parser.parse_optional_attr_dict()
        iterators = attributes.get("iterator_types")
        if isinstance(iterators, ArrayAttr):
            attributes["iterator_types"] = ArrayAttr(
                IteratorTypeAttr(IteratorType(i.data)) if isinstance(i, StringAttr) else i
                for i in iterators.data
            )
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        if len(operands) != 3:
            parser.raise_error("vector.contract with masks is not supported")
        attributes |= parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        lhs_type = parser.parse_type()
        parser.parse_punctuation(",")
        rhs_type = parser.parse_type()
        parser.parse_keyword("into")
        acc_type = parser.parse_type()
        values = parser.resolve_operands(operands, [lhs_type, rhs_type, acc_type], parser.pos)
        names = ("indexing_maps", "iterator_types", "kind")
        return finish_op(cls, parser, [*values], [acc_type], names, attributes)


@irdl_op_definition
class OuterProductOp(IRDLOperation):
    """`%r = vector.outerproduct %a, %b (, %acc)? {kind}? : vector<4xf32>, vector<4xf32>`"""

    name = "vector.outerproduct"

    lhs = operand_def(VectorType)
    rhs = operand_def()
    acc = opt_operand_def(VectorType)
    kind = opt_prop_def(vector.CombiningKindAttr)
    result = result_def(VectorType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Operation:
        # MLIR parses it in C++ (OuterProductOp::parse: hasCustomAssemblyFormat)
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        lhs_type = parser.parse_type()
        parser.parse_punctuation(",")
        rhs_type = parser.parse_type()
        assert isinstance(lhs_type, VectorType)
        if isinstance(rhs_type, VectorType):
            shape = [*lhs_type.get_shape(), *rhs_type.get_shape()]
        else:
            shape = list(lhs_type.get_shape())
        result = VectorType(lhs_type.element_type, shape)
        types = [lhs_type, rhs_type, result][: len(operands)]
        values = parser.resolve_operands(operands, types, parser.pos)
        attributes.setdefault("kind", vector.CombiningKindAttr(vector.CombiningKindFlag.ADD))
        return finish_op(cls, parser, [*values], [result], ("kind",), attributes)


CONTRACTION_OPS = (MultiReductionOp, ContractOp, OuterProductOp)
