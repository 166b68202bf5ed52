"""Turning parse, verify and pass errors into one-line `file:line:col: error:` diagnostics."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc.provenance import origin_of
from gpu_alloc.source_lines import remember
from gpu_alloc.syntax.mlir_gpu import MlirNameParser
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Span


class LocatingParser(MlirNameParser):
    """An xDSL parser that remembers where in the source each operation starts."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.op_spans: dict[Operation, Span[Any]] = {}

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        try:
            op = super().parse_operation()
        except (ParseError, RecursionError):
            raise
        except Exception as error:
            # xDSL's attribute and op constructors reject bad values (an integer out of
            # range for its type, a bad string) with VerifyException, ValueError or a
            # plain Exception while parsing: the input's fault, located at the op.
            raise ParseError(span, str(error) or type(error).__name__) from None
        self.op_spans[op] = span
        return op

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        try:
            return super().parse_module(allow_implicit_module)
        except (ParseError, RecursionError):
            raise
        except Exception as error:  # outside any op: an attribute alias, say
            raise ParseError(self._current_token.span, str(error) or type(error).__name__) from None


@dataclass
class SourceMap:
    """Where the ops of one parsed chunk of an input file came from."""

    file_name: str
    line_offset: int = 0
    op_spans: Mapping[Operation, Span[Any]] = field(default_factory=dict[Operation, Span[Any]])

    def span_of(self, op: Operation | None) -> Span[Any] | None:
        """The span of `op`, of the op it was derived from (`core.provenance`), or of its
        nearest parsed ancestor (for ops a pass created)."""
        while op is not None:
            if (span := self.op_spans.get(op)) is not None:
                return span
            origin = origin_of(op)
            if origin is not None and (span := self.op_spans.get(origin)) is not None:
                return span
            op = op.parent_op()
        return None


def parse_with_locations(
    ctx: Context, source: bytes, file_name: str, line_offset: int = 0
) -> tuple[ModuleOp, SourceMap]:
    parser = LocatingParser(ctx, source, file_name)
    module = parser.parse_module()
    remember(parser.op_spans, line_offset)  # for reports made later (profile, picture)
    return module, SourceMap(file_name, line_offset, parser.op_spans)


def format_span(span: Span[Any], message: str, line_offset: int = 0) -> str:
    """`file:line:col: error: message`, then the source line and a caret under the span."""
    location = span.get_location()
    line = location.line + line_offset
    text = span.input.content
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    newline = "\n"
    start = (
        span.start
        if isinstance(span.input.content, str)
        else len(span.input.content[: span.start].decode("utf-8", errors="replace"))
    )
    line_start = text.rfind(newline, 0, start) + 1
    line_end = text.find(newline, start)
    if line_end == -1:
        line_end = len(text)
    source_line = text[line_start:line_end]
    column = start - line_start
    width = max(1, min(span.end - span.start, len(source_line) - column))
    caret = " " * column + "^" + "~" * (width - 1)
    first_line = message.strip().splitlines()[0] if message.strip() else "error"
    return f"{location.file}:{line}:{column + 1}: error: {first_line}\n{source_line}\n{caret}"


def format_op_error(source_map: SourceMap, op: Operation | None, message: str) -> str:
    span = source_map.span_of(op)
    if span is None:
        first_line = message.strip().splitlines()[0] if message.strip() else "error"
        return f"{source_map.file_name}: error: {first_line}"
    return format_span(span, message, source_map.line_offset)
