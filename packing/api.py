"""`pack`: the packer's entry point, from items to a validated `Packing`."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from functools import partial
from numbers import Real

from gpu_alloc.packing.budget import Allowance, Meter
from gpu_alloc.packing.component import Component, IntArray, split_components
from gpu_alloc.packing.flat import ready_search_loop
from gpu_alloc.packing.greedy import (
    greedy_fit,
    greedy_orders,
    lowest_first,
    size_descending,
    sweep_fit,
)
from gpu_alloc.packing.items import (
    MAX_TOTAL_BYTES,
    Packing,
    PackingError,
    PackItem,
    Refutation,
    check_total,
    is_integer,
    lower_bound,
    validate,
)
from gpu_alloc.packing.search import FLAT_MIN_ITEMS
from gpu_alloc.packing.strategy import Improvement, Improver

DEFAULT_BUDGET = 2_000
"""Work units (`budget` module: one exact-search node each) `pack` may spend on one input when
neither a budget nor a time limit is given.

The result then depends only on the input: the same packing on any machine under any load. It
proves kernel-sized inputs (up to 64 buffers) optimal long before running out. Inputs whose
greedy peak already equals the lower bound return at once.
"""

DEFAULT_FLAT_BUDGET = 400_000
"""Work units the exact search may spend on components of `search.FLAT_MIN_ITEMS` (65) to
`SEARCH_MAX_ITEMS` buffers when neither a budget nor a time limit is given, counted apart from
`DEFAULT_BUDGET`: the compiled search visits 100,000 to 500,000 nodes a second, so this is 1-3 s
on a 2-core machine; it proves every MiniMalloc challenging instance whose optimum is known (the
hardest, E, needs 186,000 in its first question, which gets half)."""

DEFAULT_GREEDY_BUDGET = 20_000
"""Work units the quadratic greedy passes (lowest-first, then best-fit) may spend on components
above `SEARCH_MAX_ITEMS` buffers when neither a budget nor a time limit is given, counted apart
from `DEFAULT_BUDGET`: both passes up to about 55,000 buffers, lowest-first alone up to about
77,000 (some 10 s on a 2-core machine); larger components keep the O(n log n) sweep's packing.
"""

DEFAULT_TIME_LIMIT: float | None = None
"""No wall-clock cap by default: results must not depend on the machine's load."""

SEARCH_MAX_ITEMS = 5000
"""Components with more buffers than this are only packed greedily (the exact search keeps an
items x items overlap matrix)."""


def pack(
    items: Sequence[PackItem],
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    budget: int | None = None,
    *,
    capacity: int | None = None,
    meter: Meter | None = None,
) -> Packing:
    """Offsets for `items` with a small peak; see the package docstring for the method.

    `budget` bounds the work (in `budget` module units) spent beyond the first greedy packing;
    `time_limit` (seconds) is an optional wall-clock cap on the same. With neither, the search
    gets `DEFAULT_BUDGET` on kernel-sized components and `DEFAULT_FLAT_BUDGET` on larger ones,
    and the greedy passes on components too large to search `DEFAULT_GREEDY_BUDGET`; with a
    time limit alone the work is unlimited (the caller chose to
    trade reproducibility for time). `Packing.time_limit_hit` says whether the cap cut the
    work short.

    With `capacity` (feasibility mode) the search stops at the first packing whose peak is at
    most `capacity` bytes instead of minimising, and `Packing.feasible` says whether it found
    one, proved there is none, or ran out of work first. Whatever stops it, the best packing
    found so far is returned. `meter` (optional) counts the work: give it a `listener` to follow
    the search, and call its `interrupt` to stop it early.
    Where a component is large enough for the compiled search, the loop is compiled (or loaded
    from numba's cache) before the time limit starts.
    Raises `PackingError` when the items add up to more than `MAX_TOTAL_BYTES`, pinned
    items overlap, or a limit is not a non-negative number (`budget`, `capacity`: integers).
    """
    _check_limits(time_limit, budget, capacity)
    check_total(items)
    _check_pins(items)
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    groups = sorted(split_components(items, live), key=len)
    if groups and len(groups[-1]) >= FLAT_MIN_ITEMS:
        ready_search_loop(meter)
    if budget is None:
        units = DEFAULT_BUDGET if time_limit is None else math.inf
    else:
        units = budget
    allowance = Allowance.start(units, time_limit, meter)
    pools = {"search": allowance.units_left()}
    if budget is None and time_limit is None:
        pools |= {"flat": DEFAULT_FLAT_BUDGET, "greedy": DEFAULT_GREEDY_BUDGET}
    offsets = [item.offset or 0 for item in items]
    plan = _Plan([Component.of(items, group) for group in groups], allowance, pools)
    if capacity is None:
        plan.minimise()
    else:
        plan.fit(capacity)
    for component, result in zip(plan.components, plan.offsets, strict=True):
        for index, offset in zip(component.ids.tolist(), result.tolist(), strict=True):
            offsets[index] = offset
    validate(items, offsets)
    # A buffer that is never live still needs its bytes inside the backing buffer.
    unavoidable = max(
        ((item.offset or 0) + item.size for item in items if not item.occupies_memory), default=0
    )
    peak = max(plan.peaks() + [unavoidable])
    bound, refutation = plan.lower_bound()
    if unavoidable > bound:
        bound, refutation = unavoidable, None
    feasible = None
    if capacity is not None:
        feasible = True if peak <= capacity else (False if bound > capacity else None)
    meter = allowance.meter
    return Packing(
        tuple(offsets),
        peak,
        bound,
        peak == bound,
        lower_bound(items),
        refutation,
        feasible,
        meter.units,
        meter.time_limit_hit,
        meter.interrupted,
    )


