"""`pack`: the packer's entry point, from items to a validated `Packing`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import partial

from gpu_alloc.transforms.packing.budget import Allowance
from gpu_alloc.transforms.packing.component import Component, IntArray, split_components
from gpu_alloc.transforms.packing.greedy import (
    greedy_fit,
    greedy_orders,
    lowest_first,
    size_descending,
    sweep_fit,
)
from gpu_alloc.transforms.packing.items import Packing, PackItem, lower_bound, validate
from gpu_alloc.transforms.packing.strategy import improve

DEFAULT_BUDGET = 2_000
"""Work units (`budget` module: one exact-search node each) `pack` may spend on one input when
neither a budget nor a time limit is given.

The result then depends only on the input: the same packing on any machine under any load. It
proves kernel-sized inputs (up to 64 buffers) optimal long before running out, and costs about a
second on MiniMalloc's challenging instances on a 2-core machine. Inputs whose greedy peak already
equals the lower bound return at once.
"""

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
) -> Packing:
    """Offsets for `items` with a small peak; see the package docstring for the method.

    `budget` bounds the work (in `budget` module units) spent beyond the first greedy packing;
    `time_limit` (seconds) is an optional wall-clock cap on the same. With neither, the search
    gets `DEFAULT_BUDGET` and the greedy passes on components too large to search
    `DEFAULT_GREEDY_BUDGET`; with a time limit alone the work is unlimited (the caller chose to
    trade reproducibility for time). `Packing.time_limit_hit` says whether the cap cut the
    work short.
    """
    if budget is None:
        budget_units = DEFAULT_BUDGET if time_limit is None else math.inf
    else:
        budget_units = budget
    allowance = Allowance.start(budget_units, time_limit)
    large = allowance
    if budget is None and time_limit is None:
        large = Allowance.start(DEFAULT_GREEDY_BUDGET, None)
    offsets = [0] * len(items)
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    groups = sorted(split_components(items, live), key=len)
    components = [Component.of(items, group) for group in groups]
    bounds = [component.lower_bound() for component in components]
    peaks: list[int] = []
    optimal_peaks: list[bool] = []
    left = {pool: 0 for pool in (id(allowance), id(large))}
    for group in groups:
        left[id(large if len(group) > SEARCH_MAX_ITEMS else allowance)] += len(group)
    for group, component, bound in zip(groups, components, bounds, strict=True):
        pool = large if len(group) > SEARCH_MAX_ITEMS else allowance
        share = pool.share(len(group) / left[id(pool)])
        left[id(pool)] -= len(group)
        # The result's peak is the largest component's: going below another component's lower
        # bound or an earlier one's peak would not lower it.
        enough = max(max(bounds), max(peaks, default=0))
        result, optimal = _pack_component(component, bound, share, enough)
        for index, offset in zip(group, result.tolist(), strict=True):
            offsets[index] = offset
        peaks.append(component.peak(result))
        optimal_peaks.append(optimal)
    validate(items, offsets)
    # A buffer that is never live still needs its bytes inside the backing buffer (at 0).
    unavoidable = max((item.size for item in items if not item.occupies_memory), default=0)
    peak = max(max(peaks, default=0), unavoidable)
    bound = lower_bound(items)
    optimal = peak == max(bound, unavoidable) or any(
        p == peak and proven for p, proven in zip(peaks, optimal_peaks, strict=True)
    )
    work = allowance.meter.units + (large.meter.units if large is not allowance else 0)
    return Packing(tuple(offsets), peak, bound, optimal, work, allowance.meter.time_limit_hit)


def _pack_component(
    component: Component, bound: int, allowance: Allowance, enough: int
) -> tuple[IntArray, bool]:
    """The best greedy packing of one component, improved by the exact search when it is small
    enough; and whether it is proven optimal.

    Up to `SEARCH_MAX_ITEMS` buffers the first packing is best-fit's, then lowest-first and
    other greedy orders are tried; above, the first is `sweep_fit`'s (O(n log n)), and
    lowest-first and best-fit (O(n^2) each) run only when the allowance covers them."""
    searchable = len(component) <= SEARCH_MAX_ITEMS
    if searchable:
        result = greedy_fit(component, size_descending(component), True)
        assert result is not None  # only an allowance can stop it
        candidates = [partial(lowest_first, component, allowance)]
        for order, best in greedy_orders(component):
            candidates.append(partial(greedy_fit, component, order, best, allowance))
    else:
        result = sweep_fit(component)
        candidates = [
            partial(lowest_first, component, allowance),
            partial(greedy_fit, component, size_descending(component), True, allowance),
        ]
    peak = component.peak(result)
    for candidate_packing in candidates:
        if peak == bound or allowance.spent():
            break
        candidate = candidate_packing()
        if candidate is not None and component.peak(candidate) < peak:
            result, peak = candidate, component.peak(candidate)
    if peak == bound or not searchable:
        return result, peak == bound
    return improve(component, result, bound, allowance, enough)
