"""The flat search's independent parts (`core.dive_steps`): where the current one lies, ranking
it afresh when it is new (MiniMalloc's sub-problem preordering), and where the search goes back
to when one fails. Plain Python over arrays, compiled with the loop (`jit`)."""

from __future__ import annotations

import numpy as np


def start_node(
    depth: int,
    capacity: int,
    size: np.ndarray,
    section_start: np.ndarray,
    viable: np.ndarray,
    unplaced: np.ndarray,
    remaining: np.ndarray,
    cut: np.ndarray,
    part_low: np.ndarray,
    part_high: np.ndarray,
    part_begin: np.ndarray,
    part_end: np.ndarray,
    fresh: np.ndarray,
    lowest_top: np.ndarray,
    highest: np.ndarray,
    tried_offset: np.ndarray,
    tried_rank: np.ndarray,
) -> None:
    """Enter the node at `depth`: its part, and bounds on its candidates' offsets.

    The part runs from the first section with something left to place up to the first
    boundary no unplaced buffer crosses (the rest is independent of it). A candidate must lie
    below the lowest top an unplaced buffer of the part would have (`lowest_top`) and leave
    room for what is left in the part's fullest section (`highest`).
    """
    low = part_low[depth - 1] if depth > 0 else 0
    while remaining[low] == 0:
        low += 1
    high = low + 1
    while high < len(remaining) and cut[high - 1] > 0:
        high += 1
    part_low[depth] = low
    part_high[depth] = high
    begin = section_start[low]
    end = section_start[high]
    part_begin[depth] = begin
    part_end[depth] = end
    # A new part (MiniMalloc's sub-partition) starts where the last placement cut one off.
    fresh[depth] = depth == 0 or part_high[depth - 1] != high or part_low[depth - 1] != low
    top = capacity + 1
    for i in range(begin, end):
        if unplaced[i] and viable[i] + size[i] < top:
            top = viable[i] + size[i]
    fullest = 0
    for s in range(low, high):
        if remaining[s] > fullest:
            fullest = remaining[s]
    lowest_top[depth] = top
    highest[depth] = capacity - fullest
    tried_offset[depth] = -1
    tried_rank[depth] = -1


def rank_part(
    depth: int,
    dynamic: int,
    first: np.ndarray,
    stop: np.ndarray,
    keys: np.ndarray,
    unplaced: np.ndarray,
    remaining: np.ndarray,
    fresh: np.ndarray,
    part_begin: np.ndarray,
    part_end: np.ndarray,
    rank: np.ndarray,
    rank_end: np.ndarray,
    rank_item: np.ndarray,
    rank_value: np.ndarray,
) -> bool:
    """Rank the node's part afresh if it is new and the ranking is `dynamic`, recording the
    rank stack's top for the node; False (nothing changed) when the stack is too small."""
    rank_top = rank_end[depth - 1] if depth > 0 else 0
    if fresh[depth] and dynamic >= 0:
        if rank_top + part_end[depth] - part_begin[depth] > len(rank_item):
            return False
        rank_top = rerank(part_begin[depth], part_end[depth], rank_top, first, stop, keys,
                          dynamic, unplaced, remaining, rank, rank_item, rank_value)  # fmt: skip
    rank_end[depth] = rank_top
    return True


def rerank(
    begin: int,
    end: int,
    rank_top: int,
    first: np.ndarray,
    stop: np.ndarray,
    keys: np.ndarray,
    dynamic: int,
    unplaced: np.ndarray,
    remaining: np.ndarray,
    rank: np.ndarray,
    rank_item: np.ndarray,
    rank_value: np.ndarray,
) -> int:
    """Rank the unplaced buffers of a new part afresh (MiniMalloc's sub-problem preordering):
    by `keys` (larger first, then the last column, a tie-break), with column `dynamic`
    replaced by the fullest section the buffer crosses now. The old ranks go on the stack."""
    count = 0
    for i in range(begin, end):
        if unplaced[i]:
            count += 1
    members = np.empty(count, dtype=np.int64)
    columns = keys.shape[1]
    table = np.empty((count, columns), dtype=np.int64)
    k = 0
    for i in range(begin, end):
        if unplaced[i]:
            members[k] = i
            for c in range(columns):
                table[k, c] = keys[i, c]
            fullest = 0
            for s in range(first[i], stop[i]):
                if remaining[s] > fullest:
                    fullest = remaining[s]
            table[k, dynamic] = fullest
            rank_item[rank_top] = i
            rank_value[rank_top] = rank[i]
            rank_top += 1
            k += 1
    order = np.arange(count)
    for c in range(columns - 1, -1, -1):  # least significant first; each sort is stable
        column = np.empty(count, dtype=np.int64)
        for k in range(count):
            column[k] = -table[order[k], c]
        order = order[np.argsort(column, kind="mergesort")]
    for k in range(count):
        rank[members[order[k]]] = k
    return rank_top


def restore_ranks(
    top: int, current: int, rank: np.ndarray, rank_item: np.ndarray, rank_value: np.ndarray
) -> None:
    """Put back the ranks saved on the stack between `top` and `current`, newest first."""
    for k in range(current - 1, top - 1, -1):
        rank[rank_item[k]] = rank_value[k]


def backjump_target(
    depth: int,
    fresh: np.ndarray,
    part_high: np.ndarray,
) -> int:
    """The depth to go back to when the node at `depth` has no candidate left (-1: none).

    A part's first node failing means the part cannot be packed whatever its independent
    siblings do, so the search goes back to the placement that split them off.
    """
    target = depth - 1
    if fresh[depth]:
        while target >= 0 and part_high[target] < part_high[depth]:
            target -= 1
    return target
