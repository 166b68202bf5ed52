"""Masks of active threads, uniformity tests, and reconvergence points of a CFG."""

from __future__ import annotations

from typing import Any

import numpy as np
from xdsl.ir import Block, Region

Mask = np.ndarray | None
"""Which threads of the block are active: a bool per thread, or None for all of them."""


def restrict(mask: Mask, condition: Any, n_threads: int) -> Mask:
    """Threads of `mask` where `condition` holds; None when that is every thread."""
    if np.ndim(condition) == 0:
        return mask if bool(condition) else np.zeros(n_threads, np.bool_)
    combined = condition if mask is None else mask & condition
    return None if combined.all() else combined


def is_empty(mask: Mask) -> bool:
    return mask is not None and not mask.any()


def uniform_bool(condition: Any, mask: Mask) -> bool | None:
    """The condition's value if every active thread agrees on it, else None."""
    if np.ndim(condition) == 0:
        return bool(condition)
    active = condition if mask is None else condition[mask]
    if active.all():
        return True
    if not active.any():
        return False
    return None


def uniform_int(value: Any, mask: Mask) -> int | None:
    """The integer value if every active thread holds the same one, else None."""
    if np.ndim(value) == 0:
        return int(value)
    active = value if mask is None else value[mask]
    first = active[0]
    if (active == first).all():
        return int(first)
    return None


def select(mask: Mask, new: Any, old: Any) -> Any:
    """`new` in the threads of `mask`, `old` elsewhere."""
    if mask is None:
        return new
    return np.where(mask, new, old)


def _post_dominators(region: Region) -> dict[Block, frozenset[Block]]:
    blocks = list(region.blocks)
    every = frozenset(blocks)
    successors = {b: list(b.last_op.successors) if b.last_op else [] for b in blocks}
    pdom = {b: (frozenset([b]) if not successors[b] else every) for b in blocks}
    changed = True
    while changed:
        changed = False
        for block in reversed(blocks):
            if not successors[block]:
                continue
            meet = frozenset.intersection(*(pdom[s] for s in successors[block]))
            updated = meet | {block}
            if updated != pdom[block]:
                pdom[block] = updated
                changed = True
    return pdom


def reconvergence_points(region: Region) -> dict[Block, Block | None]:
    """For each block, its immediate post-dominator: where threads that diverge at its
    branch meet again (None: only at the kernel's exit)."""
    pdom = _post_dominators(region)
    return {block: _nearest(pdom, block) for block in region.blocks}


def _nearest(pdom: dict[Block, frozenset[Block]], block: Block) -> Block | None:
    strict = pdom[block] - {block}
    if not strict:
        return None
    # The nearest strict post-dominator is post-dominated by all the others.
    return max(strict, key=lambda b: len(pdom[b]))
