"""Search strategy: which capacities to ask the exact search about, in what order, and with how
much of the allowance, to improve on the greedy packing of one component."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gpu_alloc.packing.budget import Allowance, OutOfBudget
from gpu_alloc.packing.component import Component, IntArray, quantum
from gpu_alloc.packing.search import CanonicalSearch, NodeLimit

LADDER = (0.02, 0.04, 0.06, 0.09, 0.13, 0.2)
"""Capacities (as fractions above the lower bound) that `Improver` tries with short dives on
kernel-sized components."""

DESCENT_MIN_ITEMS = 64
"""Components with more buffers than this get the rung descent (`Improver.descend`)."""
DESCENT_SHARE = 0.95
"""Fraction of the allowance left after the first question that the descent may use (the
binary search after it rarely finishes on components this large)."""
RUNGS = (0.0, 1 / 16, 1 / 8, 1 / 4, 1.0)
"""The descent's capacities, as fractions of the way from the best peak (less one quantum) down
to the proven lower bound (or `enough`), tried from the highest down (on D this order and
these rungs reach MiniMalloc's best peak in fewer nodes than bottom-up, halving and other sets)."""
FIRST_SHARE = 1 / 2
"""Share of the allowance the first question (capacity = the lower bound) gets on components
above `DESCENT_MIN_ITEMS` buffers: the lower bound is the optimum of most hard instances
(MiniMalloc's challenging suite), found within a few hundred thousand nodes."""
FIRST_ROUNDS = 8
"""Rounds of dives (node budgets 2n, 4n, ... 2^9 n) the first question gets on those components
at most; the descent that follows keeps asking about the lower bound among its rungs."""
BISECTION_MIN_UNITS = 200
"""Work units a question of the binary search gets at least in its first round."""
BISECTION_MIN_SECONDS = 0.005
"""The same in seconds, under a wall-clock cap."""


@dataclass(frozen=True)
class Improvement:
    """What the search made of one component: its best packing and what it proved."""

    offsets: IntArray
    lower_bound: int
    """No packing of the component has a smaller peak (a multiple of its quantum)."""
    refutation: tuple[int, int, int] | None
    """(capacity, ranking, nodes) of the dive that proved `lower_bound`, when the search did."""


class Improver:
    """Searches for a better packing of one component than a given one.

    Asks "is there a packing within capacity C?": first for C = the lower bound (the usual
    optimum) with half the allowance (at most `FIRST_ROUNDS` rounds above 64 buffers); then, up
    to `DESCENT_MIN_ITEMS` buffers, down a ladder of capacities above it with one short round of
    dives each (success is not monotone in the capacity: a tighter one can prune a dive onto a
    good path sooner), and above that the rung descent (`descend`); then in rounds of binary
    search between the proven lower bound and the best peak found, where a question that runs out
    of its share counts as "no" for the rest of the round and each round gives more per question.
    Capacities are counted in `quantum`s. The search stops early once the peak is at most
    `enough` (when a better one would not lower the result).
    """

    def __init__(
        self,
        component: Component,
        offsets: IntArray,
        bound: int,
        allowance: Allowance,
        enough: int = 0,
        floor: int = 0,
        load: int | None = None,
    ):
        self.component = component
        self.offsets = offsets
        self.best = component.peak(offsets)
        self.allowance = allowance
        self.enough = enough
        self.floor = floor
        """No lower peak helps (the other components' bound): the first question asks this."""
        self.load = component.max_load() if load is None else load
        self.search = CanonicalSearch(component)
        self.quantum = quantum(component)
        # If the optimum is below `best`, it is low * quantum, ..., or high * quantum.
        self.low = -(-bound // self.quantum)
        self.high = (self.best - 1) // self.quantum
        self.started = False
        self.descent_budget = len(component)
        """Nodes per dive of the descent's last round (it goes on from there when run again)."""

    def run(self) -> Improvement:
        """The best packing found and what is proven about the optimum. Run again (with a new
        `allowance` and `enough`), it goes on where it stopped."""
        if not self.started and self.searching():
            self.started = True
            self.start()
        if len(self.component) > DESCENT_MIN_ITEMS:
            self.descend()
        self.bisect()
        return self.outcome()

    def start(self) -> None:
        """The first question and, on kernel-sized components, the ladder."""
        small = len(self.component) <= DESCENT_MIN_ITEMS
        first = max(self.low, self.floor // self.quantum)  # within the floor: in quanta, down
        if self.searching() and first <= self.high:  # kernel-sized inputs usually end here
            share = self.allowance.share(1 / 2 if small else FIRST_SHARE)
            self.ask(first, share, rounds=None if small else FIRST_ROUNDS)
        for fraction in reversed(LADDER) if small else ():
            capacity = (self.load + int(self.load * fraction)) // self.quantum
            if capacity > self.high:
                continue
            if capacity < self.low or not self.searching():
                break
            self.ask(capacity, self.allowance, rounds=1)

    def target(self, capacity: int) -> Improvement:
        """A packing within `capacity` bytes, or a proof that there is none (feasibility)."""
        goal = capacity // self.quantum
        if self.best > capacity and goal >= self.low:
            self.ask(goal, self.allowance)
        return self.outcome()

    def outcome(self) -> Improvement:
        refuted = (self.low - 1) * self.quantum
        proof = self.search.refuted.get(refuted)
        refutation = None if proof is None else (refuted, *proof)
        return Improvement(self.offsets, min(self.low * self.quantum, self.best), refutation)

    def searching(self) -> bool:
        return self.goal() <= self.high and self.best > self.enough and not self.allowance.spent()

    def accept(self, found: IntArray | None, capacity: int) -> None:
        """Record the search's answer for `capacity` (None: proven impossible)."""
        if found is None:
            self.low = max(self.low, capacity + 1)
        else:
            self.offsets, self.best = found, self.component.peak(found)
            self.high = (self.best - 1) // self.quantum
            self.allowance.meter.improved(self.best)

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
            round_low, round_high = self.goal(), self.high
            while round_low <= round_high and self.searching():
                capacity = (round_low + round_high) // 2
                if not self.ask(capacity, self.allowance.limited(units, seconds)):
                    round_low = capacity + 1
                round_low, round_high = max(round_low, self.goal()), min(round_high, self.high)
            units, seconds = units * 2, seconds * 2

    def goal(self) -> int:
        """The lowest capacity worth asking about: the bound, or `enough` when that is higher."""
        return max(self.low, self.enough // self.quantum)

    def rungs(self) -> list[int]:
        """The descent's capacities, highest first (`RUNGS`)."""
        gap = self.high - self.goal()
        return sorted({self.high - int(gap * fraction) for fraction in RUNGS}, reverse=True)

    def descend(self) -> None:
        """Rounds of dives at the `rungs` between the proven bound and the best peak, every
        ranking at each, with a node budget per dive that doubles each round (MiniMalloc's
        round robin, spread over several capacities since success is not monotone in the
        capacity). A success moves the rungs below the new peak and repeats the round; a
        refutation raises the bound."""
        allowance = self.allowance.share(DESCENT_SHARE)
        search = self.search
        while self.searching() and not allowance.spent():
            self.descent_budget *= 2
            budget = self.descent_budget
            rungs = self.rungs()
            while rungs and self.searching():
                capacity = rungs.pop(0)
                if not self.goal() <= capacity <= self.high:
                    continue
                try:
                    found = search.probe(
                        capacity * self.quantum, allowance, search.rankings, budget
                    )
                except NodeLimit:
                    continue
                except OutOfBudget:
                    return
                self.accept(found, capacity)
                if found is not None:
                    rungs = self.rungs()


def improve(
    component: Component, offsets: IntArray, bound: int, allowance: Allowance, enough: int = 0
) -> Improvement:
    """A packing of `component` no worse than `offsets` and what is proven about its optimum."""
    return Improver(component, np.asarray(offsets), bound, allowance, enough).run()
