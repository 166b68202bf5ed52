"""Static memory packing: give every buffer a byte offset so that buffers live at the same time
never share a byte, keeping the peak (the backing buffer's size) small.

This is the dynamic storage allocation problem (DSA) that `fuse-gpu-allocs` solves once per kernel
and memory space, and that `gpu-alloc-pack` solves for MiniMalloc-format CSV files. It is pure
Python plus numpy, with no xDSL dependency.

How `pack` works:

1. Items that occupy no memory (size 0 or an empty lifetime) get offset 0.
2. The rest is split at time cutlines (points no lifetime crosses) into independent components.
3. Each component is first packed by size-descending best-fit (`best_fit`, the TFLite / XLA
   planners' idea), then by "lowest first" (always place the buffer that can go lowest; good on
   chains of lifetimes and on several real traces), and, for components small enough to
   search, by a few other greedy orders while time allows; the best result is kept, so it is
   never worse than best-fit.
4. If the peak is above the max-load lower bound and the component has at most
   `SEARCH_MAX_ITEMS` buffers, a branch-and-bound search in the spirit of MiniMalloc (Moffitt,
   ASPLOS'23) asks "is there a packing within capacity C?" for shrinking C (the lower bound
   first; then, up to 64 buffers, a ladder of capacities above it, and above 64 a descent of
   short dives guided by the best packing so far; then a binary search) until the peak is
   proven optimal or the time limit runs out. Capacities are multiples of a quantum every
   canonical peak is a multiple of. The search only visits *canonical* packings: every
   buffer sits as low as it can on top of the buffers placed before it, and buffers are placed
   in order of increasing offset. Every gravity-compacted packing is canonical, so a finished
   search is a proof. It prunes with the per-time-section bound "floor here + size still to
   place here <= C", skips dominated placements, and splits the rest of the problem wherever no
   unplaced buffer crosses a time point.

Every result is checked with `validate` before it is returned.
"""

from __future__ import annotations

import math
import sys
import time
from bisect import bisect_left, insort
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import numpy.typing as npt

DEFAULT_TIME_LIMIT = 1.0
"""Seconds `pack` may spend improving on best-fit (summed over components).

The greedy start always runs to completion (milliseconds for kernel-sized inputs), so a kernel's
compile time is bounded by about this much per packed memory space. Inputs whose best-fit peak
already equals the lower bound return at once.
"""

SEARCH_MAX_ITEMS = 5000
"""Components with more buffers than this are only packed greedily (the exact search keeps an
items x items overlap matrix)."""

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class PackingError(ValueError):
    """A packing item is malformed, or a set of offsets is not a valid packing.

    `indices` names the items at fault (positions in the input sequence).
    """

    def __init__(self, message: str, indices: tuple[int, ...] = ()):
        super().__init__(message)
        self.indices = indices


@dataclass(frozen=True)
class PackItem:
    """One buffer: live during the half-open time interval [start, end), `size` bytes."""

    start: int
    end: int
    size: int
    alignment: int = 1

    def __post_init__(self) -> None:
        if self.end < self.start:
            raise PackingError(f"lifetime [{self.start}, {self.end}) ends before it starts")
        if self.size < 0:
            raise PackingError(f"size {self.size} is negative")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise PackingError(f"alignment {self.alignment} is not a positive power of two")

    @property
    def occupies_memory(self) -> bool:
        return self.size > 0 and self.end > self.start


@dataclass(frozen=True)
class Packing:
    """Offsets for a list of `PackItem`s (in input order) and how good they are."""

    offsets: tuple[int, ...]
    peak: int
    """max(offset + size) over the items (never-live ones included), 0 when there are none."""
    lower_bound: int
    """Max over time of the total size live at that time: no packing can have a smaller peak."""
    optimal: bool
    """True when no packing has a smaller peak (peak == lower bound, or the search finished)."""


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def lower_bound(items: Sequence[PackItem]) -> int:
    """The max-load lower bound: the largest total size of the items live at one time."""
    live = [item for item in items if item.occupies_memory]
    if not live:
        return 0
    times = np.array([i.start for i in live] + [i.end for i in live], dtype=np.int64)
    sizes = np.array([i.size for i in live], dtype=np.int64)
    deltas = np.concatenate([sizes, -sizes])
    order = np.lexsort((deltas, times))  # at equal times, ends (negative deltas) come first
    return int(np.cumsum(deltas[order]).max())


