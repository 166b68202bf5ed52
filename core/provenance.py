"""Which parsed op a pass-made op stands for, so diagnostics point at the user's source.

A pass that replaces an op by an equivalent one (`import-gpu-allocs` turning a
`memref.alloc` into a `gpu_alloc.alloc`) calls `derive(new, old)`; the driver's source
map (`tools.diagnostics.SourceMap`) then locates an error on `new` at `old`'s text.
Weak keys: an op that is gone takes its entry with it.
"""

from __future__ import annotations

from weakref import WeakKeyDictionary

from xdsl.ir import Operation

_ORIGINS: WeakKeyDictionary[Operation, Operation] = WeakKeyDictionary()


def derive(new: Operation, old: Operation) -> None:
    """`new` replaces `old`: report what is wrong with `new` where `old` was written."""
    _ORIGINS[new] = _ORIGINS.get(old, old)


def origin_of(op: Operation) -> Operation | None:
    """The op `op` was derived from (transitively), if a pass said so."""
    return _ORIGINS.get(op)
