"""MLIR's custom syntax for the `memref` ops xDSL 0.75 reads in generic form only, and
`memref.transpose`, which it lacks.

Declared (`mlir_syntax.with_declared_syntax`, the `assemblyFormat` of MLIR's
MemRefOps.td): `cast`, `memory_space_cast`, `copy`, `extract_aligned_pointer_as_index`,
and `atomic_rmw` (its `$kind`, an `arith::AtomicRMWKind` keyword that xDSL's op stores as
an integer, read by the `AtomicRMWKindKeyword` directive). Parsed by hand: `memref.global`
(MLIR's format has `($sym_visibility^)?` and the C++ directive
`custom<GlobalMemrefOpTypeAndInitialValue>`, while xDSL's op requires `sym_visibility`
and `initial_value`, so an optional group cannot be anchored on them) and
`memref.transpose` (MLIR parses it in C++, `TransposeOp::parse`).

    memref.global "private" constant @name : memref<4xf32, 3> = dense<0.0> {alignment = 16 : i64}
    memref.global @workspace : memref<32xf32, #gpu.address_space<workgroup>> = uninitialized

`MLIR_MEMREF` is xDSL's `memref` dialect with these ops; the printed form stays xDSL's
generic one (which `mlir-opt` reads). Kept in one module to propose upstream.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpu_alloc.syntax.mlir_directives import AtomicRMWKindKeyword
from gpu_alloc.syntax.mlir_syntax import with_declared_syntax
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def
from xdsl.parser import Parser


class GlobalOp(memref.GlobalOp):
    """`memref.global ("visibility")? constant? @name : type (= initial-value)? attr-dict`

    A global without `= ...` is an external declaration; its initial value is `unit`,
    as for `uninitialized` (xDSL requires the property). A plain subclass: xDSL cannot
    re-define a defined op, and the generic form is xDSL's."""

    @classmethod
    def parse(cls, parser: Parser) -> memref.GlobalOp:  # xDSL gap: see the module's text
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


ATOMIC_RMW_KINDS = {kind: number for number, kind in enumerate(AtomicRMWKindKeyword.KINDS)}
"""MLIR's `arith::AtomicRMWKind` names and the numbers the generic form prints."""


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """`%t = memref.transpose %m (d0, d1) -> (d1, d0) : type to type`: a view of `%m`
    with permuted dimensions (MemRefOps.td in MLIR 22; xDSL 0.75 lacks it)."""

    name = "memref.transpose"

    source = operand_def(MemRefType)
    permutation = prop_def(AffineMapAttr)
    result = result_def(MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> TransposeOp:  # MLIR: TransposeOp::parse (C++)
        source = parser.parse_unresolved_operand()
        permutation = AffineMapAttr(parser.parse_affine_map())
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_keyword("to")
        return cls.create(
            operands=[source_value],
            result_types=[parser.parse_type()],
            properties={"permutation": permutation},
            attributes=attributes,
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
# MemRefOps.td; the kind is `arith::AtomicRMWKind`'s keyword, which xDSL's op (an
# integer property) cannot spell without a directive
AtomicRMWOp = with_declared_syntax(
    memref.AtomicRMWOp,
    "custom<AtomicRMWKindKeyword>($kind) $value `,` $memref `[` $indices `]` attr-dict "
    "`:` `(` type($value) `,` type($memref) `)` `->` type($result)",
    (AtomicRMWKindKeyword,),
)
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
