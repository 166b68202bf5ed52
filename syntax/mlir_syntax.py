"""Pieces of MLIR's syntax shared by the modules that add MLIR's ops to xDSL.

xDSL 0.75 lacks several of MLIR's upstream dialects (`nvgpu`, `amdgpu`, `index`) and
some ops of the ones it has (`scf.forall`, `affine.max`, `vector.shape_cast`, ...). The
modules that add them declare MLIR's `assemblyFormat` where MLIR's ODS file has one
(the directives xDSL's formats lack are in `mlir_directives`) and parse
by hand only what MLIR parses in C++. This module holds what they share, and like them
it is written so that it could be proposed to xDSL as it is:

- `with_declared_syntax`: MLIR's format on an op class xDSL already defines (and
  prints in generic form), as a parse-only subclass; `with_parser` for a hand parser;
- `finish_op`: creates a parsed op, the inherent attributes of the custom form's
  attribute dictionary becoming properties;
- `OpaqueParametersType`: a type whose parameters are kept as the text MLIR wrote
  (`!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>`), for types this
  project never looks inside (`parse_balanced_body` reads the text).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, ClassVar, TypeVar

from xdsl.dialects.builtin import DenseArrayBase, StringAttr, i32
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.irdl import AttrConstraint, IRDLOperation, OptPropertyDef, ParametrizedAttribute
from xdsl.irdl.declarative_assembly_format import CustomDirective, FormatProgram
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind

_OpT = TypeVar("_OpT", bound=IRDLOperation)


def with_parser(
    base: type[_OpT],
    parse: Callable[[type[_OpT], Parser], _OpT],
    fixed_operands: int | None = None,
) -> type[_OpT]:
    """`base` (an op xDSL defines and prints in generic form) reading MLIR's custom syntax
    with `parse`: a plain subclass that only parses (xDSL cannot define an op twice).

    The ops it makes are `base`'s own, so passes see the op they know and it prints as
    xDSL prints it. MLIR's properties that `base` does not define (`upper_bound`) go to
    the attribute dictionary, where MLIR reads them back. With `fixed_operands`: `base`'s
    variadic operands and then that many single ones, whose `operandSegmentSizes` MLIR's
    generic form leaves out and xDSL requires."""
    namespace: dict[str, object] = {
        "parse": classmethod(parse),
        "build": classmethod(_in_base(base, base.build)),
        "create": classmethod(_in_base(base, base.create, fixed_operands)),
        "__doc__": base.__doc__,
    }
    return type(base.__name__, (base,), namespace)  # pyright: ignore[reportReturnType]


def with_declared_syntax(
    base: type[_OpT],
    assembly_format: str,
    custom_directives: Sequence[type[CustomDirective]] = (),
    *,
    missing: Mapping[str, AttrConstraint] | None = None,
    fixed_operands: int | None = None,
) -> type[_OpT]:
    """`with_parser` for MLIR's declarative `assemblyFormat` (copied from MLIR's ODS
    file), parsed by xDSL's own `FormatProgram`; `custom<Name>(...)` in it names one of
    `custom_directives` (as an op's own `custom_directives` class variable does).

    `missing`: MLIR's optional properties that `base` lacks, by name and constraint, so
    that the format may name them. Names in the format are xDSL's (`$result` where MLIR's
    ODS says `$memref`)."""
    definition = base.get_irdl_definition()
    extra = {name: OptPropertyDef(c) for name, c in (missing or {}).items()}
    directives = {d.__name__: d for d in custom_directives}
    definition = replace(
        definition,
        properties={**definition.properties, **extra},
        accessor_names={**definition.accessor_names, **{n: (n, "property") for n in extra}},
        custom_directives={**definition.custom_directives, **directives},
    )
    program = FormatProgram.from_str(assembly_format, definition)
    return with_parser(base, lambda cls, parser: program.parse(parser, cls), fixed_operands)


def _in_base(
    base: type[IRDLOperation], make: Callable[..., Operation], fixed: int | None = None
) -> Callable[..., Any]:
    """`make` (`base.build` or `base.create`) for the parse-only subclass: an instance of
    `base`, the properties `base` does not define moved to the attribute dictionary."""
    defined = base.get_irdl_definition().properties

    def create(
        cls: type[Operation],  # noqa: ARG001 (the subclass only parses)
        *,
        properties: Mapping[str, Attribute | None] | None = None,
        attributes: Mapping[str, Attribute | None] | None = None,
        **kwargs: Any,
    ) -> Operation:
        properties = {k: v for k, v in (properties or {}).items() if v is not None}
        extra = {k: v for k, v in properties.items() if k not in defined}
        properties = {k: v for k, v in properties.items() if k in defined}
        attributes = {**(attributes or {}), **extra}
        op = make(properties=properties, attributes=attributes, **kwargs)
        if fixed is not None and "operandSegmentSizes" not in op.attributes:
            set_segments(op, [len(op.operands) - fixed, *[1] * fixed], as_property=False)
        return op

    return create


def set_segments(op: Operation, sizes: Sequence[int], *, as_property: bool) -> None:
    """`op`'s `operandSegmentSizes`, as a property or (MLIR's older spelling) an attribute."""
    segments = DenseArrayBase.from_list(i32, sizes)
    if as_property:
        op.properties["operandSegmentSizes"] = segments
    else:
        op.attributes["operandSegmentSizes"] = segments


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
