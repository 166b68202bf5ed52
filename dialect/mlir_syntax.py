"""Pieces of MLIR's custom syntax shared by the dialect modules this project adds.

xDSL 0.75 lacks several of MLIR's upstream dialects (`nvgpu`, `amdgpu`, `index`) and
some ops of the ones it has (`scf.forall`, `affine.max`, `vector.shape_cast`, ...). The
modules that add them (`mlir_nvgpu`, `mlir_amdgpu`, `mlir_index`, `mlir_scf`,
`mlir_affine`, `mlir_vector`) read MLIR's custom form and print the generic form, whose
operand order, property names and `operandSegmentSizes` follow MLIR's ODS definitions so
that `mlir-opt` reads it back. This module holds what they share, and like them it is
written so that it could be proposed to xDSL as it is:

- `parse_indexed`: `%memref[%i, %j]`;
- `parse_optional_keyword_operand`: `, predicate = %p` style optional operands;
- `finish_op`: creates a parsed op, the inherent attributes of the custom form's
  attribute dictionary becoming properties; `parse_i64_array`: `[1, 0]`;
- `OpaqueParametersType`: a type whose parameters are kept as the text MLIR wrote
  (`!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>`), for types this
  project never looks inside; MLIR's custom op syntax may write such a type without its
  `!dialect.name` prefix (`: <memorySpace = ...>`), which `parse_type_or_body` reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import ClassVar, TypeVar

from xdsl.dialects.builtin import DenseArrayBase, IndexType, StringAttr, i32, i64
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import IRDLOperation, ParametrizedAttribute
from xdsl.irdl.declarative_assembly_format import CustomDirective, FormatProgram
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

_OpT = TypeVar("_OpT", bound=IRDLOperation)


def with_parser(base: type[_OpT], parse: Callable[[type[_OpT], Parser], _OpT]) -> type[_OpT]:
    """`base` (an op xDSL defines and prints in generic form) reading MLIR's custom syntax
    with `parse`: a plain subclass that only parses (xDSL cannot define an op twice); the
    ops it makes are `base`'s own, so passes see the op they know and it prints as xDSL
    prints it."""
    namespace: dict[str, object] = {
        "parse": classmethod(parse),
        "create": classmethod(lambda cls, **kwargs: base.create(**kwargs)),
        "__doc__": base.__doc__,
    }
    return type(base.__name__, (base,), namespace)  # pyright: ignore[reportReturnType]


def with_declared_syntax(
    base: type[_OpT],
    assembly_format: str,
    custom_directives: Sequence[type[CustomDirective]] = (),
) -> type[_OpT]:
    """`with_parser` for MLIR's declarative `assemblyFormat` (copied from MLIR's ODS
    file), parsed by xDSL's own `FormatProgram`; `custom<Name>(...)` in it names one of
    `custom_directives` (as an op's own `custom_directives` class variable does)."""
    definition = base.get_irdl_definition()
    if custom_directives:
        directives = {d.__name__: d for d in custom_directives}
        definition = replace(
            definition, custom_directives={**definition.custom_directives, **directives}
        )
    program = FormatProgram.from_str(assembly_format, definition)
    return with_parser(base, lambda cls, parser: program.parse(parser, base))


def parse_index_list(parser: Parser) -> list[SSAValue]:
    """`[%i, %j, ...]` of `index` operands (possibly empty)."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
    )


def parse_indexed(parser: Parser) -> tuple[UnresolvedOperand, list[SSAValue]]:
    """`%memref[%i, %j, ...]`: the memref (resolved later, once its type is read) and
    its `index` operands."""
    base = parser.parse_unresolved_operand()
    return base, parse_index_list(parser)


def parse_optional_keyword_operand(
    parser: Parser, keyword: str, type_: Attribute, *, equals: bool = True
) -> list[SSAValue]:
    """`, keyword = %value` (or `keyword = %value` after a comma already read), as MLIR
    writes optional operands such as `predicate = %p`: one operand, or none."""
    if parser.parse_optional_keyword(keyword) is None:
        return []
    if equals:
        parser.parse_punctuation("=")
    return [parser.parse_operand(type_)]


def set_operand_segments(op: Operation, sizes: Sequence[int]) -> None:
    """MLIR's `operandSegmentSizes` property (generic form) for an op built by a parser."""
    op.properties["operandSegmentSizes"] = DenseArrayBase.from_list(i32, sizes)


class OpaqueParametersType(ParametrizedAttribute, TypeAttribute):
    """A type whose parameters this project keeps as MLIR's text, `!name<text>`.

    Subclasses set `name` (and `BARE`: the type may be written without `<...>`, like
    `!nvgpu.device.async.token`). Equality is textual, which is all the passes need:
    they never look inside these types."""

    BARE: ClassVar[bool] = False

    body: StringAttr

    def __init__(self, body: str | StringAttr = ""):
        super().__init__(StringAttr(body) if isinstance(body, str) else body)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if cls.BARE and parser._current_token.kind != MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
            return (StringAttr(""),)
        return (StringAttr(parse_balanced_body(parser)),)

    def print_parameters(self, printer: Printer) -> None:
        if self.body.data or not self.BARE:
            printer.print_string(f"<{self.body.data}>")


def parse_balanced_body(parser: AttrParser) -> str:
    """The text between a `<` and its matching `>` (consumed), as MLIR wrote it."""
    if parser._current_token.kind != MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
        parser.raise_error("'<' expected")
    # xDSL's scan for an unregistered attribute's body, which follows MLIR's
    # parseDialectSymbolBody (nested brackets, string literals, `->`)
    return parser._parse_dialect_symbol_body().strip()  # pyright: ignore[reportPrivateUsage]


def parse_type_or_body(parser: Parser, kind: type[OpaqueParametersType]) -> Attribute:
    """A type at a position where MLIR's custom syntax may drop the `!dialect.name`
    prefix of `kind`: `<params>` is a `kind`, anything else a full type."""
    if parser._current_token.kind == MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
        return kind(parse_balanced_body(parser))
    return parser.parse_type()


def finish_op(
    cls: type[IRDLOperation],
    parser: Parser,
    operands: list[SSAValue],
    results: list[Attribute],
    properties: tuple[str, ...] = (),
    attributes: dict[str, Attribute] | None = None,
) -> Operation:
    """Creates the op; the named inherent attributes of the custom form's attribute
    dictionary become properties, as in MLIR's generic form."""
    attributes = parser.parse_optional_attr_dict() if attributes is None else attributes
    props = {name: attributes.pop(name) for name in properties if name in attributes}
    return cls.create(
        operands=operands, result_types=results, properties=props, attributes=attributes
    )


def parse_i64_array(parser: Parser) -> DenseArrayBase:
    """`[1, 0]` as MLIR's `array<i64: 1, 0>` property."""
    values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
    return DenseArrayBase.from_list(i64, values)
