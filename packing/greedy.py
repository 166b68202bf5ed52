"""Greedy packers: size-descending best-fit (the TFLite / XLA planners' baseline), other
orders with best- or first-fit, and "lowest first" (the exact search's first dive)."""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections.abc import Sequence

import numpy as np
from gpu_alloc.packing.budget import Allowance, greedy_units
from gpu_alloc.packing.component import Component, IntArray, align_up
from gpu_alloc.packing.items import PackItem

GAP_CHECK_EVERY = 256
"""`greedy_fit` reads the clock (under a wall-clock cap only) once per this many buffers."""


def greedy_fit(
    component: Component, order: IntArray, best: bool, allowance: Allowance | None = None
) -> IntArray | None:
    """Place items in `order`, each in the smallest (`best`) or lowest gap that fits it; pinned
    items go first, each at its pinned offset (`pack` has checked that those do not collide).

    Compares each buffer with every one placed before it: O(n^2) numpy work. With an
    `allowance`, it is charged up front (`greedy_units`) and the pass is skipped (None) when
    that is more than is left, or stopped (None) when the wall-clock cap runs out."""
    count = len(component)
    if allowance is not None:
        cost = greedy_units(count, scans_all_pairs=True)
        if cost > allowance.units_left():
            return None
        allowance.charge(cost)
    pins: list[int] | None = None
    if component.has_pins:
        pinned = component.pinned
        order = np.concatenate([order[pinned[order] >= 0], order[pinned[order] < 0]])
        pins = pinned.tolist()
    offsets = np.zeros(count, dtype=np.int64)
    placed_start = np.empty(count, dtype=np.int64)
    placed_end = np.empty(count, dtype=np.int64)
    placed_offset = np.empty(count, dtype=np.int64)
    placed_top = np.empty(count, dtype=np.int64)
    starts, ends, sizes, aligns = (
        component.start.tolist(),
        component.end.tolist(),
        component.size.tolist(),
        component.align.tolist(),
    )
    for placed, item in enumerate(order.tolist()):
        if placed % GAP_CHECK_EVERY == 0 and allowance is not None and allowance.out_of_time():
            return None
        start, end, size, align = starts[item], ends[item], sizes[item], aligns[item]
        live = np.flatnonzero((placed_start[:placed] < end) & (placed_end[:placed] > start))
        offset = -1 if pins is None else pins[item]
        if offset < 0:
            offset = 0
            if len(live):
                offset = _gap(placed_offset[live], placed_top[live], size, align, best)
        offsets[item] = offset
        placed_start[placed] = start
        placed_end[placed] = end
        placed_offset[placed] = offset
        placed_top[placed] = offset + size
    return offsets


