"""Where in its source text each parsed op starts, for whoever reports on the IR later.

The project's parsers (`gpu_alloc.tools.diagnostics.parse_with_locations`, and xDSL's `mlir`
frontend under the stock `xdsl-opt`) `remember` each op's span; the profile and the layout
picture name barriers by `source_line`, the stock driver locates errors with `span_of`. The
table is weak: an op's entry goes with the op.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

from xdsl.ir import Operation
from xdsl.utils.lexer import Span

_SPANS: weakref.WeakKeyDictionary[Operation, tuple[Span[Any], int]] = weakref.WeakKeyDictionary()


def remember(spans: Mapping[Operation, Span[Any]], line_offset: int = 0) -> None:
    """Record where each op of a parsed chunk starts (`line_offset`: the chunk's first line
    in its file, minus one)."""
    for op, span in spans.items():
        _SPANS[op] = (span, line_offset)


def span_of(op: Operation) -> Span[Any] | None:
    """The span `op` was parsed from, None for an op no parser recorded (one a pass made)."""
    found = _SPANS.get(op)
    return None if found is None else found[0]


def source_line(op: Operation) -> int | None:
    """The line of the file `op` was parsed from, None for an op no parser recorded."""
    found = _SPANS.get(op)
    if found is None:
        return None
    span, line_offset = found
    return span.get_location().line + line_offset


class RecordedSpans(Mapping[Operation, Span[Any]]):
    """The recorded spans as a read-only mapping (for `SourceMap`)."""

    def __getitem__(self, op: Operation) -> Span[Any]:
        return _SPANS[op][0]

    def get(self, op: Operation, default: Any = None) -> Any:  # the one lookup SourceMap uses
        found = _SPANS.get(op)
        return default if found is None else found[0]

    def __iter__(self):
        return iter(list(_SPANS.keys()))

    def __len__(self) -> int:
        return len(_SPANS)
