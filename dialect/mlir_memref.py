"""MLIR's custom syntax for the `memref` ops xDSL 0.75 reads in generic form only, and
`memref.transpose`, which it lacks.

Declared (`mlir_syntax.with_declared_syntax`, the `assemblyFormat` of MLIR's
MemRefOps.td): `cast`, `memory_space_cast`, `copy`, `extract_aligned_pointer_as_index`.
Parsed by hand: `memref.global` (MLIR's format uses the C++ directive
`custom<GlobalMemrefOpTypeAndInitialValue>`), `memref.transpose` (MLIR parses it in C++)
and `atomic_rmw` (its `$kind` is an MLIR enum keyword; xDSL's op stores it as an integer,
which a declared format cannot spell).

    memref.global "private" constant @name : memref<4xf32, 3> = dense<0.0> {alignment = 16 : i64}
    memref.global @workspace : memref<32xf32, #gpu.address_space<workgroup>> = uninitialized

`MLIR_MEMREF` is xDSL's `memref` dialect with these ops; the printed form stays xDSL's
generic one (which `mlir-opt` reads). Kept in one module to propose upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from gpu_alloc.dialect.mlir_syntax import with_declared_syntax, with_parser
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.parser import Parser
from xdsl.utils.lexer import Span
from xdsl.utils.mlir_lexer import MLIRTokenKind

_Op = TypeVar("_Op", bound=Operation)


class GlobalOp(memref.GlobalOp):
    """`memref.global ("visibility")? constant? @name : type (= initial-value)? attr-dict`

    A global without `= ...` is an external declaration; its initial value is `unit`,
    as for `uninitialized` (xDSL requires the property). A plain subclass: xDSL cannot
    re-define a defined op, and the generic form is xDSL's."""

    @classmethod
    def parse(cls, parser: Parser) -> memref.GlobalOp:
        visibility = parser.parse_optional_str_literal() or "public"
        props: dict[str, Attribute] = {"sym_visibility": StringAttr(visibility)}
        if parser.parse_optional_keyword("constant") is not None:
            props["constant"] = UnitAttr()
        props["sym_name"] = parser.parse_symbol_name()
        parser.parse_punctuation(":")
        props["type"] = parser.parse_type()
        props["initial_value"] = UnitAttr()
        if parser.parse_optional_punctuation("=") is not None:
            if parser.parse_optional_keyword("dense") is not None:
                # MLIR omits the literal's type: the memref's shape as a tensor
                memref_type = props["type"]
                assert isinstance(memref_type, MemRefType)
                tensor = TensorType(memref_type.element_type, memref_type.get_shape())
                props["initial_value"] = parser.parse_dense_int_or_fp_elements_attr(tensor)  # pyright: ignore[reportArgumentType]
            elif parser.parse_optional_keyword("uninitialized") is None:
                props["initial_value"] = parser.parse_attribute()
        attributes = parser.parse_optional_attr_dict()
        if "alignment" in attributes:
            props["alignment"] = attributes.pop("alignment")
        return cls.create(properties=props, attributes=attributes)

    @classmethod
    def create(cls, *, properties: Mapping[str, Attribute] = {}, **kwargs: Any) -> memref.GlobalOp:
        """MLIR's generic form omits `initial_value` of a declaration and the visibility of
        a public global; xDSL requires both."""
        properties = dict(properties)
        properties.setdefault("initial_value", UnitAttr())
        properties.setdefault("sym_visibility", StringAttr("public"))
        return memref.GlobalOp.create(properties=properties, **kwargs)  # xDSL's own op


ATOMIC_RMW_KINDS = {
    kind: number
    for number, kind in enumerate(
        "addf addi andi assign maximumf maxnumf maxs maxu minimumf minnumf mins minu mulf "
        "muli ori xori".split()
    )
}
"""MLIR's `arith::AtomicRMWKind` names and the numbers the generic form prints."""


def _parse_atomic_rmw(cls: type[_Op], parser: Parser) -> _Op:
    """`KIND %value, %memref[%i, ...] attr-dict : (T, memref-type) -> T`"""
    at = parser.pos
    kind = parser.parse_identifier()
    if kind not in ATOMIC_RMW_KINDS:
        parser.raise_error(
            f"unknown memref.atomic_rmw kind '{kind}' (one of {', '.join(ATOMIC_RMW_KINDS)})",
            at,
            parser.pos,
        )
    value = parser.parse_unresolved_operand()
    parser.parse_punctuation(",")
    memref_operand = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(
        Parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    parser.parse_punctuation("(")
    value_type = parser.parse_type()
    parser.parse_punctuation(",")
    memref_type = parser.parse_type()
    parser.parse_punctuation(")")
    parser.parse_punctuation("->")
    result_type = parser.parse_type()
    operands = [
        parser.resolve_operand(value, value_type),
        parser.resolve_operand(memref_operand, memref_type),
        *(parser.resolve_operand(i, IndexType()) for i in indices),
    ]
    return cls.create(
        operands=operands,
        result_types=[result_type],
        properties={"kind": IntegerAttr(ATOMIC_RMW_KINDS[kind], 64)},
        attributes=attributes,
    )


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`%t = memref.transpose %m (d0, d1) -> (d1, d0) : type to type`: a view of `%m`
    with permuted dimensions (MemRefOps.td in MLIR 22; xDSL 0.75 lacks it)."""

    name = "memref.transpose"

    source = operand_def(MemRefType)
    permutation = prop_def(AffineMapAttr)
    result = result_def(MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:
        source = parser.parse_unresolved_operand()
        start = parser.pos
        while parser._current_token.kind is not MLIRTokenKind.COLON:  # pyright: ignore[reportPrivateUsage]
            parser._consume_token()  # the map, up to the ':'  # pyright: ignore[reportPrivateUsage]
        text = Span(start, parser.pos, parser.lexer.input).text
        parser.parse_punctuation(":")
        permutation = Parser(parser.ctx, f"affine_map<{text}>").parse_attribute()
        source_value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_keyword("to")
        return cls.create(
            operands=[source_value],
            result_types=[parser.parse_type()],
            properties={"permutation": permutation},
            attributes=parser.parse_optional_attr_dict(),
        )


# the formats of MemRefOps.td
CastOp = with_declared_syntax(memref.CastOp, "$source attr-dict `:` type($source) `to` type($dest)")
MemorySpaceCastOp = with_declared_syntax(
    memref.MemorySpaceCastOp, "$source attr-dict `:` type($source) `to` type($dest)"
)
CopyOp = with_declared_syntax(
    memref.CopyOp,
    "$source `,` $destination attr-dict `:` type($source) `to` type($destination)",
)
AtomicRMWOp = with_parser(memref.AtomicRMWOp, _parse_atomic_rmw)
ExtractAlignedPointerAsIndexOp = with_declared_syntax(
    memref.ExtractAlignedPointerAsIndexOp,
    "$source `:` type($source) `->` type($aligned_pointer) attr-dict",
)

_REPLACEMENTS: dict[str, type[Operation]] = {
    op.name: op
    for op in (
        GlobalOp,
        CastOp,
        MemorySpaceCastOp,
        CopyOp,
        AtomicRMWOp,
        ExtractAlignedPointerAsIndexOp,
    )
}

MLIR_MEMREF = Dialect(
    "memref",
    [*(_REPLACEMENTS.get(op.name, op) for op in memref.MemRef.operations), TransposeOp],
    list(memref.MemRef.attributes),
)
"""xDSL's `memref` dialect with MLIR's `memref.global` syntax."""