def _gap(offsets: IntArray, tops: IntArray, size: int, align: int, best: bool) -> int:
    """The offset for a buffer of `size` bytes among placed ones at `offsets`..`tops`: in the
    smallest (`best`) or lowest gap that fits it, else on top of them all."""
    by_offset = np.argsort(offsets)
    gap_ends = offsets[by_offset]
    covered = np.maximum.accumulate(tops[by_offset])
    gap_starts = np.empty_like(gap_ends)
    gap_starts[0] = 0
    gap_starts[1:] = covered[:-1]
    if align > 1:
        gap_starts = -(-gap_starts // align) * align
    fits = np.flatnonzero(gap_starts + size <= gap_ends)
    if len(fits):
        chosen = fits[np.argmin((gap_ends - gap_starts)[fits])] if best else fits[0]
        return int(gap_starts[chosen])
    return align_up(int(covered[-1]), align)


def lowest_first(component: Component, allowance: Allowance | None = None) -> IntArray | None:
    """Repeatedly place the unplaced item that can go lowest (ties: earliest start, then longer
    first) directly on top of the placed items it overlaps: the search's first dive without a
    capacity. It alternates neighbours on chains of lifetimes, where size order does badly, and
    reaches the lower bound on several real traces.

    Each placement updates every buffer's lowest address in numpy: O(n^2) work. With an
    `allowance`, charged and skipped or stopped (None) as `greedy_fit` is; None as well when
    some buffer is pinned (stacking on top of what is placed cannot honour a pin)."""
    count = len(component)
    if component.has_pins:
        return None
    if allowance is not None:
        cost = greedy_units(count, scans_all_pairs=True)
        if cost > allowance.units_left():
            return None
        allowance.charge(cost)
    start, end, align = component.start, component.end, component.align
    ends, starts, sizes = end.tolist(), start.tolist(), component.size.tolist()
    tie_break = np.empty(count, dtype=np.int64)
    tie_break[np.lexsort((np.arange(count), start - end, start))] = np.arange(count)
    floor = np.zeros(count, dtype=np.int64)  # lowest aligned offset above the placed items
    offsets = np.zeros(count, dtype=np.int64)
    # One sortable key per item: (floor, tie-break) while unplaced, `done` once placed.
    scale = count + 1
    done = np.iinfo(np.int64).max
    if (int(component.size.sum()) + int(align.max(initial=1))) * scale >= done:
        scale = 0  # keys would overflow: break ties by index instead
    key = tie_break.copy() if scale else np.zeros(count, dtype=np.int64)
    for placed in range(count):
        if placed % GAP_CHECK_EVERY == 0 and allowance is not None and allowance.out_of_time():
            return None
        item = int(np.argmin(key))
        offsets[item] = lowest = int(floor[item])
        key[item] = done
        top = lowest + sizes[item]
        above = np.flatnonzero((start < ends[item]) & (end > starts[item]) & (key != done))
        if len(above):
            alignment = align[above]
            raised = np.maximum(floor[above], -(-top // alignment) * alignment)
            floor[above] = raised
            key[above] = raised * scale + tie_break[above] if scale else raised
    return offsets


class _FreeGaps:
    """Free address ranges [start, end) among the live buffers of a sweep, coalesced, found by
    best fit. The range above every live buffer ends at `unbounded` (larger than any peak)."""

    def __init__(self, unbounded: int):
        self.scale = unbounded + 1
        self.end_of = {0: unbounded}  # gap start -> gap end
        self.start_of = {unbounded: 0}  # gap end -> gap start
        self.by_size = [unbounded * self.scale]  # size * scale + start, sorted

    def add(self, start: int, end: int) -> None:
        if start in self.start_of:  # a gap ends where this one starts: merge
            start = self.start_of[start]
            self.remove(start)
        if end in self.end_of:
            end_after = self.end_of[end]
            self.remove(end)
            end = end_after
        self.end_of[start] = end
        self.start_of[end] = start
        insort(self.by_size, (end - start) * self.scale + start)

    def remove(self, start: int) -> None:
        end = self.end_of.pop(start)
        del self.start_of[end]
        del self.by_size[bisect_left(self.by_size, (end - start) * self.scale + start)]

    def take(self, size: int, align: int) -> int:
        """Place `size` bytes, `align`-aligned, in the smallest gap that holds them."""
        position = bisect_left(self.by_size, size * self.scale)
        while True:
            start = self.by_size[position] % self.scale
            end = self.end_of[start]
            offset = -(-start // align) * align
            if offset + size <= end:
                break
            position += 1
        self.remove(start)
        if start < offset:
            self.add(start, offset)
        if offset + size < end:
            self.add(offset + size, end)
        return offset


def sweep_fit(component: Component) -> IntArray:
    """Place buffers in order of their start (ties: larger first), each in the smallest free gap
    among the buffers live at that moment (a memory allocator's best fit replayed over time).
    Buffers placed earlier that overlap a buffer's lifetime are exactly those still live at
    its start, so a coalescing free list is all it needs: O(n log n) (plus list moves), the
    first packing of components too large for the quadratic packers. Pinned buffers are not
    honoured: `pack` packs components with pins by `greedy_fit`."""
    count = len(component)
    starts, ends = component.start.tolist(), component.end.tolist()
    sizes, aligns = component.size.tolist(), component.align.tolist()
    unbounded = int(component.size.sum()) + count * int(component.align.max(initial=1)) + 1
    gaps = _FreeGaps(unbounded)
    offsets = np.zeros(count, dtype=np.int64)
    live: list[tuple[int, int]] = []  # heap of (end, item)
    order = np.lexsort((np.arange(count), -component.size, component.start))
    for item in order.tolist():
        while live and live[0][0] <= starts[item]:
            _, done = heapq.heappop(live)
            gaps.add(int(offsets[done]), int(offsets[done]) + sizes[done])
        offsets[item] = gaps.take(sizes[item], aligns[item])
        heapq.heappush(live, (ends[item], item))
    return offsets


def size_descending(component: Component) -> IntArray:
    """TFLite's order: larger first; ties: earlier first use, then input order."""
    return np.lexsort((np.arange(len(component)), component.start, -component.size))


def greedy_orders(component: Component) -> list[tuple[IntArray, bool]]:
    """Orders (and best/first-fit) that `pack` tries after size-descending best-fit."""
    duration = component.end - component.start
    index = np.arange(len(component))
    return [
        (np.lexsort((index, -duration, component.start)), False),  # program order, first-fit
        (np.lexsort((index, -duration, -component.size)), True),
        (np.lexsort((index, -component.size, -duration)), True),
        (np.lexsort((index, -component.size * duration)), True),
        (size_descending(component), False),
    ]


def best_fit(items: Sequence[PackItem]) -> tuple[int, ...]:
    """Size-descending best-fit (TFLite / XLA style): the baseline `pack` starts from.

    Items are placed largest first (ties: earlier start, then input order), each in the smallest
    gap between the items already placed whose lifetimes overlap its own, at the lowest aligned
    address of that gap; if no gap fits, on top of them. Pinned items keep their offsets.
    """
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    offsets = [item.offset or 0 for item in items]
    component = Component.of(items, live)
    packed = greedy_fit(component, size_descending(component), True)
    assert packed is not None  # only an allowance can stop it
    for index, offset in zip(live, packed.tolist(), strict=True):
        offsets[index] = offset
    return tuple(offsets)
