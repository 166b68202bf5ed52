"""Greedy packers: size-descending best-fit (the TFLite / XLA planners' baseline), other
orders with best- or first-fit, and "lowest first" (the exact search's first dive)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from gpu_alloc.transforms.packing.component import Component, IntArray, align_up
from gpu_alloc.transforms.packing.items import PackItem


def greedy_fit(component: Component, order: IntArray, best: bool) -> IntArray:
    """Place items in `order`, each in the smallest (`best`) or lowest gap that fits it."""
    count = len(component)
    offsets = np.zeros(count, dtype=np.int64)
    placed_start = np.empty(count, dtype=np.int64)
    placed_end = np.empty(count, dtype=np.int64)
    placed_offset = np.empty(count, dtype=np.int64)
    placed_top = np.empty(count, dtype=np.int64)
    placed = 0
    starts, ends, sizes, aligns = (
        component.start.tolist(),
        component.end.tolist(),
        component.size.tolist(),
        component.align.tolist(),
    )
    for item in order.tolist():
        start, end, size, align = starts[item], ends[item], sizes[item], aligns[item]
        live = np.flatnonzero((placed_start[:placed] < end) & (placed_end[:placed] > start))
        offset = 0
        if len(live):
            live = live[np.argsort(placed_offset[live])]
            gap_ends = placed_offset[live]
            covered = np.maximum.accumulate(placed_top[live])
            gap_starts = np.empty_like(gap_ends)
            gap_starts[0] = 0
            gap_starts[1:] = covered[:-1]
            if align > 1:
                gap_starts = -(-gap_starts // align) * align
            fits = np.flatnonzero(gap_starts + size <= gap_ends)
            if len(fits):
                chosen = fits[np.argmin((gap_ends - gap_starts)[fits])] if best else fits[0]
                offset = int(gap_starts[chosen])
            else:
                offset = align_up(int(covered[-1]), align)
        offsets[item] = offset
        placed_start[placed] = start
        placed_end[placed] = end
        placed_offset[placed] = offset
        placed_top[placed] = offset + size
        placed += 1
    return offsets


def lowest_first(component: Component) -> IntArray:
    """Repeatedly place the unplaced item that can go lowest (ties: earliest start, then longer
    first) directly on top of the placed items it overlaps: the search's first dive without a
    capacity. It alternates neighbours on chains of lifetimes, where size order does badly, and
    reaches the lower bound on several real traces. O(n^2) time."""
    count = len(component)
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
    for _ in range(count):
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
    address of that gap; if no gap fits, on top of them.
    """
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    offsets = [0] * len(items)
    component = Component.of(items, live)
    for index, offset in zip(
        live, greedy_fit(component, size_descending(component), True), strict=True
    ):
        offsets[index] = int(offset)
    return tuple(offsets)