def validate(items: Sequence[PackItem], offsets: Sequence[int]) -> None:
    """Raise `PackingError` unless `offsets` is a valid packing of `items`.

    Checks one offset per item, non-negative offsets that are multiples of each item's alignment,
    and that no two items with overlapping lifetimes overlap in memory.
    """
    if len(offsets) != len(items):
        raise PackingError(f"{len(offsets)} offsets for {len(items)} items")
    for index, (item, offset) in enumerate(zip(items, offsets, strict=True)):
        if offset < 0:
            raise PackingError(f"item {index} has negative offset {offset}", (index,))
        if offset % item.alignment:
            raise PackingError(
                f"item {index} at offset {offset} is not aligned to {item.alignment} bytes",
                (index,),
            )
    events: list[tuple[int, int, int]] = []  # (time, 0 = end / 1 = start, item)
    for index, item in enumerate(items):
        if item.occupies_memory:
            events.append((item.start, 1, index))
            events.append((item.end, 0, index))
    events.sort()
    # Items live at the sweep time never overlap in memory, so sorting them by offset is enough
    # to check each new one against its two neighbours.
    live_offsets: list[tuple[int, int]] = []  # (offset, item)
    for _, is_start, index in events:
        key = (offsets[index], index)
        if not is_start:
            del live_offsets[bisect_left(live_offsets, key)]
            continue
        position = bisect_left(live_offsets, key)
        for neighbour_position in (position - 1, position):
            if 0 <= neighbour_position < len(live_offsets):
                other = live_offsets[neighbour_position][1]
                if _overlap_in_memory(items, offsets, index, other):
                    first, second = sorted((index, other))
                    raise PackingError(
                        _overlap_message(items, offsets, first, second), (first, second)
                    )
        insort(live_offsets, key)


def _overlap_in_memory(items: Sequence[PackItem], offsets: Sequence[int], a: int, b: int) -> bool:
    return offsets[a] < offsets[b] + items[b].size and offsets[b] < offsets[a] + items[a].size


def _overlap_message(items: Sequence[PackItem], offsets: Sequence[int], a: int, b: int) -> str:
    def describe(index: int) -> str:
        item = items[index]
        return (
            f"item {index} (live [{item.start}, {item.end}), "
            f"bytes [{offsets[index]}, {offsets[index] + item.size}))"
        )

    return f"{describe(a)} and {describe(b)} are live at the same time and overlap in memory"


# --------------------------------------------------------------------------------------------
# Greedy packing


@dataclass
class _Component:
    """Items that occupy memory, as arrays (positions are local; `ids` maps back to the input)."""

    ids: IntArray
    start: IntArray
    end: IntArray
    size: IntArray
    align: IntArray

    @staticmethod
    def of(items: Sequence[PackItem], ids: Sequence[int]) -> _Component:
        def column(name: str) -> IntArray:
            return np.array([getattr(items[i], name) for i in ids], dtype=np.int64)

        return _Component(
            np.array(ids, dtype=np.int64),
            column("start"),
            column("end"),
            column("size"),
            column("alignment"),
        )

    def __len__(self) -> int:
        return len(self.ids)

    def peak(self, offsets: IntArray) -> int:
        return int((offsets + self.size).max()) if len(self) else 0

    def lower_bound(self) -> int:
        if not len(self):
            return 0
        times = np.concatenate([self.start, self.end])
        deltas = np.concatenate([self.size, -self.size])
        order = np.lexsort((deltas, times))
        return int(np.cumsum(deltas[order]).max())


