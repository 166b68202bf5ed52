"""Remarks: what a pass says about what it did or left alone, at the op it is about.

A pass calls `emit_remark(pass_name, message, op)`. By default the remark is one line on
stderr, `pass: remark: message`; a driver that wants them (`gpu-alloc-opt
--verify-diagnostics`, which matches them against `expected-remark` annotations, located
at `op`) collects them with `collected_remarks()` instead.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from xdsl.ir import Operation


@dataclass(frozen=True)
class Remark:
    message: str
    op: Operation | None = field(default=None, compare=False)
    """The op it is about, for its location; None for the whole module."""

    def __str__(self) -> str:
        return self.message


_COLLECTOR: ContextVar[list[tuple[str, Remark]] | None] = ContextVar("remarks", default=None)


def emit_remark(pass_name: str, message: str, op: Operation | None = None) -> None:
    """Report `message` about `op` from `pass_name`: to stderr, or to the collector."""
    collector = _COLLECTOR.get()
    if collector is None:
        print(f"{pass_name}: remark: {message}", file=sys.stderr)
    else:
        collector.append((pass_name, Remark(message, op)))


@contextmanager
def collected_remarks() -> Iterator[list[tuple[str, Remark]]]:
    """Within the block, remarks go to the yielded list as `(pass name, remark)`."""
    collected: list[tuple[str, Remark]] = []
    token = _COLLECTOR.set(collected)
    try:
        yield collected
    finally:
        _COLLECTOR.reset(token)
