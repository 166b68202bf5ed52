"""Custom directives for xDSL's declarative assembly format, for MLIR's formats that
need them (xDSL-only imports; written to be proposed to xDSL as it is).

- `ParenDynamicIndexList`: MLIR's `custom<DynamicIndexList>(..., "{}",
  "::mlir::AsmParser::Delimiter::Paren")`, a mixed static/dynamic list in parentheses,
  `(4, %n, 32)` (xDSL's `DynamicIndexList` writes square brackets only; its format
  language has no string arguments to choose);
- `UnitProperty`: the anchor of MLIR's `(`keyword` $prop^)?` for a `UnitProp`, which
  MLIR's generic form writes `prop` when set and `prop = false` when not, so a `false`
  reads as absent (xDSL's unit-attribute variable takes any value as present);
- `AtomicRMWKindKeyword`: `arith::AtomicRMWKind` (an `I64EnumAttr`) as its keyword,
  `addf`, stored as MLIR's generic form holds it, `kind = 0 : i64`.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, UnitAttr, i64
from xdsl.dialects.utils.dynamic_index_list import (
    parse_dynamic_index_list_without_types,
    print_dynamic_index_list,
)
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    ParsingState,
    PrintingState,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer


@irdl_custom_directive
class ParenDynamicIndexList(CustomDirective):
    """`(4, %n, 32)`: the constants in `static_values` (`DYNAMIC_INDEX` where an operand
    of `dynamic_values` gives the value)."""

    dynamic_values: VariadicOperandVariable
    static_values: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        dynamic, static = parse_dynamic_index_list_without_types(
            parser, DYNAMIC_INDEX, delimiter=Parser.Delimiter.PAREN
        )
        self.dynamic_values.set(state, dynamic)
        self.static_values.set(state, DenseArrayBase.from_list(i64, static))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        static = self.static_values.get(op)
        assert isinstance(static, DenseArrayBase)
        values = static.get_values()
        print_dynamic_index_list(
            printer,
            DYNAMIC_INDEX,
            self.dynamic_values.get(op),
            (int(v) for v in values),
            delimiter=Parser.Delimiter.PAREN,
        )


@irdl_custom_directive
class UnitProperty(CustomDirective):
    """MLIR's `UnitProp`: set by the keyword that precedes it in an optional group
    (`(`disjoint` custom<UnitProperty>($disjoint)^)?`); present when it holds `unit` or
    `true`, so the `prop = false` of MLIR's generic form prints no keyword."""

    prop: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        self.prop.set(state, UnitAttr())

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        return

    def is_present(self, op: IRDLOperation) -> bool:
        value = self.prop.get(op)
        return isinstance(value, UnitAttr) or (
            isinstance(value, IntegerAttr) and bool(value.value.data)
        )

    def is_anchorable(self) -> bool:
        return True


@irdl_custom_directive
class AtomicRMWKindKeyword(CustomDirective):
    """`arith::AtomicRMWKind` as its keyword (`addf`, `maxs`, ...); the property holds
    the case's number as an `i64`, as MLIR's generic form prints it."""

    KINDS: ClassVar[tuple[str, ...]] = tuple(
        "addf addi andi assign maximumf maxnumf maxs maxu minimumf minnumf mins minu mulf "
        "muli ori xori".split()
    )
    """The cases of MLIR 22's `AtomicRMWKind`, in the order of their numbers."""

    kind: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        at = parser.pos
        name = parser.parse_identifier()
        if name not in self.KINDS:
            parser.raise_error(
                f"unknown {state.op_type.name} kind '{name}' (one of {', '.join(self.KINDS)})",
                at,
                parser.pos,
            )
        self.kind.set(state, IntegerAttr(self.KINDS.index(name), i64))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        kind = self.kind.get(op)
        assert isinstance(kind, IntegerAttr)
        printer.print_string(self.KINDS[kind.value.data])