def _greedy_fit(component: _Component, order: IntArray, best: bool) -> IntArray:
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
                offset = _align_up(int(covered[-1]), align)
        offsets[item] = offset
        placed_start[placed] = start
        placed_end[placed] = end
        placed_offset[placed] = offset
        placed_top[placed] = offset + size
        placed += 1
    return offsets


def _lowest_first(component: _Component) -> IntArray:
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


def _size_descending(component: _Component) -> IntArray:
    """TFLite's order: larger first; ties: earlier first use, then input order."""
    return np.lexsort((np.arange(len(component)), component.start, -component.size))


def _greedy_orders(component: _Component) -> list[tuple[IntArray, bool]]:
    """Orders (and best/first-fit) that `pack` tries after size-descending best-fit."""
    duration = component.end - component.start
    index = np.arange(len(component))
    return [
        (np.lexsort((index, -duration, component.start)), False),  # program order, first-fit
        (np.lexsort((index, -duration, -component.size)), True),
        (np.lexsort((index, -component.size, -duration)), True),
        (np.lexsort((index, -component.size * duration)), True),
        (_size_descending(component), False),
    ]


def best_fit(items: Sequence[PackItem]) -> tuple[int, ...]:
    """Size-descending best-fit (TFLite / XLA style): the baseline `pack` starts from.

    Items are placed largest first (ties: earlier start, then input order), each in the smallest
    gap between the items already placed whose lifetimes overlap its own, at the lowest aligned
    address of that gap; if no gap fits, on top of them.
    """
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    offsets = [0] * len(items)
    component = _Component.of(items, live)
    for index, offset in zip(
        live, _greedy_fit(component, _size_descending(component), True), strict=True
    ):
        offsets[index] = int(offset)
    return tuple(offsets)


# --------------------------------------------------------------------------------------------
# Exact search


class _SearchTimeout(Exception):
    pass


class _NodeLimit(Exception):
    pass


