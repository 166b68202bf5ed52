"""One dive of the exact search through the flat inner loop (`core.dive_steps`), compiled when
numba is available (`jit`), metered in the same work units either way."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from gpu_alloc.packing import core
from gpu_alloc.packing.budget import Allowance, Meter, OutOfBudget
from gpu_alloc.packing.component import BoolArray, IntArray
from gpu_alloc.packing.jit import dive_steps

COMPILED_CHUNK = 1 << 14
"""Nodes the compiled loop visits between two looks at the allowance (well under 0.1 s)."""
PYTHON_CHUNK = 64
"""The same for the interpreted loop."""


def ready_search_loop(meter: Meter | None = None) -> bool:
    """Makes the search loop ready now (numba compiles it, or loads it from its cache, on a
    two-buffer problem; `meter`'s listener hears "compile" first) so that no later search
    spends its time limit on that; returns whether the loop is compiled (False: plain Python)."""
    steps, compiled = dive_steps()
    if compiled and not getattr(steps, "signatures", True):
        if meter is not None:
            meter.notify("compile")
        two = np.zeros(2, dtype=np.int64)
        problem = FlatProblem(two, two + 1, two + 4, two + 1, two - 1, ~np.eye(2, dtype=bool))
        static, dynamic, state = problem.arguments(8, Order(np.arange(2), two - 1))
        steps(static, dynamic, state, 0)  # no node: the call only compiles
    return compiled


class DiveLimit(Exception):
    """A dive used up its own node budget without an answer."""


@dataclass(frozen=True, eq=False)
class Order:
    """How a dive orders equally low candidates (`search.Ranking` with its twins)."""

    rank: IntArray
    """A permutation: the order at the root."""
    twin: IntArray
    """For each buffer, the identical buffer ranked just before it (or -1)."""
    keys: IntArray | None = None
    """One row per buffer, larger first: each new part is ranked afresh by them..."""
    dynamic: int = -1
    """...with this column replaced by the fullest section each buffer crosses then."""


class FlatProblem:
    """The static arrays of one component's search, shared by all its dives."""

    def __init__(
        self,
        first: IntArray,
        stop: IntArray,
        size: IntArray,
        align: IntArray,
        pinned: IntArray,
        overlap: BoolArray,
    ):
        # Inside, buffers are numbered by the first section they span.
        self.order = np.lexsort((np.arange(len(size)), stop, first))
        self.position = np.empty(len(size), dtype=np.int64)
        self.position[self.order] = np.arange(len(size))
        self.first = np.ascontiguousarray(first[self.order], dtype=np.int64)
        self.stop = np.ascontiguousarray(stop[self.order], dtype=np.int64)
        self.size = np.ascontiguousarray(size[self.order], dtype=np.int64)
        self.align = np.ascontiguousarray(align[self.order], dtype=np.int64)
        self.pinned = np.ascontiguousarray(pinned[self.order], dtype=np.int64)
        rows, columns = np.nonzero(overlap[np.ix_(self.order, self.order)])
        self.neighbours = columns.astype(np.int64)
        self.neighbour_start = np.zeros(len(size) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(size)), out=self.neighbour_start[1:])
        self.sections = int(self.stop.max()) if len(size) else 0
        load = np.zeros(self.sections + 1, dtype=np.int64)
        np.add.at(load, self.first, self.size)
        np.add.at(load, self.stop, -self.size)
        self.load = np.cumsum(load)[: self.sections]
        cut = np.zeros(self.sections + 1, dtype=np.int64)
        np.add.at(cut, self.first, 1)
        np.add.at(cut, self.stop - 1, -1)
        self.cut = np.cumsum(cut)[: self.sections]
        spans = self.stop - self.first
        self.section_items = np.repeat(np.arange(len(size), dtype=np.int64), spans)
        self.section_items_start = np.zeros(self.sections + 1, dtype=np.int64)
        if len(size):
            within = np.arange(int(spans.sum())) - np.repeat(np.cumsum(spans) - spans, spans)
            sections_of = np.repeat(self.first, spans) + within
            by_section = np.lexsort((self.section_items, sections_of))
            self.section_items = np.ascontiguousarray(self.section_items[by_section])
            np.cumsum(
                np.bincount(sections_of, minlength=self.sections), out=self.section_items_start[1:]
            )
        self.section_start = np.searchsorted(self.first, np.arange(self.sections + 1)).astype(
            np.int64
        )

    def state(self) -> tuple[IntArray, ...]:
        """Fresh state arrays for one dive (see `core.dive_steps` for their order)."""
        n, sections = len(self.size), self.sections
        spans = int((self.stop - self.first).sum())

        def zeros(length: int) -> IntArray:
            return np.zeros(length, dtype=np.int64)

        return (
            np.maximum(self.pinned, 0),  # viable: lowest aligned address of each buffer
            np.ones(n, dtype=np.int64),  # unplaced
            zeros(sections),  # height
            self.load.copy(),  # remaining
            zeros(n),  # offsets
            zeros(n),  # placed: the buffer placed at each depth
            zeros(n + 1),  # tried_offset
            zeros(n + 1),  # tried_rank
            zeros(n + 1),  # lowest_top
            zeros(n + 1),  # highest
            zeros(n + 1),  # viable_mark
            zeros(n + 1),  # height_mark
            zeros(len(self.neighbours) + 1),  # saved_item
            zeros(len(self.neighbours) + 1),  # saved_viable
            zeros(spans + 1),  # saved_height
            self.cut.copy(),  # cut: unplaced buffers crossing each section boundary
            zeros(n + 1),  # part_high
            zeros(n + 1),  # fresh
            zeros(n + 1),  # part_begin
            zeros(n + 1),  # part_end
            zeros(core.SCALARS),  # scalars
            zeros(n),  # rank (set by `dive`)
            zeros(n + 1),  # part_low
            zeros(n + 1),  # rank_end: top of the rank stack after each depth's node
            np.full(sections, -1, dtype=np.int64),  # witness: a low enough buffer per section
            zeros(4 * n),  # rank_item: the rank stack (grown on demand)
            zeros(4 * n),  # rank_value
        )

    def dive(
        self,
        capacity: int,
        allowance: Allowance,
        order: Order,
        budget: int,
    ) -> IntArray | None:
        """Offsets within `capacity` (None: proven impossible) from a dive of at most
        `budget` nodes; raises `DiveLimit` past them and `OutOfBudget` when `allowance` is
        spent (both checked between chunks of the same node counts, compiled or not)."""
        if not len(self.size):
            return np.zeros(0, dtype=np.int64)
        if int(self.load.max()) > capacity:
            return None
        return self._run(capacity, allowance, order, budget)

    def arguments(
        self, capacity: int, order: Order
    ) -> tuple[tuple[IntArray, ...], int, tuple[IntArray, ...]]:
        """What `core.dive_steps` is called with for a dive at `capacity` in `order`: the
        static arrays, the dynamic key column and fresh state."""
        state = self.state()
        state[core.RANK_AT][:] = order.rank[self.order]
        state[core.SCALARS_AT][core.CAPACITY] = capacity
        keys, dynamic = order.keys, order.dynamic
        if keys is None:
            keys, dynamic = np.zeros((len(self.size), 1), dtype=np.int64), -1
        keys = np.ascontiguousarray(keys[self.order], dtype=np.int64)
        twin = np.where(order.twin >= 0, self.position[np.maximum(order.twin, 0)], -1)
        static = (
            self.first,
            self.stop,
            self.size,
            self.align,
            self.pinned,
            keys,
            np.ascontiguousarray(twin[self.order], dtype=np.int64),
            self.neighbour_start,
            self.neighbours,
            self.section_start,
            self.section_items_start,
            self.section_items,
        )
        return static, dynamic, state

    def _run(
        self, capacity: int, allowance: Allowance, order: Order, budget: int
    ) -> IntArray | None:
        """Run the loop in chunks until it finds a packing or exhausts; raises `DiveLimit`
        and `OutOfBudget`."""
        steps, compiled = dive_steps()
        meter = allowance.meter
        if compiled and not getattr(steps, "signatures", True):
            meter.notify("compile")  # numba compiles (or loads its cache) on the first call
        chunk = COMPILED_CHUNK if compiled else PYTHON_CHUNK
        static, dynamic, state = self.arguments(capacity, order)
        while True:
            visited = int(state[core.SCALARS_AT][core.NODES])
            if visited >= budget:
                raise DiveLimit
            if meter.units >= allowance.unit_stop or allowance.out_of_time():
                raise OutOfBudget
            allowed = min(budget - visited, chunk)
            if allowance.unit_stop - meter.units < allowed:
                allowed = math.ceil(allowance.unit_stop - meter.units)
            status = steps(static, dynamic, state, allowed)
            meter.units += int(state[core.SCALARS_AT][core.NODES]) - visited
            meter.notify("tick")
            if status == core.FOUND:
                return state[4][self.position]
            if status == core.EXHAUSTED:
                return None
            if status == core.GROW:  # the rank stack is full: double it and go on
                grown = [np.concatenate([a, np.zeros_like(a)]) for a in state[-2:]]
                state = (*state[:-2], *grown)
