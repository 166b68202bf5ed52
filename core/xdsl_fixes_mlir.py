"""Workarounds for xDSL 0.75 gaps that stop it reading what `mlir-opt-22` reads.

Like `xdsl_fixes` (which installs these from its `apply()`), each fix is one small
function patching xDSL in place, written so that it could be proposed upstream as is:

1. Semi-affine maps. MLIR allows multiplying, dividing and taking the remainder by a
   symbolic expression (`(d0)[s0] -> (d0 ceildiv s0)`, `d0 * s0`); xDSL raises
   NotImplementedError while parsing. The patched operators build the expression (no
   simplification), as MLIR's parser does.
2. Vectors of `i1` and of `index` in `arith`. `arith.cmpi`/`cmpf` on vectors give a
   vector of `i1`, `arith.select` may take one as its condition, and
   `arith.index_cast` casts vectors of `index`; xDSL's constraints accept
   scalars only. They now accept the vector forms too, with MLIR's shape rules checked
   by the verifiers that follow.
3. `arith.cmpi "slt", ...`: MLIR's parser accepts the predicate as a string literal too.
4. `gpu.memcpy` between `memref<?xf32>` and `memref<65536xf32>`: MLIR requires the
   same element type and compatible shapes; xDSL required equal types.
5. An unregistered attribute written with an empty body, `#foo.bar<>`, printed back as
   `#foo.bar` (which is a different attribute to MLIR); it now prints `#foo.bar< >`.
6. An input without ops (empty, only comments or aliases) is an empty module to MLIR;
   xDSL refused it ("Could not parse entire input!").
"""

from __future__ import annotations

from typing import Any

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerType,
    MemRefType,
    VectorType,
    i1,
)
from xdsl.ir import Attribute
from xdsl.irdl import OperandDef, ResultDef, base
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind


def fix_semi_affine_maps() -> None:
    from xdsl.ir.affine.affine_expr import (
        AffineBinaryOpExpr,
        AffineBinaryOpKind,
        AffineDimExpr,
        AffineExpr,
    )

    def symbolic(expr: AffineExpr) -> bool:
        return not any(isinstance(e, AffineDimExpr) for e in expr.dfs())

    def wrap(name: str, kind: AffineBinaryOpKind, swap_constant: bool = False) -> None:
        original = getattr(AffineExpr, name)

        def operator(self: AffineExpr, other: AffineExpr | int) -> AffineExpr:
            try:
                return original(self, other)
            except NotImplementedError:
                if isinstance(other, int) or not symbolic(other):
                    if not (swap_constant and symbolic(self)):
                        raise
                    return AffineBinaryOpExpr(kind, other, self)  # pyright: ignore[reportArgumentType]
                return AffineBinaryOpExpr(kind, self, other)

        setattr(AffineExpr, name, operator)

    wrap("__mul__", AffineBinaryOpKind.Mul, swap_constant=True)
    wrap("__floordiv__", AffineBinaryOpKind.FloorDiv)
    wrap("ceil_div", AffineBinaryOpKind.CeilDiv)
    wrap("__mod__", AffineBinaryOpKind.Mod)


def _loosen(op: Any, position: int, kind: str, constraint: Any) -> None:
    """Replaces the constraint of operand/result `position` of an IRDL op definition."""
    definition = op.get_irdl_definition()
    entries = definition.operands if kind == "operand" else definition.results
    name, _ = entries[position]
    entries[position] = (name, (OperandDef if kind == "operand" else ResultDef)(constraint))


def _same_shape_i1(operand: Attribute) -> Attribute:
    if isinstance(operand, VectorType):
        return VectorType(i1, operand.get_shape(), operand.scalable_dims)
    return i1


def fix_vector_predicates() -> None:
    from xdsl.dialects import arith

    bool_like = base(IntegerType) | base(VectorType)
    _loosen(arith.SelectOp, 0, "operand", bool_like)
    for cmp in (arith.CmpiOp, arith.CmpfOp):
        _loosen(cmp, 0, "result", bool_like)
        _patch_comparison(cmp)

    _fix_select_syntax()
    original_select_verify = arith.SelectOp.verify_

    def select_verify(self: arith.SelectOp) -> None:
        original_select_verify(self)
        cond = self.cond.type
        if cond != i1 and cond != _same_shape_i1(self.lhs.type):
            raise VerifyException(f"arith.select: condition {cond} for {self.lhs.type}")

    arith.SelectOp.verify_ = select_verify


