"""Custom directives of MLIR's `gpu` dialect formats (GPUOps.td) for xDSL's declarative
assembly format; xDSL-only imports, written so that they could be proposed to xDSL.

- `AsyncDependencies`: MLIR's `custom<AsyncDependencies>(type($asyncToken),
  $asyncDependencies)`, `async`? (`[` %token, ... `]`)? (`gpu.wait`, `gpu.alloc`,
  `gpu.dealloc`, `gpu.memcpy`, and MLIR's other asynchronous `gpu` ops);
- `AllReduceOperation`: MLIR's `custom<AllReduceOperation>($op)`, an optional bare
  reduction kind (`add`, `maxnumf`, ...) (`gpu.all_reduce`, `gpu.subgroup_reduce`).
"""

from __future__ import annotations

from xdsl.dialects.gpu import AsyncTokenType
from xdsl.dialects.utils import EnumAttribute
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    CustomDirective,
    ParsingState,
    PrintingState,
    TypeDirective,
    UniqueBaseAttributeVariable,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer


@irdl_custom_directive
class AsyncDependencies(CustomDirective):
    """`async`? (`[` %dep, ... `]`)?: `async` gives the op its `!gpu.async.token`
    result (MLIR's parseAsyncDependencies / printAsyncDependencies, GPUDialect.cpp)."""

    async_token: TypeDirective
    dependencies: VariadicOperandVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        is_async = parser.parse_optional_keyword("async") is not None
        self.async_token.set(state, [AsyncTokenType()] if is_async else [])
        deps = parser.parse_optional_comma_separated_list(
            parser.Delimiter.SQUARE, parser.parse_unresolved_operand
        )
        self.dependencies.set(state, deps or [])
        self.dependencies.set_types(state, [AsyncTokenType()] * len(deps or []))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        is_async = bool(self.async_token.get(op))
        if is_async:
            printer.print_string("async")
        if deps := self.dependencies.get(op):
            if is_async:
                printer.print_string(" ")
            with printer.in_square_brackets():
                printer.print_list(deps, printer.print_ssa_value)


@irdl_custom_directive
class AllReduceOperation(CustomDirective):
    """An optional bare keyword of an optional enum property, `add` for
    `#gpu<all_reduce_op add>` (MLIR's parseAllReduceOperation, GPUDialect.cpp)."""

    kind: UniqueBaseAttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        enum_attr = self.kind.unique_base
        assert issubclass(enum_attr, EnumAttribute)
        members = enum_attr.enum_type  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        words = tuple(str(member.value) for member in members)  # pyright: ignore[reportUnknownMemberType, reportUnknownVariableType]
        if (word := parser.parse_optional_keyword_in(words)) is not None:
            self.kind.set(state, enum_attr(members(word)))  # pyright: ignore[reportUnknownArgumentType]

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        if (attr := self.kind.get(op)) is not None:
            state.print_whitespace(printer)
            self.kind.print_attr(printer, attr)