def _check_limits(time_limit: float | None, budget: int | None, capacity: int | None) -> None:
    """Raise `PackingError` for a limit `pack` cannot use (one message per limit)."""
    if time_limit is not None and (
        isinstance(time_limit, bool) or not isinstance(time_limit, Real) or not time_limit >= 0
    ):
        raise PackingError(
            f"time_limit must be a non-negative number of seconds, got {time_limit!r}"
        )
    if budget is not None and (not is_integer(budget) or budget < 0):
        raise PackingError(f"budget must be a non-negative number of work units, got {budget!r}")
    if capacity is not None and (not is_integer(capacity) or not 0 <= capacity <= MAX_TOTAL_BYTES):
        raise PackingError(
            f"capacity must be a number of bytes between 0 and 2^62, got {capacity!r}"
        )


def _check_pins(items: Sequence[PackItem]) -> None:
    """Raise `PackingError` naming two pinned items that overlap in time and memory."""
    pinned = [index for index, item in enumerate(items) if item.offset is not None]
    if len(pinned) < 2:
        return
    try:
        validate([items[i] for i in pinned], [items[i].offset or 0 for i in pinned])
    except PackingError as error:
        first, second = (pinned[i] for i in error.indices)
        raise PackingError(
            f"items {first} and {second} are pinned at offsets that overlap while both are live",
            (first, second),
        ) from None


