"""The exact search's inner loop as a few functions over flat integer arrays.

`dive_steps` and its helpers are plain Python that numba can compile (`jit` module): scalar
loops, numpy arrays, no Python objects. Compiled or interpreted, the loop visits the same nodes
in the same order, so a dive limited to the same number of nodes gives the same answer either way.

The dive is a depth-first search over canonical packings at one capacity (see
`search.CanonicalSearch`), written with an explicit stack so that it can stop after a given
number of nodes and resume later (the caller checks its allowance between calls). Every piece
of state lives in the `STATE_ARRAYS` arrays of the state tuple (`flat.FlatProblem.state`);
nothing is allocated per node.

Rules (after MiniMalloc): buffers are placed in non-decreasing (offset, rank), each at the
lowest aligned address above the buffers placed so far that it overlaps in time; a buffer
is not placed at or above the top another unplaced buffer would have at its own lowest
address (dominated), nor so high that the fullest section cannot fit what is left; after a
placement, every section whose floor rose must still hold what is left to place there; and
when a failed buffer has nothing unplaced above it, its siblings are not tried.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gpu_alloc.packing.parts import (
    backjump_target,
    rank_part,
    rerank,
    restore_ranks,
    start_node,
)

FOUND = 1
"""Every buffer is placed: `offsets` holds a packing within the capacity."""
EXHAUSTED = 0
"""The search finished without a packing: none exists within the capacity."""
PAUSED = 2
"""The node allowance of this call ran out; call again to go on."""
GROW = 3
"""The rank stack is full: call again with a larger one (`flat` does)."""


_DESCEND = 0  # enter a new node at `depth`
_NEXT = 1  # try the next candidate at `depth`
_FAILED = 2  # the candidate `failed` at `depth` led nowhere: backtrack or try the next one

# scalars[...]: the resumable part of the state.
DEPTH, PHASE, FAILED_ITEM, VIABLE_TOP, HEIGHT_TOP, NODES, CAPACITY = range(7)
SCALARS = 7
SCALARS_AT = 20
"""Where the scalars are in the state tuple."""
RANK_AT = 21
"""Where the ranks are in the state tuple (set before the first call)."""
STATE_ARRAYS = 27


def dive_steps(
    static: tuple[np.ndarray, ...],
    dynamic: int,
    state: tuple[np.ndarray, ...],
    max_nodes: int,
) -> int:
    """Run the dive for at most `max_nodes` more nodes at the capacity in `scalars[CAPACITY]`;
    FOUND, EXHAUSTED, PAUSED or GROW (`static`: see the module docstring). `dynamic` >= 0 ranks
    each new part afresh (`parts.rerank`)."""
    first, stop, size, align, pinned, keys, twin, neighbour_start, neighbours = static[:9]
    section_start, section_items_start, section_items = static[9:12]
    viable, unplaced, height, remaining, offsets, placed, tried_offset, tried_rank = state[:8]
    lowest_top, highest, viable_mark, height_mark, saved_item, saved_viable = state[8:14]
    saved_height, cut, part_high, fresh, part_begin, part_end, scalars = state[14:21]
    rank, part_low, rank_end, witness, rank_item, rank_value = state[21:27]
    depth, phase, failed, viable_top, height_top, _, capacity = scalars
    nodes, status = 0, PAUSED
    while True:
        if phase == _DESCEND:
            if depth == len(size):
                status = FOUND
                break
            if nodes >= max_nodes:
                break
            start_node(depth, capacity, size, section_start, viable, unplaced, remaining, cut,
                       part_low, part_high, part_begin, part_end, fresh, lowest_top, highest,
                       tried_offset, tried_rank)  # fmt: skip
            if not rank_part(depth, dynamic, first, stop, keys, unplaced, remaining, fresh,
                             part_begin, part_end, rank, rank_end, rank_item,
                             rank_value):  # fmt: skip
                status = GROW
                break
            nodes += 1
            phase = _NEXT
            continue
        if phase == _FAILED:
            phase = _NEXT
            if not _rests_on_unplaced(failed, neighbour_start, neighbours, unplaced):
                tried_offset[depth] = capacity + 1  # its siblings are not tried
            continue
        best = _next_candidate(depth, rank, twin, viable, unplaced, offsets, placed, tried_offset,
                               tried_rank, lowest_top, highest, fresh, part_begin,
                               part_end)  # fmt: skip
        if best < 0:
            target = backjump_target(depth, fresh, part_high)
            if target < 0:
                status = EXHAUSTED
                break
        else:
            viable_mark[depth] = viable_top
            height_mark[depth] = height_top
            viable_top, height_top, check_low, check_high, pins_kept = _place(
                best, first, stop, size, align, pinned, neighbour_start, neighbours, viable,
                unplaced, height, remaining, cut, offsets, saved_item, saved_viable,
                saved_height, viable_top, height_top)  # fmt: skip
            if pins_kept and _sections_fit(check_low, check_high, offsets[best], capacity,
                                           section_items_start, section_items, viable,
                                           unplaced, height, remaining,
                                           witness):  # fmt: skip
                depth, phase = depth + 1, _DESCEND
                continue
            target = depth
        viable_top, height_top = _undo(
            target, depth, first, stop, size, placed, viable_mark, height_mark, viable, unplaced,
            height, remaining, cut, saved_item, saved_viable, saved_height, viable_top)  # fmt: skip
        restore_ranks(rank_end[target], rank_end[depth], rank, rank_item, rank_value)
        depth, failed, phase = target, placed[target], _FAILED
    scalars[:] = (depth, phase, failed, viable_top, height_top, scalars[NODES] + nodes, capacity)
    return status


def _rests_on_unplaced(
    failed: int,
    neighbour_start: np.ndarray,
    neighbours: np.ndarray,
    unplaced: np.ndarray,
) -> bool:
    """Whether a buffer that overlaps `failed` in time is still unplaced (could go above it)."""
    for k in range(neighbour_start[failed], neighbour_start[failed + 1]):
        if unplaced[neighbours[k]]:
            return True
    return False


def _next_candidate(
    depth: int,
    rank: np.ndarray,
    twin: np.ndarray,
    viable: np.ndarray,
    unplaced: np.ndarray,
    offsets: np.ndarray,
    placed: np.ndarray,
    tried_offset: np.ndarray,
    tried_rank: np.ndarray,
    lowest_top: np.ndarray,
    highest: np.ndarray,
    fresh: np.ndarray,
    part_begin: np.ndarray,
    part_end: np.ndarray,
) -> int:
    """The lowest unplaced buffer of the node's part above the last placed buffer and the
    last one tried at `depth` (in (offset, rank) order), recorded as tried and placed there;
    -1 when none is left. Dominated candidates and a buffer whose twin is unplaced are skipped.
    """
    after_offset = tried_offset[depth]
    after_rank = tried_rank[depth]
    if not fresh[depth]:
        last = placed[depth - 1]
        if offsets[last] > after_offset or (
            offsets[last] == after_offset and rank[last] > after_rank
        ):
            after_offset = offsets[last]
            after_rank = rank[last]
    best = -1
    best_offset = 0
    best_rank = 0
    for i in range(part_begin[depth], part_end[depth]):
        if not unplaced[i]:
            continue
        v = viable[i]
        if v >= lowest_top[depth] or v > highest[depth]:
            continue
        r = rank[i]
        if v < after_offset or (v == after_offset and r <= after_rank):
            continue
        if twin[i] >= 0 and unplaced[twin[i]]:
            continue
        if best < 0 or v < best_offset or (v == best_offset and r < best_rank):
            best = i
            best_offset = v
            best_rank = r
    if best >= 0:
        tried_offset[depth] = best_offset
        tried_rank[depth] = best_rank
        placed[depth] = best
    return best


def _place(
    best: int,
    first: np.ndarray,
    stop: np.ndarray,
    size: np.ndarray,
    align: np.ndarray,
    pinned: np.ndarray,
    neighbour_start: np.ndarray,
    neighbours: np.ndarray,
    viable: np.ndarray,
    unplaced: np.ndarray,
    height: np.ndarray,
    remaining: np.ndarray,
    cut: np.ndarray,
    offsets: np.ndarray,
    saved_item: np.ndarray,
    saved_viable: np.ndarray,
    saved_height: np.ndarray,
    viable_top: int,
    height_top: int,
) -> tuple[int, int, int, int, bool]:
    """Place `best` at its lowest address, saving the heights and viable addresses it
    changes on their stacks, and raise its unplaced neighbours above it; the new stack tops,
    the sections whose floor may have risen, [check_low, check_high), and whether every pinned
    neighbour can still go at its pinned offset.
    """
    offset = viable[best]
    item_top = offset + size[best]
    offsets[best] = offset
    unplaced[best] = 0
    for s in range(first[best], stop[best] - 1):
        cut[s] -= 1
    for s in range(first[best], stop[best]):
        saved_height[height_top] = height[s]
        height_top += 1
        height[s] = item_top
        remaining[s] -= size[best]
    check_low = first[best]
    check_high = stop[best]
    pins_kept = True
    for k in range(neighbour_start[best], neighbour_start[best + 1]):
        j = neighbours[k]
        if unplaced[j]:
            raised = -(-item_top // align[j]) * align[j]
            if raised > viable[j]:
                saved_item[viable_top] = j
                saved_viable[viable_top] = viable[j]
                viable_top += 1
                viable[j] = raised
                check_low = min(check_low, first[j])
                check_high = max(check_high, stop[j])
                if 0 <= pinned[j] < raised:
                    pins_kept = False
    return viable_top, height_top, check_low, check_high, pins_kept


def _sections_fit(
    check_low: int,
    check_high: int,
    offset: int,
    capacity: int,
    section_items_start: np.ndarray,
    section_items: np.ndarray,
    viable: np.ndarray,
    unplaced: np.ndarray,
    height: np.ndarray,
    remaining: np.ndarray,
    witness: np.ndarray,
) -> bool:
    """Whether each section in [check_low, check_high) still holds what is left to place
    there above the buffer just placed at `offset`: its height and that offset leave room for
    it, and an unplaced buffer crossing it can start low enough (`witness` remembers one per
    section to try first: a hint that saves scans, never changes the answer).
    """
    for s in range(check_low, check_high):
        if remaining[s] == 0:
            continue
        threshold = capacity - remaining[s]
        if height[s] > threshold or offset > threshold:
            return False
        j = witness[s]  # the buffer that was low enough here last time, if it still is
        if j >= 0 and unplaced[j] and viable[j] <= threshold:
            continue
        low_enough = False
        for k in range(section_items_start[s], section_items_start[s + 1]):
            j = section_items[k]
            if unplaced[j] and viable[j] <= threshold:
                low_enough = True
                witness[s] = j
                break
        if not low_enough:
            return False
    return True


def _undo(
    target: int,
    depth: int,
    first: np.ndarray,
    stop: np.ndarray,
    size: np.ndarray,
    placed: np.ndarray,
    viable_mark: np.ndarray,
    height_mark: np.ndarray,
    viable: np.ndarray,
    unplaced: np.ndarray,
    height: np.ndarray,
    remaining: np.ndarray,
    cut: np.ndarray,
    saved_item: np.ndarray,
    saved_viable: np.ndarray,
    saved_height: np.ndarray,
    viable_top: int,
) -> tuple[int, int]:
    """Take the buffers placed at depths target..depth-1 off again (and the one at `depth`
    too when `target` is `depth`: a placement that failed its check); the new stack tops.
    """
    height_top = height_mark[target]
    undo_from = depth if target == depth else depth - 1
    for level in range(undo_from, target - 1, -1):
        item = placed[level]
        while viable_top > viable_mark[level]:
            viable_top -= 1
            viable[saved_item[viable_top]] = saved_viable[viable_top]
        height_top = height_mark[level]
        for s in range(first[item], stop[item]):
            height[s] = saved_height[height_top + s - first[item]]
            remaining[s] += size[item]
        for s in range(first[item], stop[item] - 1):
            cut[s] += 1
        unplaced[item] = 1
    return viable_top, height_top


HELPERS: tuple[Callable[..., Any], ...] = (
    start_node,
    rank_part,
    rerank,
    restore_ranks,
    backjump_target,
    _rests_on_unplaced,
    _next_candidate,
    _place,
    _sections_fit,
    _undo,
)
"""The functions `dive_steps` calls, which `jit` registers with numba (inlined) before compiling
it. They take the arrays they use one by one, not the state tuple: taking an array out of a
tuple costs a reference count per array and call, which halves the compiled loop's speed. The
calls keep their argument lists packed (`fmt: skip`) so that the loop reads in one screen."""
