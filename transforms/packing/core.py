"""The exact search's inner loop as one function over flat integer arrays.

`dive_steps` is plain Python that numba can compile (`jit` module): scalar loops, numpy arrays,
no Python objects. Compiled or interpreted, it visits the same nodes in the same order, so a
dive limited to the same number of nodes gives the same answer either way.

The dive is a depth-first search over canonical packings at one capacity (see
`search.CanonicalSearch`), written with an explicit stack so that it can stop after a given
number of nodes and resume later (the caller checks its allowance between calls). Every piece
of state lives in the arrays of a `DiveState`; nothing is allocated per node.
"""

from __future__ import annotations

import numpy as np

FOUND = 1
"""Every buffer is placed: `offsets` holds a packing within the capacity."""
EXHAUSTED = 0
"""The search finished without a packing: none exists within the capacity."""
PAUSED = 2
"""The node allowance of this call ran out; call again to go on."""

_DESCEND = 0  # enter a new node at `depth`
_NEXT = 1  # try the next candidate at `depth`
_FAILED = 2  # the candidate `failed` at `depth` led nowhere: backtrack or try the next one

# scalars[...]: the resumable part of the state.
DEPTH, PHASE, FAILED_ITEM, VIABLE_TOP, HEIGHT_TOP, NODES = range(6)
SCALARS = 6
STATE_ARRAYS = 21


def dive_steps(  # noqa: PLR0912, PLR0915 (one loop, kept flat so that numba compiles it well)
    first: np.ndarray,
    stop: np.ndarray,
    size: np.ndarray,
    align: np.ndarray,
    rank: np.ndarray,
    twin: np.ndarray,
    neighbour_start: np.ndarray,
    neighbours: np.ndarray,
    section_start: np.ndarray,
    section_items_start: np.ndarray,
    section_items: np.ndarray,
    capacity: int,
    state: tuple[np.ndarray, ...],
    max_nodes: int,
) -> int:
    """Run the dive for at most `max_nodes` more nodes; FOUND, EXHAUSTED or PAUSED.

    Static inputs (per buffer, buffers sorted by `first`): `first`/`stop` the sections it
    spans, `size`, `align`, `rank`
    (tie-break among equally low candidates, a permutation), `twin` (the identical buffer
    ranked just before it, or -1), and its time-overlapping buffers
    `neighbours[neighbour_start[i]:neighbour_start[i + 1]]`; `section_start[s]` is the first
    buffer whose `first` is at least s (the unplaced buffers of a part are a range of them),
    and `section_items[section_items_start[s]:section_items_start[s + 1]]` the buffers
    spanning section s.

    Rules (after MiniMalloc): buffers are placed in non-decreasing (offset, rank), each at the
    lowest aligned address above the buffers placed so far that it overlaps in time; a buffer
    is not placed at or above the top another unplaced buffer would have at its own lowest
    address (dominated), nor so high that the fullest section cannot fit what is left; after a
    placement, every section whose floor rose must still hold what is left to place there; and
    when a failed buffer has nothing unplaced above it, its siblings are not tried.
    """
    viable, unplaced, height, remaining, offsets, placed, tried_offset, tried_rank = state[:8]
    lowest_top, highest, viable_mark, height_mark, saved_item, saved_viable = state[8:14]
    saved_height, cut, part_high, fresh, part_begin, part_end, scalars = state[14:21]
    n = len(size)
    sections = len(height)
    depth = scalars[DEPTH]
    phase = scalars[PHASE]
    failed = scalars[FAILED_ITEM]
    viable_top = scalars[VIABLE_TOP]
    height_top = scalars[HEIGHT_TOP]
    nodes = 0
    status = PAUSED
    while True:
        if phase == _DESCEND:
            if depth == n:
                status = FOUND
                break
            if nodes >= max_nodes:
                break
            nodes += 1
            # The part to work on: from the first section with something left to place up to
            # the first boundary no unplaced buffer crosses (the rest is independent of it).
            low = 0
            while remaining[low] == 0:
                low += 1
            high = low + 1
            while high < sections and cut[high - 1] > 0:
                high += 1
            part_high[depth] = high
            begin = section_start[low]
            end = section_start[high]
            part_begin[depth] = begin
            part_end[depth] = end
            fresh[depth] = 1 if depth == 0 or part_high[depth - 1] != high else 0
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
            phase = _NEXT
            continue
        if phase == _FAILED:
            has_hat = False
            for k in range(neighbour_start[failed], neighbour_start[failed + 1]):
                if unplaced[neighbours[k]]:
                    has_hat = True
                    break
            if has_hat:
                phase = _NEXT
                continue
        else:
            # _NEXT: the lowest candidate above the last placed buffer and the last one tried.
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
                viable_mark[depth] = viable_top
                height_mark[depth] = height_top
                # Place `best` at its lowest address.
                item_top = best_offset + size[best]
                offsets[best] = best_offset
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
                # Sections whose floor may have risen: the lowest unplaced buffer crossing
                # each (its floor) plus what is left to place there must fit.
                fits = True
                for s in range(check_low, check_high):
                    if remaining[s] == 0:
                        continue
                    threshold = capacity - remaining[s]
                    if height[s] > threshold or best_offset > threshold:
                        fits = False
                        break
                    low_enough = False
                    for k in range(section_items_start[s], section_items_start[s + 1]):
                        j = section_items[k]
                        if unplaced[j] and viable[j] <= threshold:
                            low_enough = True
                            break
                    if not low_enough:
                        fits = False
                        break
                if fits:
                    depth += 1
                    phase = _DESCEND
                    continue
                failed = best
                target = depth
            else:
                # No candidate left: this node fails. A part's first node failing means the
                # part cannot be packed whatever its independent siblings do, so the search
                # goes back to the placement that split them off.
                target = depth - 1
                if fresh[depth]:
                    while target >= 0 and part_high[target] < part_high[depth]:
                        target -= 1
                if target < 0:
                    status = EXHAUSTED
                    break
            # Take the buffers placed at depths target..depth-1 (and a failed `best`) off again.
            if target == depth:
                undo_from = depth
            else:
                undo_from = depth - 1
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
            depth = target
            failed = placed[target]
            phase = _FAILED
            continue
        # _FAILED with nothing resting on the failed buffer: this node fails too.
        phase = _NEXT
        tried_offset[depth] = capacity + 1  # no candidate is left above this
    scalars[DEPTH] = depth
    scalars[PHASE] = phase
    scalars[FAILED_ITEM] = failed
    scalars[VIABLE_TOP] = viable_top
    scalars[HEIGHT_TOP] = height_top
    scalars[NODES] += nodes
    return status
