"""`pack`: the packer's entry point, from items to a validated `Packing`."""

from __future__ import annotations

import math
import time
from collections.abc import Sequence

from gpu_alloc.transforms.packing.budget import Allowance
from gpu_alloc.transforms.packing.component import Component, IntArray, split_components
from gpu_alloc.transforms.packing.greedy import (
    greedy_fit,
    greedy_orders,
    lowest_first,
    size_descending,
)
from gpu_alloc.transforms.packing.items import Packing, PackItem, lower_bound, validate
from gpu_alloc.transforms.packing.strategy import improve

DEFAULT_TIME_LIMIT = 1.0
"""Seconds `pack` may spend improving on best-fit (summed over components).

The greedy start always runs to completion (milliseconds for kernel-sized inputs), so a kernel's
compile time is bounded by about this much per packed memory space. Inputs whose best-fit peak
already equals the lower bound return at once.
"""

SEARCH_MAX_ITEMS = 5000
"""Components with more buffers than this are only packed greedily (the exact search keeps an
items x items overlap matrix)."""


def pack(items: Sequence[PackItem], time_limit: float = DEFAULT_TIME_LIMIT) -> Packing:
    """Offsets for `items` with a small peak; see the package docstring for the method.

    `time_limit` bounds the time spent improving on the greedy packings (in seconds).
    """
    allowance = Allowance.start(math.inf, time_limit)
    offsets = [0] * len(items)
    live = [index for index, item in enumerate(items) if item.occupies_memory]
    groups = sorted(split_components(items, live), key=len)
    components = [Component.of(items, group) for group in groups]
    bounds = [component.lower_bound() for component in components]
    peaks: list[int] = []
    optimal_peaks: list[bool] = []
    left = sum(len(group) for group in groups)
    for group, component, bound in zip(groups, components, bounds, strict=True):
        share = allowance.share(len(group) / left)
        left -= len(group)
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
    return Packing(tuple(offsets), peak, bound, optimal)


def _pack_component(
    component: Component, bound: int, allowance: Allowance, enough: int
) -> tuple[IntArray, bool]:
    """The best greedy packing of one component, improved by the exact search when it is small
    enough; and whether it is proven optimal."""
    started = time.perf_counter()
    result = greedy_fit(component, size_descending(component), True)
    peak = component.peak(result)
    greedy_time = time.perf_counter() - started
    # Lowest-first takes about half as long as best-fit did: on large components, run it
    # only when that much time is left.
    searchable = len(component) <= SEARCH_MAX_ITEMS
    if peak > bound and (searchable or allowance.seconds_left() >= greedy_time / 2):
        candidate = lowest_first(component)
        if component.peak(candidate) < peak:
            result, peak = candidate, component.peak(candidate)
    for order, best in greedy_orders(component) if searchable else []:
        if peak == bound or allowance.spent():
            break
        candidate = greedy_fit(component, order, best)
        if component.peak(candidate) < peak:
            result, peak = candidate, component.peak(candidate)
    if peak == bound or not searchable:
        return result, peak == bound
    return improve(component, result, bound, allowance, enough)