class _Plan:
    """The components of one input, their best packings so far, and how the work is split.

    Every component gets its first greedy packing at once; the rest of the allowance goes to
    the component that sets the peak (the highest, ties to the later and larger one), which is
    searched until it is proven optimal, its peak drops below the next one's, or its share runs
    out; then the highest again, and so on. The work units come from `pools`: "search", and
    with the default budget "flat" for components the flat search takes and "greedy" for those
    above `SEARCH_MAX_ITEMS` buffers."""

    def __init__(self, components: list[Component], allowance: Allowance, pools: dict[str, float]):
        self.components = components
        self.allowance = allowance
        self.pools = pools
        self.offsets = [_first_packing(component) for component in components]
        self.current = [c.peak(o) for c, o in zip(components, self.offsets, strict=True)]
        self.loads = [component.max_load() for component in components]
        # The alignment bound costs a few numpy calls: only where the greedy packing is above
        # the load (elsewhere that packing is optimal already).
        self.bounds = [
            component.lower_bound(load, aligned=peak > load)
            for component, load, peak in zip(components, self.loads, self.current, strict=True)
        ]
        self.improvers: list[Improver | None] = [None] * len(components)
        self.outcomes: list[Improvement | None] = [None] * len(components)
        self.done = [False] * len(components)
        allowance.meter.peaks = self.peaks()
        allowance.meter.lower_bound = max(self.bounds, default=0)

    def peaks(self) -> list[int]:
        return list(self.current)

    def floor(self) -> int:
        """No packing's peak is below the largest component's lower bound."""
        return max(self.bounds, default=0)

    def pool(self, chosen: int) -> str:
        count = len(self.components[chosen])
        if count > SEARCH_MAX_ITEMS and "greedy" in self.pools:
            return "greedy"
        return "flat" if count >= FLAT_MIN_ITEMS and "flat" in self.pools else "search"

    def minimise(self) -> None:
        while not self.allowance.out_of_time():
            peaks = self.current
            open_ = [
                k
                for k in range(len(peaks))
                if not self.done[k] and peaks[k] > self.floor() and self.pools[self.pool(k)]
            ]
            if not open_:
                return
            chosen = max(open_, key=lambda k: (peaks[k], k))
            lower = [p for p in peaks if p < peaks[chosen]]
            units, bounds, peaks = self.allowance.meter.units, list(self.bounds), list(peaks)
            self._work_on(chosen, max([self.floor(), *lower]), open_)
            if (units, bounds, peaks) == (self.allowance.meter.units, self.bounds, self.current):
                return  # its share was too small to do anything: the work is used up

    def fit(self, capacity: int) -> None:
        for chosen in sorted(range(len(self.components)), key=lambda k: -self.peaks()[k]):
            if self.peaks()[chosen] > capacity and self.pools[self.pool(chosen)]:
                self._work_on(chosen, capacity, [chosen], capacity)
            if self.peaks()[chosen] > capacity:
                return  # no packing within the capacity (yet): the others do not matter

    def _work_on(
        self, chosen: int, enough: int, contenders: list[int], capacity: int | None = None
    ) -> None:
        """Improve component `chosen` towards `enough` (or `capacity`) with its share of its
        pool: all of it alone, else in proportion to its size among the `contenders`."""
        pool = self.pool(chosen)
        left = self.pools[pool]
        weight = sum(len(self.components[k]) for k in contenders)
        fraction = len(self.components[chosen]) / weight
        meter = self.allowance.meter
        seconds = self.allowance.seconds_left() * fraction
        time_stop = None
        if self.allowance.time_stop is not None:
            time_stop = min(self.allowance.time_stop, time.perf_counter() + seconds)
        before = meter.units
        share = Allowance(meter, before + left * fraction, time_stop)
        meter.current = chosen
        self._improve(chosen, share, enough, capacity)
        self.pools[pool] = max(0.0, left - (meter.units - before))

    def _improve(
        self, chosen: int, allowance: Allowance, enough: int, capacity: int | None
    ) -> None:
        component = self.components[chosen]
        if self.improvers[chosen] is None:
            result = _greedy_candidates(
                component, self.offsets[chosen], self.bounds[chosen], allowance
            )
            self._record(chosen, result)
            if len(component) > SEARCH_MAX_ITEMS or component.peak(result) <= self.bounds[chosen]:
                self.done[chosen] = True
                return
            self.improvers[chosen] = Improver(
                component,
                result,
                self.bounds[chosen],
                allowance,
                enough,
                self.floor(),
                self.loads[chosen],
            )
        improver = self.improvers[chosen]
        assert improver is not None
        improver.allowance, improver.enough = allowance, enough
        outcome = improver.run() if capacity is None else improver.target(capacity)
        self.outcomes[chosen] = outcome
        self.bounds[chosen] = max(self.bounds[chosen], outcome.lower_bound)
        self._record(chosen, outcome.offsets)
        if improver.low > improver.high:
            self.done[chosen] = True

    def _record(self, chosen: int, offsets: IntArray) -> None:
        peak = self.components[chosen].peak(offsets)
        if peak <= self.current[chosen]:
            self.offsets[chosen], self.current[chosen] = offsets, peak
        meter = self.allowance.meter
        meter.lower_bound = max(meter.lower_bound, self.bounds[chosen])
        meter.improved(self.current[chosen])

    def lower_bound(self) -> tuple[int, Refutation | None]:
        """The largest component bound and its certificate when the search proved it."""
        if not self.components:
            return 0, None
        chosen = max(range(len(self.components)), key=lambda k: (self.bounds[k], -k))
        outcome = self.outcomes[chosen]
        if outcome is None or outcome.refutation is None:
            return self.bounds[chosen], None
        refuted, ranking, nodes = outcome.refutation
        if outcome.lower_bound != self.bounds[chosen]:
            return self.bounds[chosen], None
        ids = tuple(self.components[chosen].ids.tolist())
        return self.bounds[chosen], Refutation(refuted, ids, ranking, nodes)


def _first_packing(component: Component) -> IntArray:
    """Best-fit's packing, or the O(n log n) sweep's above `SEARCH_MAX_ITEMS` buffers (pinned
    buffers always take best-fit, which honours pins)."""
    if len(component) <= SEARCH_MAX_ITEMS or component.has_pins:
        result = greedy_fit(component, size_descending(component), True)
        assert result is not None  # only an allowance can stop it
        return result
    return sweep_fit(component)


def _greedy_candidates(
    component: Component, result: IntArray, bound: int, allowance: Allowance
) -> IntArray:
    """The best of `result` and the other greedy packings the allowance covers.

    Up to `SEARCH_MAX_ITEMS` buffers, lowest-first and other greedy orders are tried; above,
    lowest-first and best-fit (O(n^2) each) run only when the allowance covers them."""
    if len(component) <= SEARCH_MAX_ITEMS:
        candidates = [partial(lowest_first, component, allowance)]
        for order, best in greedy_orders(component):
            candidates.append(partial(greedy_fit, component, order, best, allowance))
    else:
        candidates = [
            partial(lowest_first, component, allowance),
            partial(greedy_fit, component, size_descending(component), True, allowance),
        ]
    peak = component.peak(result)
    for candidate_packing in candidates:
        if peak <= bound or allowance.spent():
            break
        candidate = candidate_packing()
        if candidate is not None and component.peak(candidate) < peak:
            result, peak = candidate, component.peak(candidate)
    return result
