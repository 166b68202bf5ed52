"""Search strategy: which capacities to ask the exact search about, in what order, and with how
much of the allowance, to improve on the greedy packing of one component."""

from __future__ import annotations

import numpy as np
from gpu_alloc.transforms.packing.budget import Allowance, OutOfBudget
from gpu_alloc.transforms.packing.component import Component, IntArray, quantum
from gpu_alloc.transforms.packing.search import CanonicalSearch, NodeLimit

LADDER = (0.02, 0.04, 0.06, 0.09, 0.13, 0.2)
"""Capacities (as fractions above the lower bound) that `Improver` tries with short dives."""

DESCENT_MIN_ITEMS = 64
"""Components with more buffers than this get the solution-guided descent (`Improver.descend`)."""
DESCENT_SHARE = 0.95
"""Fraction of the allowance left after the first question that the descent may use (the
binary search after it rarely finishes on components this large)."""
DESCENT_BUDGET = 2
"""Nodes per buffer that one dive of the descent may visit."""
DESCENT_STEPS = (0.0, 0.1, 0.3)
"""Capacities the descent cycles through, as fractions of the way from the best peak (less one
quantum) down to the proven lower bound (deeper steps rarely succeed and cost the most)."""
FIRST_SHARE = 1 / 2
"""Share of the allowance the first question (capacity = the lower bound) gets on components
above `DESCENT_MIN_ITEMS` buffers: with the flat search the lower bound is the optimum of most
hard instances (MiniMalloc's challenging suite), found within a few hundred thousand nodes."""
BISECTION_MIN_UNITS = 200
"""Work units a question of the binary search gets at least in its first round."""
BISECTION_MIN_SECONDS = 0.005
"""The same in seconds, under a wall-clock cap."""


class Improver:
    """Searches for a better packing of one component than a given one.

    Asks "is there a packing within capacity C?": first for C = the lower bound (the usual
    optimum for kernel-sized inputs) with half the allowance (`FIRST_SHARE` above 64 buffers);
    then, up to `DESCENT_MIN_ITEMS` buffers, down a ladder of capacities above it with one short
    round of dives each (success is not monotone in the capacity: a tighter one can prune a dive
    onto a good path sooner), and above that the guided descent (`descend`); then in rounds of
    binary search between the proven lower bound and the best peak found, where a question that
    runs out of its share counts as "no" for the rest of the round and each round gives more per
    question. Capacities are counted in `quantum`s. The search stops early once the peak is at
    most `enough` (when a better one would not lower the result).
    """

    def __init__(
        self,
        component: Component,
        offsets: IntArray,
        bound: int,
        allowance: Allowance,
        enough: int = 0,
    ):
        self.component = component
        self.offsets = offsets
        self.best = component.peak(offsets)
        self.bound = bound
        self.allowance = allowance
        self.enough = enough
        self.search = CanonicalSearch(component)
        self.quantum = quantum(component)
        # If the optimum is below `best`, it is low * quantum, ..., or high * quantum.
        self.low = -(-bound // self.quantum)
        self.high = (self.best - 1) // self.quantum

    def run(self) -> tuple[IntArray, bool]:
        """The best packing found and whether it is proven optimal."""
        small = len(self.component) <= DESCENT_MIN_ITEMS
        if self.searching():  # kernel-sized inputs usually end here: give them half
            self.ask(self.low, self.allowance.share(1 / 2 if small else FIRST_SHARE))
        for fraction in reversed(LADDER) if small else ():
            capacity = (self.bound + int(self.bound * fraction)) // self.quantum
            if capacity > self.high:
                continue
            if capacity < self.low or not self.searching():
                break
            self.ask(capacity, self.allowance, rounds=1)
        if not small:
            self.descend()
        self.bisect()
        return self.offsets, self.low > self.high

    def searching(self) -> bool:
        return self.low <= self.high and self.best > self.enough and not self.allowance.spent()

    def accept(self, found: IntArray | None, capacity: int) -> None:
        """Record the search's answer for `capacity` (None: proven impossible)."""
        if found is None:
            self.low = max(self.low, capacity + 1)
        else:
            self.offsets, self.best = found, self.component.peak(found)
            self.high = (self.best - 1) // self.quantum

    def ask(self, capacity: int, allowance: Allowance, rounds: int | None = None) -> bool:
        """Record the answer for `capacity`; False if there was none within `allowance`."""
        try:
            found = self.search.decide(capacity * self.quantum, allowance, rounds)
        except (OutOfBudget, NodeLimit):
            return False
        self.accept(found, capacity)
        return True

    def bisect(self) -> None:
        """Binary search rounds between the proven lower bound and the best peak."""
        units = max(BISECTION_MIN_UNITS, self.allowance.units_left() / 8)
        seconds = max(BISECTION_MIN_SECONDS, self.allowance.seconds_left() / 8)
        while self.searching():
            round_low, round_high = self.low, self.high
            while round_low <= round_high and self.searching():
                capacity = (round_low + round_high) // 2
                if not self.ask(capacity, self.allowance.limited(units, seconds)):
                    round_low = capacity + 1
                round_low, round_high = max(round_low, self.low), min(round_high, self.high)
            units, seconds = units * 2, seconds * 2

    def descend(self) -> None:
        """Short dives below the best peak, guided by the best packing and by the static
        rankings (solution-guided search): each success moves the incumbent, and the next
        dives follow it. Dives are deterministic, so once a whole cycle of capacities has
        failed, later dives alternate between other guides (the incumbent upside down, a
        packing too that bottom-up dives rebuild along other paths, and other tie-breaks) and
        the `LADDER` capacities below the incumbent with the static rankings alone (a tight
        capacity can prune a dive onto a good path that a looser one misses)."""
        allowance = self.allowance.share(DESCENT_SHARE)
        budget = DESCENT_BUDGET * len(self.component)
        search, statics = self.search, self.search.rankings
        rungs = [
            (self.bound + int(self.bound * fraction)) // self.quantum
            for fraction in reversed(LADDER)
        ]
        step = failed = 0
        while self.searching() and not allowance.spent():
            gap = self.high - self.low
            capacity = self.high - int(gap * DESCENT_STEPS[step % len(DESCENT_STEPS)])
            step += 1
            cycle = failed // len(DESCENT_STEPS)
            rungs = [rung for rung in rungs if self.low <= rung <= self.high]
            if cycle == 0:
                rankings = [search.guided(self.offsets, rank) for rank in statics[:2]] + statics
            elif failed % 2 and rungs:
                capacity, rankings = rungs.pop(0), statics
            else:
                flipped = self.best - self.offsets - self.component.size
                rankings = [
                    search.guided(flipped, statics[(cycle - 1) % len(statics)]),
                    search.guided(self.offsets, statics[(cycle + 1) % len(statics)]),
                ]
            try:
                found = search.probe(capacity * self.quantum, allowance, rankings, budget)
            except NodeLimit:
                failed += 1
                continue
            except OutOfBudget:
                return
            if found is not None:
                failed = 0
            self.accept(found, capacity)


def improve(
    component: Component, offsets: IntArray, bound: int, allowance: Allowance, enough: int = 0
) -> tuple[IntArray, bool]:
    """A packing of `component` no worse than `offsets` and whether it is proven optimal."""
    return Improver(component, np.asarray(offsets), bound, allowance, enough).run()
