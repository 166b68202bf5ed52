"""Which parsed op a pass-made op stands for, so diagnostics point at the user's source.

A pass that replaces an op by an equivalent one (`import-gpu-allocs` turning a
`memref.alloc` into a `gpu_alloc.alloc`) calls `derive(new, old)`; the driver's source
map (`tools.diagnostics.SourceMap`) then locates an error on `new` at `old`'s text.
Weak keys: an op that is gone takes its entry with it.
"""

from __future__ import annotations

from typing import TypeVar
from weakref import WeakKeyDictionary

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

OpT = TypeVar("OpT", bound=Operation)

_ORIGINS: WeakKeyDictionary[Operation, Operation] = WeakKeyDictionary()


def derive(new: Operation, old: Operation) -> None:
    """`new` replaces `old`: report what is wrong with `new` where `old` was written."""
    _ORIGINS[new] = _ORIGINS.get(old, old)


def origin_of(op: Operation) -> Operation | None:
    """The op `op` was derived from (transitively), if a pass said so."""
    return _ORIGINS.get(op)


def cloned(op: OpT) -> OpT:
    """A copy of `op` whose ops are each derived from the op they copy, so that an error a
    later step finds on the copy (the PTX backends lower one) points at the user's text."""
    copy = op.clone()
    for new, old in zip(copy.walk(), op.walk(), strict=True):
        derive(new, old)
    return copy


class DerivingPattern(RewritePattern):
    """`pattern`, with every op it inserts derived from the op it matched: a pattern that
    rebuilds an op (xDSL's `TypeConversionPattern` makes a new op of the new types) keeps
    the user's location for what a later step finds wrong with the new one."""

    def __init__(self, pattern: RewritePattern):
        self.pattern = pattern

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        def derive_inserted(new: Operation) -> None:
            derive(new, op)

        rewriter.operation_insertion_handler.append(derive_inserted)
        try:
            self.pattern.match_and_rewrite(op, rewriter)
        finally:
            rewriter.operation_insertion_handler.remove(derive_inserted)
