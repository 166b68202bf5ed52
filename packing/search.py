"""Exact search: depth-first branch and bound over canonical packings of one component under a
fixed capacity (in the spirit of MiniMalloc, Moffitt, ASPLOS'23)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from gpu_alloc.packing.budget import Allowance, OutOfBudget
from gpu_alloc.packing.component import BoolArray, Component, IntArray
from gpu_alloc.packing.flat import DiveLimit, FlatProblem, Order
from gpu_alloc.packing.items import PackItem, Refutation

FLAT_MIN_ITEMS = 65
"""Components with at least this many buffers are searched by the flat inner loop
(`core.dive_steps`, compiled with numba where available); smaller ones (kernel-sized inputs,
proven optimal in milliseconds) keep the numpy search below and never pay for a compile."""


class NodeLimit(Exception):
    """A dive used up its own node budget without an answer."""


@dataclass(frozen=True, eq=False)
class Ranking:
    """A tie-break order among equally low candidates: `rank` (a permutation) at the root.

    With `keys` (one row per buffer, larger first, the last column breaking every tie), the flat
    search ranks each new independent part afresh by them, column `dynamic` replaced by the
    fullest section each buffer crosses at that point (MiniMalloc's sub-problem preordering)."""

    rank: IntArray
    keys: IntArray | None = None
    dynamic: int = -1


def key_ranking(keys: IntArray, dynamic: int = -1) -> Ranking:
    """The ranking by `keys` (larger first, column by column) and, when `dynamic` names one of
    them, re-ranked per part."""
    rank = np.empty(len(keys), dtype=np.int64)
    order = np.lexsort(tuple(-keys[:, column] for column in reversed(range(keys.shape[1]))))
    rank[order] = np.arange(len(keys))
    return Ranking(rank, keys if dynamic >= 0 else None, dynamic)


FLAT_HEURISTICS = ("WAT", "TAW", "TWA")
"""The flat search's rankings: MiniMalloc's preorderings by lifetime width (W), area (A) and the
fullest section a buffer crosses (T), re-ranked per part; ties go to the earlier input buffer."""


class CanonicalSearch:
    """Depth-first search over canonical packings of one component under a capacity.

    A canonical packing places buffers one by one in order of non-decreasing (offset, rank), each
    at the lowest aligned address above every already-placed buffer it overlaps in time. Pruning
    (after MiniMalloc): a buffer is never placed at or above the top that another unplaced buffer
    would have at its lowest address (that buffer could go below it: a dominated solution); and at
    every time section, max(section height, current offset) + the size still to place there must
    fit in the capacity.
    """

    def __init__(self, component: Component):
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
        width = component.end - component.start
        area = component.size * width
        if count < FLAT_MIN_ITEMS:
            self.rankings = self._static_rankings(width, area)
        else:
            columns = {"W": width, "A": area, "T": self.total()}
            self.rankings = [
                key_ranking(
                    np.stack([columns[c] for c in name] + [-component.ids], axis=1),
                    name.index("T"),
                )
                for name in FLAT_HEURISTICS
            ]
        # Identical buffers are interchangeable: place them in rank order only.
        keys = np.stack(
            [component.start, component.end, component.size, component.align, component.pinned],
            axis=1,
        )
        _, group = np.unique(keys, axis=0, return_inverse=True)
        self.group = group.reshape(-1)
        self.neighbours = [np.flatnonzero(row) for row in self.overlap]
        self.flat: FlatProblem | None = None
        self.refuted: dict[int, tuple[int, int]] = {}
        """Capacity -> (ranking, nodes) of the dive that proved no packing fits in it."""

    def total(self) -> IntArray:
        """The load of the fullest section each buffer crosses."""
        return np.array(
            [
                self.load[f:s].max()
                for f, s in zip(self.first.tolist(), self.stop.tolist(), strict=True)
            ],
            dtype=np.int64,
        )

    def _static_rankings(self, width: IntArray, area: IntArray) -> list[Ranking]:
        """Tie-breaks for the numpy search (kernel-sized components): program order forwards
        and backwards, then MiniMalloc's preorderings by the heaviest section a buffer crosses
        ("total"), its lifetime and area, all fixed."""
        component = self.component
        total = self.total()
        index = np.arange(len(component))
        orders = (
            (component.start, -width, -component.size),  # program order: good on chains
            (-component.end, -width, -component.size),  # the same backwards in time
            (-total, -area, -width),
            (-width, -area, -total),
            (-total, -width, -area),
        )
        rankings = []
        for keys in orders:
            rank = np.empty(len(component), dtype=np.int64)
            rank[np.lexsort((index, *reversed(keys)))] = index
            rankings.append(Ranking(rank))
        return rankings

    def decide(
        self, capacity: int, allowance: Allowance, rounds: int | None = None
    ) -> IntArray | None:
        """Offsets with peak <= capacity, or None if there are none.

        Tries each ranking in turn with a node budget that doubles every round (MiniMalloc's
        round robin). Raises `OutOfBudget` when `allowance` is spent, `NodeLimit` after
        `rounds` rounds without an answer."""
        budget = max(64, len(self.component))
        while rounds is None or rounds > 0:
            budget *= 2
            try:
                return self.probe(capacity, allowance, self.rankings, budget)
            except NodeLimit:
                pass
            rounds = None if rounds is None else rounds - 1
        raise NodeLimit

    def probe(
        self, capacity: int, allowance: Allowance, rankings: Sequence[Ranking], budget: int
    ) -> IntArray | None:
        """One dive per ranking, each limited to `budget` nodes: the first packing within
        `capacity` found, or None if a dive finished its search without one (a proof that
        there is none, recorded in `refuted`). Raises `NodeLimit` when every dive runs out of
        nodes."""
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 4 * len(self.component) + 1000))
        try:
            for ranking in rankings:
                before = allowance.meter.units
                try:
                    found = self.dive(capacity, allowance, ranking, budget)
                except NodeLimit:
                    continue
                if found is None:
                    self._record_refutation(capacity, ranking, allowance.meter.units - before)
                return found
            raise NodeLimit
        finally:
            sys.setrecursionlimit(limit)

    def _record_refutation(self, capacity: int, ranking: Ranking, nodes: int) -> None:
        for index, known in enumerate(self.rankings):
            if known is ranking:
                self.refuted[capacity] = (index, nodes)

    def dive(
        self, capacity: int, allowance: Allowance, ranking: Ranking, budget: int
    ) -> IntArray | None:
        """One depth-first search with tie-break `ranking` and at most `budget` nodes."""
        if len(self.component) < FLAT_MIN_ITEMS:
            return _Dive(self, capacity, allowance, ranking.rank, budget).run()
        try:
            return self._flat().dive(capacity, allowance, self.order(ranking), budget)
        except DiveLimit:
            raise NodeLimit from None

    def order(self, ranking: Ranking) -> Order:
        return Order(ranking.rank, self.twin_before(ranking.rank), ranking.keys, ranking.dynamic)

    def _flat(self) -> FlatProblem:
        if self.flat is None:
            component = self.component
            self.flat = FlatProblem(
                self.first,
                self.stop,
                component.size,
                component.align,
                component.pinned,
                self.overlap,
            )
        return self.flat

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
    """One depth-first search of `CanonicalSearch` at a fixed capacity, ranking and node budget.

    When placing a buffer leaves no unplaced buffer crossing some section boundary, the rest
    falls apart into independent parts, each solved on its own (a failure in one part is not
    retried against every solution of the others).
    """

    def __init__(
        self,
        search: CanonicalSearch,
        capacity: int,
        allowance: Allowance,
        rank: IntArray,
        budget: int,
    ):
        component = search.component
        self.search = search
        self.capacity = capacity
        self.allowance = allowance
        self.rank = rank
        self.budget = budget
        self.size = component.size
        self.align = component.align
        self.sizes = component.size.tolist()
        self.first = search.first.tolist()
        self.stop = search.stop.tolist()
        self.remaining = search.load.copy()
        self.height = np.zeros(search.sections, dtype=np.int64)
        self.viable = np.maximum(component.pinned, 0)  # lowest aligned offset per buffer
        self.pinned = component.pinned if component.has_pins else None
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
        return self.offsets.copy() if found else None

    def _search(
        self, part: IntArray, low: int, high: int, last_offset: int, last_rank: int
    ) -> bool:
        """Place the unplaced buffers of `part` (sections [low, high)); True when all fit."""
        self.nodes += 1
        allowance = self.allowance
        allowance.meter.units += 1
        if self.nodes > self.budget:
            raise NodeLimit
        if allowance.meter.units >= allowance.unit_stop:
            raise OutOfBudget
        if self.nodes & 63 == 0 and allowance.out_of_time():
            raise OutOfBudget
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
            if self.pinned is not None and _pushed_off_pins(self.pinned[neighbours], raised_viable):
                return False
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


def _pushed_off_pins(pinned: IntArray, viable: IntArray) -> bool:
    """Whether a pinned buffer can no longer go at its pinned offset."""
    return bool(((pinned >= 0) & (viable > pinned)).any())


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


def confirm(items: Sequence[PackItem], refutation: Refutation) -> bool:
    """Replay `refutation`: whether the dive it names, limited to its node count, finishes
    without a packing of its items within its capacity."""
    component = Component.of(items, refutation.items)
    search = CanonicalSearch(component)
    if not 0 <= refutation.ranking < len(search.rankings):
        return False
    allowance = Allowance.start(refutation.nodes + 1, None)
    ranking = search.rankings[refutation.ranking]
    try:
        return search.dive(refutation.capacity, allowance, ranking, refutation.nodes) is None
    except (NodeLimit, OutOfBudget):
        return False
