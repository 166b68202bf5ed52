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
