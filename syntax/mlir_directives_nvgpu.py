"""A custom directive for xDSL's declarative assembly formats: MLIR's dialect-type
operands printed without their `!dialect.name` prefix.

MLIR's `type($x)` directive prints (and reads) the type of `$x` in its stripped form
when ODS declares `$x` with a single type definition of a dialect (`printStrippedAttrOrType`
/ `parseCustomTypeWithFallback` in MLIR's generated code): `nvgpu.mbarrier.init` writes
`: <memorySpace = #gpu.address_space<workgroup>>` for
`!nvgpu.mbarrier.group<memorySpace = #gpu.address_space<workgroup>>`. xDSL's `type($x)`
always prints the full type, which MLIR reads too, but MLIR's own print cannot be read
back by xDSL. `custom<StrippedType>(type($x))` reads both spellings (`<...>` as the
operand's or result's unique base type, anything else as a full type) and prints the
stripped one, as MLIR does. Written with xDSL-only imports, to be proposed to xDSL.
"""

from __future__ import annotations

from xdsl.irdl import IRDLOperation, ParametrizedAttribute, RangeLengthConstraint, RangeOf
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    OperandDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariableDirective,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.mlir_lexer import MLIRTokenKind


@irdl_custom_directive
class StrippedType(CustomDirective):
    """`custom<StrippedType>(type($x))`: one type, `<params>` for `$x`'s unique base
    type (whose parameters must not print empty), any type in full otherwise."""

    variable: TypeDirective

    def _base(self, op_type: type[IRDLOperation]) -> type[ParametrizedAttribute]:
        inner = self.variable.inner
        assert isinstance(inner, VariableDirective), "StrippedType takes type($variable)"
        op_def = op_type.get_irdl_definition()
        defs = op_def.operands if isinstance(inner, OperandDirective) else op_def.results
        constr = defs[inner.index][1].constr
        if isinstance(constr, RangeLengthConstraint):  # a single operand or result
            constr = constr.constraint
        bases = constr.constr.get_bases() if isinstance(constr, RangeOf) else None
        if bases is None or len(bases) != 1:
            raise ValueError(f"StrippedType: ${inner.name} has no unique base type")
        (base,) = bases
        assert issubclass(base, ParametrizedAttribute)
        return base

    def parse(self, parser: Parser, state: ParsingState) -> None:
        if parser._current_token.kind != MLIRTokenKind.LESS:  # pyright: ignore[reportPrivateUsage]
            self.variable.inner.parse_single_type(parser, state)
            return
        base = self._base(state.op_type)
        self.variable.inner.set_types(state, (base.new(base.parse_parameters(parser)),))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        (type_,) = self.variable.inner.get_types(op)
        state.print_whitespace(printer)
        if isinstance(type_, self._base(type(op))):
            type_.print_parameters(printer)
        else:
            printer.print_attribute(type_)

    def is_present(self, op: IRDLOperation) -> bool:
        return self.variable.is_present(op)