class _CanonicalSearch:
    """Depth-first search over canonical packings of one component under a capacity.

    A canonical packing places buffers one by one in order of non-decreasing (offset, rank), each
    at the lowest aligned address above every already-placed buffer it overlaps in time. Pruning
    (after MiniMalloc): a buffer is never placed at or above the top that another unplaced buffer
    would have at its lowest address (that buffer could go below it: a dominated solution); and at
    every time section, max(section height, current offset) + the size still to place there must
    fit in the capacity.
    """

    def __init__(self, component: _Component):
        self.component = component
        count = len(component)
        times = np.unique(np.concatenate([component.start, component.end]))
        self.first = np.searchsorted(times, component.start)
        self.stop = np.searchsorted(times, component.end)
        self.sections = len(times) - 1
        self.overlap: BoolArray = (component.start[:, None] < component.end[None, :]) & (
            component.end[:, None] > component.start[None, :]
        )
        np.fill_diagonal(self.overlap, False)
        load = np.zeros(self.sections + 1, dtype=np.int64)
        np.add.at(load, self.first, component.size)
        np.add.at(load, self.stop, -component.size)
        self.load = np.cumsum(load)[: self.sections]
        # Static tie-breaks among equally low candidates: program order forwards and backwards,
        # then MiniMalloc's
        # preorderings by the heaviest section a buffer crosses ("total"), its lifetime and area.
        total = np.array(
            [
                self.load[f:s].max()
                for f, s in zip(self.first.tolist(), self.stop.tolist(), strict=True)
            ],
            dtype=np.int64,
        )
        width = component.end - component.start
        area = component.size * (component.end - component.start)
        index = np.arange(count)
        self.rankings: list[IntArray] = []
        orders = (
            (component.start, -width, -component.size),  # program order: good on chains
            (-component.end, -width, -component.size),  # the same backwards in time
            (-total, -area, -width),
            (-width, -area, -total),
            (-total, -width, -area),
        )
        for keys in orders:
            rank = np.empty(count, dtype=np.int64)
            rank[np.lexsort((index, *reversed(keys)))] = index
            self.rankings.append(rank)
        # Identical buffers are interchangeable: place them in rank order only.
        keys = np.stack([component.start, component.end, component.size, component.align], axis=1)
        _, group = np.unique(keys, axis=0, return_inverse=True)
        self.group = group.reshape(-1)
        self.neighbours = [np.flatnonzero(row) for row in self.overlap]
        self.nodes = 0

    def decide(self, capacity: int, deadline: float, rounds: int | None = None) -> IntArray | None:
        """Offsets with peak <= capacity, or None if there are none.

        Tries each ranking in turn with a node budget that doubles every round (MiniMalloc's
        round robin). Raises `_SearchTimeout` if the deadline passes, `_NodeLimit` after
        `rounds` rounds without an answer."""
        budget = max(64, len(self.component))
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * len(self.component) + 1000))
        try:
            while rounds is None or rounds > 0:
                budget *= 2
                for rank in self.rankings:
                    try:
                        return _Dive(self, capacity, deadline, rank, budget).run()
                    except _NodeLimit:
                        continue
                rounds = None if rounds is None else rounds - 1
            raise _NodeLimit
        finally:
            sys.setrecursionlimit(limit)

    def probe(
        self, capacity: int, deadline: float, rankings: Sequence[IntArray], budget: int
    ) -> IntArray | None:
        """One dive per ranking, each limited to `budget` nodes: the first packing within
        `capacity` found, or None if a dive finished its search without one (a proof that
        there is none). Raises `_NodeLimit` when every dive runs out of nodes."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * len(self.component) + 1000))
        try:
            for rank in rankings:
                try:
                    return _Dive(self, capacity, deadline, rank, budget).run()
                except _NodeLimit:
                    continue
            raise _NodeLimit
        finally:
            sys.setrecursionlimit(limit)

    def guided(self, offsets: IntArray, ranking: IntArray) -> IntArray:
        """A ranking that follows a known packing: by offset, then by `ranking`.

        Among equally low candidates the search then rebuilds that packing, and where a tighter
        capacity forbids it, it departs from it as little as its order allows."""
        rank = np.empty(len(offsets), dtype=np.int64)
        rank[np.lexsort((ranking, offsets))] = np.arange(len(offsets))
        return rank

    def twin_before(self, rank: IntArray) -> IntArray:
        """For each buffer, the identical buffer ranked just before it (or -1)."""
        twin_before = np.full(len(rank), -1, dtype=np.int64)
        last_of_group: dict[int, int] = {}
        for item in np.argsort(rank).tolist():
            group = int(self.group[item])
            twin_before[item] = last_of_group.get(group, -1)
            last_of_group[group] = item
        return twin_before


class _Dive:
    """One depth-first search of `_CanonicalSearch` at a fixed capacity, ranking and node budget.

    When placing a buffer leaves no unplaced buffer crossing some section boundary, the rest
    falls apart into independent parts, each solved on its own (a failure in one part is not
    retried against every solution of the others).
    """

    def __init__(
        self, search: _CanonicalSearch, capacity: int, deadline: float, rank: IntArray, budget: int
    ):
        component = search.component
        self.search = search
        self.capacity = capacity
        self.deadline = deadline
        self.rank = rank
        self.budget = budget
        self.size = component.size
        self.align = component.align
        self.sizes = component.size.tolist()
        self.first = search.first.tolist()
        self.stop = search.stop.tolist()
        self.remaining = search.load.copy()
        self.height = np.zeros(search.sections, dtype=np.int64)
        self.viable = np.zeros(len(component), dtype=np.int64)  # lowest aligned offset per buffer
        self.unplaced = np.ones(len(component), dtype=np.bool_)
        self.offsets = np.zeros(len(component), dtype=np.int64)
        # cuts[t]: unplaced buffers crossing the boundary between sections t and t + 1.
        cuts = np.zeros(search.sections + 1, dtype=np.int64)
        np.add.at(cuts, search.first, 1)
        np.add.at(cuts, search.stop - 1, -1)
        self.cuts = np.cumsum(cuts)[: max(0, search.sections - 1)]
        twin_before = search.twin_before(rank)
        self.has_twin = twin_before >= 0
        self.twin_before = np.maximum(twin_before, 0)
        self.memo: dict[tuple[int, int, bytes, bytes, bytes], IntArray | None] = {}
        self.nodes = 0

    def run(self) -> IntArray | None:
        if not len(self.offsets):
            return self.offsets
        if int(self.remaining.max()) > self.capacity:
            return None
        everything = np.arange(len(self.offsets))
        found = self._search(everything, 0, self.search.sections, -1, -1)
        self.search.nodes += self.nodes
        return self.offsets.copy() if found else None

    def _search(
        self, part: IntArray, low: int, high: int, last_offset: int, last_rank: int
    ) -> bool:
        """Place the unplaced buffers of `part` (sections [low, high)); True when all fit."""
        self.nodes += 1
        if self.nodes > self.budget:
            self.search.nodes += self.nodes
            raise _NodeLimit
        if self.nodes & 63 == 0 and time.perf_counter() > self.deadline:
            self.search.nodes += self.nodes
            raise _SearchTimeout
        part = part[self.unplaced[part]]
        if not len(part):
            return True
        viable, size, rank = self.viable[part], self.size[part], self.rank[part]
        lowest_top = int((viable + size).min())
        highest = self.capacity - int(self.remaining[low:high].max())
        allowed = (viable < lowest_top) & (viable <= highest)
        allowed &= (viable > last_offset) | ((viable == last_offset) & (rank > last_rank))
        allowed &= ~(self.has_twin[part] & self.unplaced[self.twin_before[part]])
        chosen = np.flatnonzero(allowed)
        chosen = chosen[np.lexsort((rank[chosen], viable[chosen]))]
        for item in part[chosen].tolist():
            if self._place_and_continue(part, low, high, item):
                return True
            if not (self.search.overlap[item] & self.unplaced).any():
                # Nothing rests on this buffer: placing another one first cannot help.
                return False
        return False

    def _solve_part(self, part: IntArray, low: int, high: int) -> bool:
        """`_search` on an independent part, remembering the outcome.

        A part's outcome depends only on its buffers, their lowest addresses and the heights of
        its sections, so the same part met again (after a sibling part failed and an ancestor
        moved on) is answered from memory."""
        if not len(part):
            return True
        key = (
            low,
            high,
            part.tobytes(),
            self.viable[part].tobytes(),
            self.height[low:high].tobytes(),
        )
        if key in self.memo:
            solved = self.memo[key]
            if solved is None:
                return False
            self.offsets[part] = solved
            return True
        found = self._search(part, low, high, -1, -1)
        self.memo[key] = self.offsets[part].copy() if found else None
        return found

    def _place_and_continue(self, part: IntArray, low: int, high: int, item: int) -> bool:
        offset = int(self.viable[item])
        size = self.sizes[item]
        top = offset + size
        lo, hi = self.first[item], self.stop[item]
        saved_height = self.height[lo:hi].copy()
        self.offsets[item] = offset
        self.unplaced[item] = False
        self.remaining[lo:hi] -= size
        self.height[lo:hi] = top
        neighbours = self.search.neighbours[item]
        neighbours = neighbours[self.unplaced[neighbours]]
        saved_viable = self.viable[neighbours]
        alignment = self.align[neighbours]
        raised_viable = np.maximum(saved_viable, -(-top // alignment) * alignment)
        self.viable[neighbours] = raised_viable
        self.cuts[lo : hi - 1] -= 1
        try:
            # Only sections under this buffer or under a neighbour whose lowest address rose can
            # have a higher floor now (the others were checked when their floor last rose).
            raised = neighbours[raised_viable > saved_viable]
            lo_fit, hi_fit = lo, hi
            if len(raised):
                lo_fit = min(lo_fit, int(self.search.first[raised].min()))
                hi_fit = max(hi_fit, int(self.search.stop[raised].max()))
            if not self._fits(offset, max(low, lo_fit), min(high, hi_fit)):
                return False
            split = lo + np.flatnonzero(self.cuts[lo : hi - 1] == 0) + 1
            split = split[(split > low) & (split < high)]
            rank = int(self.rank[item])
            if not len(split):
                return self._search(part, low, high, offset, rank)
            bounds = [low, *split.tolist(), high]
            first, stop = self.search.first[part], self.search.stop[part]
            for sub_low, sub_high in pairwise(bounds):
                inside = part[(first < sub_high) & (stop > sub_low) & self.unplaced[part]]
                if not self._solve_part(inside, sub_low, sub_high):
                    return False
            return True
        finally:
            self.cuts[lo : hi - 1] += 1
            self.viable[neighbours] = saved_viable
            self.height[lo:hi] = saved_height
            self.remaining[lo:hi] += size
            self.unplaced[item] = True

    def _fits(self, offset: int, low: int, high: int) -> bool:
        """Whether every section in [low, high) can still hold what is left to place in it.

        A section's floor is at least its height, the last offset (placement is monotone), and
        the lowest address of any unplaced buffer crossing it."""
        if low >= high:
            return True
        first, stop = self.search.first, self.search.stop
        crossing = np.flatnonzero(self.unplaced & (first < high) & (stop > low))
        floor = np.maximum(self.height[low:high], offset)
        remaining = self.remaining[low:high]
        if len(crossing):
            lowest = _lowest_over_intervals(
                np.maximum(first[crossing], low) - low,
                np.minimum(stop[crossing], high) - low,
                self.viable[crossing],
                high - low,
                self.capacity,
            )
            floor = np.maximum(floor, lowest)
        return bool((floor + remaining <= self.capacity).all())


def _lowest_over_intervals(
    begin: IntArray, end: IntArray, value: IntArray, length: int, default: int
) -> IntArray:
    """For each point of [0, length), the smallest `value` whose interval [begin, end) holds it
    (`default` where none does).

    Each interval is covered by two blocks of length 2^k (k = floor(log2 of its length)); block
    minima are recorded per level and pushed down to the points, level by level: O(intervals +
    length * log(length)) in a few numpy calls instead of an intervals x length matrix."""
    levels = length.bit_length()
    table = np.full((levels, length), default, dtype=np.int64)
    level = (np.frexp(end - begin)[1] - 1).astype(np.int64)  # floor(log2(span))
    np.minimum.at(table, (level, begin), value)
    np.minimum.at(table, (level, end - (1 << level)), value)
    for k in range(levels - 1, 0, -1):
        half = 1 << (k - 1)
        upper, lower = table[k], table[k - 1]
        np.minimum(lower, upper, out=lower)
        np.minimum(lower[half:], upper[: length - half], out=lower[half:])
    return table[0]


LADDER = (0.02, 0.04, 0.06, 0.09, 0.13, 0.2)
"""Capacities (as fractions above the lower bound) that `_improve` tries with short dives."""


DESCENT_MIN_ITEMS = 64
"""Components with more buffers than this get the solution-guided descent in `_improve`."""
DESCENT_SHARE = 0.95
"""Fraction of the time left after the first question that the descent may use (the binary
search after it rarely finishes on components this large)."""
DESCENT_BUDGET = 2
"""Nodes per buffer that one dive of the descent may visit."""
DESCENT_STEPS = (0.0, 0.1, 0.3)
"""Capacities the descent cycles through, as fractions of the way from the best peak (less one
quantum) down to the proven lower bound (deeper steps rarely succeed and cost the most)."""


def _improve(
    component: _Component, offsets: IntArray, bound: int, deadline: float, enough: int = 0
) -> tuple[IntArray, bool]:
    """Search for a better packing than `offsets`; return it and whether it is proven optimal.

    Asks "is there a packing within capacity C?": first for C = the lower bound (the usual
    optimum for kernel-sized inputs) with half the time up to 64 buffers, an eighth above; then,
    up to `DESCENT_MIN_ITEMS` buffers, down a ladder of capacities above it with one short round
    of dives each (success is not monotone in the capacity: a tighter one can prune a dive onto
    a good path sooner), and above that the guided descent (`_descend`); then in
    rounds of binary search between the proven lower bound and the best peak found, where a
    question that runs out of its time share counts as "no" for the rest of the round and each
    round gives more time per question. Capacities are counted in `_quantum`s. The search stops
    early once the peak is at most `enough` (when a better one would not lower the result).
    """
    best = component.peak(offsets)
    search = _CanonicalSearch(component)
    quantum = _quantum(component)
    # If the optimum is below `best`, it is low * quantum, ..., or high * quantum.
    low, high = -(-bound // quantum), (best - 1) // quantum

    def ask(capacity: int, seconds: float, rounds: int | None = None) -> bool:
        """Record the answer for `capacity`; False if there was none in time."""
        nonlocal low, high, offsets, best
        try:
            found = search.decide(
                capacity * quantum, min(deadline, time.perf_counter() + seconds), rounds
            )
        except (_SearchTimeout, _NodeLimit):
            return False
        if found is None:
            low = max(low, capacity + 1)
        else:
            offsets, best = found, component.peak(found)
            high = (best - 1) // quantum
        return True

    def searching() -> bool:
        return low <= high and best > enough and time.perf_counter() < deadline

    def _descend() -> None:
        """Short dives below the best peak, guided by the best packing and by the static
        rankings (solution-guided search): each success moves the incumbent, and the next
        dives follow it. Dives are deterministic, so once a whole cycle of capacities has
        failed, later dives alternate between other guides (the incumbent upside down, a
        packing too that bottom-up dives rebuild along other paths, and other tie-breaks) and
        the `LADDER` capacities below the incumbent with the static rankings alone (a tight
        capacity can prune a dive onto a good path that a looser one misses)."""
        nonlocal low, high, offsets, best
        stop = time.perf_counter() + (deadline - time.perf_counter()) * DESCENT_SHARE
        budget = DESCENT_BUDGET * len(component)
        statics = search.rankings
        rungs = [(bound + int(bound * fraction)) // quantum for fraction in reversed(LADDER)]
        step = failed = 0
        while searching() and time.perf_counter() < stop:
            capacity = high - int((high - low) * DESCENT_STEPS[step % len(DESCENT_STEPS)])
            step += 1
            cycle = failed // len(DESCENT_STEPS)
            rungs = [rung for rung in rungs if low <= rung <= high]
            if cycle == 0:
                rankings = [search.guided(offsets, rank) for rank in statics[:2]] + statics
            elif failed % 2 and rungs:
                capacity, rankings = rungs.pop(0), statics
            else:
                flipped = best - offsets - component.size
                rankings = [
                    search.guided(flipped, statics[(cycle - 1) % len(statics)]),
                    search.guided(offsets, statics[(cycle + 1) % len(statics)]),
                ]
            try:
                found = search.probe(capacity * quantum, min(deadline, stop), rankings, budget)
            except _NodeLimit:
                failed += 1
                continue
            except _SearchTimeout:
                return
            if found is None:
                low = max(low, capacity + 1)
            else:
                offsets, best = found, component.peak(found)
                high = (best - 1) // quantum
                failed = 0

    if searching():  # kernel-sized inputs usually end here: give them half the time
        ask(low, (deadline - time.perf_counter()) / (2 if len(component) <= 64 else 8))
    for fraction in reversed(LADDER) if len(component) <= DESCENT_MIN_ITEMS else ():
        capacity = (bound + int(bound * fraction)) // quantum
        if capacity > high:
            continue
        if capacity < low or not searching():
            break
        ask(capacity, deadline - time.perf_counter(), rounds=1)
    if len(component) > DESCENT_MIN_ITEMS:
        _descend()
    share = max(0.005, (deadline - time.perf_counter()) / 8)
    while searching():
        round_low, round_high = low, high
        while round_low <= round_high and searching():
            capacity = (round_low + round_high) // 2
            if not ask(capacity, share):
                round_low = capacity + 1
            round_low, round_high = max(round_low, low), min(round_high, high)
        share *= 2
    return offsets, low > high


def _quantum(component: _Component) -> int:
    """A step every canonical packing's offsets and peak are multiples of.

    Sizes are multiples of their gcd g; aligning a multiple of q up to an alignment a gives a
    multiple of q when a divides q, and a multiple of a otherwise, so q = g reduced by gcd with
    every alignment that does not divide it works. Every packing compacts into a canonical one
    with no larger peak, so asking for capacity C is asking for C rounded down to a multiple."""
    quantum = int(np.gcd.reduce(component.size)) if len(component) else 1
    for alignment in np.unique(component.align).tolist():
        if quantum % alignment:
            quantum = math.gcd(quantum, alignment)
    return max(quantum, 1)


def _components(items: Sequence[PackItem], live: list[int]) -> list[list[int]]:
    """Split items into groups no lifetime crosses between (independent subproblems)."""
    ordered = sorted(live, key=lambda i: items[i].start)
    groups: list[list[int]] = []
    reach = None
    for index in ordered:
        if reach is None or items[index].start >= reach:
            groups.append([])
            reach = items[index].end
        groups[-1].append(index)
        reach = max(reach, items[index].end)
    return groups


def pack(items: Sequence[PackItem], time_limit: float = DEFAULT_TIME_LIMIT) -> Packing:
    """Offsets for `items` with a small peak; see the module docstring for the method.

    `time_limit` bounds the time spent improving on the greedy packings (in seconds).
    """
    deadline = time.perf_counter() + time_limit
    offsets = [0] * len(items)
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    groups = sorted(_components(items, live), key=len)
    optimal_peaks: list[bool] = []
    peaks: list[int] = []
    total = max(1, sum(len(group) for group in groups))
    done = 0
    components = [_Component.of(items, group) for group in groups]
    bounds = [component.lower_bound() for component in components]
    for group, component, bound in zip(groups, components, bounds, strict=True):
        share = time.perf_counter() + (deadline - time.perf_counter()) * len(group) / (total - done)
        done += len(group)
        started = time.perf_counter()
        result = _greedy_fit(component, _size_descending(component), True)
        peak = component.peak(result)
        greedy_time = time.perf_counter() - started
        # Lowest-first takes about half as long as best-fit did: on large components, run it
        # only when that much time is left.
        searchable = len(component) <= SEARCH_MAX_ITEMS
        if peak > bound and (searchable or share - time.perf_counter() >= greedy_time / 2):
            candidate = _lowest_first(component)
            if component.peak(candidate) < peak:
                result, peak = candidate, component.peak(candidate)
        for order, best in _greedy_orders(component) if searchable else []:
            if peak == bound or time.perf_counter() >= share:
                break
            candidate = _greedy_fit(component, order, best)
            if component.peak(candidate) < peak:
                result, peak = candidate, component.peak(candidate)
        optimal = peak == bound
        if not optimal and len(component) <= SEARCH_MAX_ITEMS:
            # The result's peak is the largest component's: going below another component's
            # lower bound or an earlier one's peak would not lower it.
            enough = max(max(bounds), max(peaks, default=0))
            result, optimal = _improve(component, result, bound, share, enough)
            peak = component.peak(result)
        for index, offset in zip(group, result.tolist(), strict=True):
            offsets[index] = offset
        peaks.append(peak)
        optimal_peaks.append(optimal)
    validate(items, offsets)
    # A buffer that is never live still needs its bytes inside the backing buffer (at 0).
    unavoidable = max((item.size for item in items if not item.occupies_memory), default=0)
    peak = max(max(peaks, default=0), unavoidable)
    bound = lower_bound(items)
    optimal = peak == max(bound, unavoidable) or any(
        p == peak and proven for p, proven in zip(peaks, optimal_peaks, strict=True)
    )
    return Packing(tuple(offsets), peak, bound, optimal)