def _fix_select_syntax() -> None:
    """`arith.select %c, %a, %b : T`, or `: vector<4xi1>, vector<4xT>` with a vector
    condition, as MLIR writes both."""
    from xdsl.dialects import arith
    from xdsl.printer import Printer

    def parse(cls: type[arith.SelectOp], parser: Parser) -> arith.SelectOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        if len(operands) != 3 or len(types) not in (1, 2):
            parser.raise_error("expected `%cond, %true, %false : (cond-type,)? type`")
        cond_type, value_type = (i1, types[0]) if len(types) == 1 else types
        values = parser.resolve_operands(operands, [cond_type, value_type, value_type], parser.pos)
        op = arith.SelectOp(*values)
        op.attributes |= attributes
        return op

    def print(self: arith.SelectOp, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        if self.cond.type != i1:
            printer.print_attribute(self.cond.type)
            printer.print_string(", ")
        printer.print_attribute(self.result.type)

    arith.SelectOp.parse = classmethod(parse)  # pyright: ignore[reportAttributeAccessIssue]
    arith.SelectOp.print = print


def _patch_comparison(cls: Any) -> None:
    """`arith.cmpi PRED, %a, %b attr-dict : T` with PRED an identifier or a string, and a
    vector of `i1` as the result on vectors."""
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr

    def parse(cls_: Any, parser: Parser) -> Any:
        if parser._current_token.kind is MLIRTokenKind.STRING_LIT:  # pyright: ignore[reportPrivateUsage]
            predicate = parser.parse_str_literal()
        else:
            predicate = parser.parse_identifier()
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        properties: dict[str, Attribute] = {}
        if cls_ is arith.CmpfOp:
            properties["fastmath"] = arith.FastMathFlagsAttr("none")
            if parser.parse_optional_keyword("fastmath"):
                flags = arith.FastMathFlagsAttr.parse_parameter(parser)
                properties["fastmath"] = arith.FastMathFlagsAttr(flags)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        operand_type = parser.parse_type()
        values = parser.resolve_operands([lhs, rhs], [operand_type] * 2, parser.pos)
        names = PREDICATES[cls_.name]
        if predicate not in names:
            parser.raise_error(f"unknown {cls_.name} predicate '{predicate}'")
        properties["predicate"] = IntegerAttr(names.index(predicate), 64)
        return cls_.create(
            operands=values,
            result_types=[_same_shape_i1(operand_type)],
            properties=properties,
            attributes=attributes,
        )

    cls.parse = classmethod(parse)
    original_verify = cls.verify_

    def verify(self: Any) -> None:
        original_verify(self)
        if self.result.type != _same_shape_i1(self.lhs.type):
            raise VerifyException(f"{self.name}: result {self.result.type} for {self.lhs.type}")

    cls.verify_ = verify


PREDICATES = {
    "arith.cmpi": "eq ne slt sle sgt sge ult ule ugt uge".split(),
    "arith.cmpf": ("false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true".split()),
}
"""MLIR's `arith::CmpIPredicate` and `CmpFPredicate`, in the order of their numbers."""


def fix_vector_index_casts() -> None:
    from xdsl.dialects import arith

    integer_like = base(IntegerType) | base(IndexType) | base(VectorType)
    for cast in (arith.IndexCastOp,):
        _loosen(cast, 0, "operand", integer_like)
        _loosen(cast, 0, "result", integer_like)
        original_verify = cast.verify_

        def verify(self: Any, _original: Any = original_verify) -> None:
            source, result = self.input.type, self.result.type
            if isinstance(source, VectorType) or isinstance(result, VectorType):
                if not (isinstance(source, VectorType) and isinstance(result, VectorType)):
                    raise VerifyException(
                        f"{self.name}: {source} and {result} are not both vectors"
                    )
                if source.get_shape() != result.get_shape():
                    raise VerifyException(f"{self.name}: {source} and {result} differ in shape")
                if isinstance(source.element_type, IndexType) == isinstance(
                    result.element_type, IndexType
                ):
                    raise VerifyException(f"{self.name}: exactly one side must hold index")
                return
            _original(self)

        cast.verify_ = verify


def fix_gpu_memcpy_shapes() -> None:
    from xdsl.dialects import gpu

    def verify_(self: gpu.MemcpyOp) -> None:
        src, dst = self.src.type, self.dst.type
        if not (isinstance(src, MemRefType) and isinstance(dst, MemRefType)):
            raise VerifyException("gpu.memcpy copies between memrefs")
        if src.element_type != dst.element_type:
            raise VerifyException("gpu.memcpy: arguments have incompatible element types")
        shapes = (src.get_shape(), dst.get_shape())
        if len(shapes[0]) != len(shapes[1]) or any(
            a != b and DYNAMIC_INDEX not in (a, b) for a, b in zip(*shapes, strict=True)
        ):
            raise VerifyException("gpu.memcpy: arguments have incompatible shapes")

    gpu.MemcpyOp.verify_ = verify_


def fix_empty_unregistered_bodies() -> None:
    from xdsl.parser import AttrParser

    original = AttrParser._parse_dialect_type_or_attribute_body  # pyright: ignore[reportPrivateUsage]

    def parse_body(self: AttrParser, name: str, is_type: bool, is_opaque: bool, pos: Any) -> Any:
        from xdsl.dialects.builtin import UnregisteredAttr

        bracketed = self._current_token.kind is MLIRTokenKind.LESS  # pyright: ignore[reportPrivateUsage]
        attr = original(self, name, is_type, is_opaque, pos)
        if isinstance(attr, UnregisteredAttr) and bracketed and not attr.value.data:
            return type(attr)(attr.attr_name, attr.is_type, attr.is_opaque, " ")
        return attr

    AttrParser._parse_dialect_type_or_attribute_body = parse_body  # pyright: ignore[reportPrivateUsage, reportAttributeAccessIssue]


def fix_empty_module() -> None:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.utils.exceptions import ParseError

    original = Parser.parse_module

    def parse_module(self: Parser, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return original(self, allow_implicit_module)
        except ParseError as error:
            at_end = self._current_token.kind is MLIRTokenKind.EOF  # pyright: ignore[reportPrivateUsage]
            if at_end and allow_implicit_module and error.msg == "Could not parse entire input!":
                return ModuleOp([])
            raise

    Parser.parse_module = parse_module


def apply() -> None:
    fix_semi_affine_maps()
    fix_vector_predicates()
    fix_vector_index_casts()
    fix_gpu_memcpy_shapes()
    fix_empty_unregistered_bodies()
    fix_empty_module()
