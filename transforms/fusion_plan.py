"""The layout of one kernel's shared or heap allocations in one backing buffer.

Pure planning, no IR changes: static allocations are packed by `packing.pack`
(never worse than Halide's slot grouping, which is tried as well), dynamic ones are
laid out one after another past the static part, each aligned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.transforms.halide_grouping import halide_grouping
from gpu_alloc.transforms.lifetimes import Lifetime
from gpu_alloc.transforms.packing import DEFAULT_TIME_LIMIT, PackItem, pack

HALIDE_REFERENCE_MAX_ITEMS = 512
"""Halide's grouping is quadratic; above this many allocations it is not computed."""


@dataclass(frozen=True)
class Slot:
    """What the planner needs to know of one allocation (or merged same-name group)."""

    lifetime: Lifetime
    static_bytes: int | None
    """None for an allocation with a dynamic size."""
    alignment: int


@dataclass(frozen=True)
class SpacePlan:
    static_offsets: tuple[int | None, ...]
    """Per slot: its byte offset if static, None if it is placed dynamically."""
    static_bytes: int
    """End of the static part (the whole backing if nothing is dynamic)."""
    dynamic_order: tuple[int, ...]
    """Slots with a dynamic size, in the order they follow the static part."""
    lower_bound: int
    """No layout of the static slots is smaller (`Packing.lower_bound`: the most static bytes
    live at one stage, raised by alignment padding and by what the packer's search proved)."""
    max_load: int
    """The most static bytes live at one stage (what the IR's record gives back alone)."""
    optimal: bool
    halide_bytes: int | None
    """What Halide's grouping needs for the static slots (None when not computed)."""
    unfused_bytes: int
    """Sum of the static slots' sizes."""
    time_limit_hit: bool = False
    """Whether the packer's wall-clock cap (`time-limit`) cut its search short."""


def _peak(items: Sequence[PackItem], offsets: Sequence[int]) -> int:
    return max((o + i.size for o, i in zip(offsets, items, strict=True)), default=0)


def plan_space(
    slots: Sequence[Slot], time_limit: float | None = DEFAULT_TIME_LIMIT, budget: int | None = None
) -> SpacePlan:
    static = [k for k, s in enumerate(slots) if s.static_bytes is not None]
    items = [
        PackItem(
            slots[k].lifetime.start,
            slots[k].lifetime.end,
            slots[k].static_bytes or 0,
            slots[k].alignment,
        )
        for k in static
    ]
    packing = pack(items, time_limit=time_limit, budget=budget)
    offsets = packing.offsets
    peak = packing.peak
    halide_bytes: int | None = None
    if len(items) <= HALIDE_REFERENCE_MAX_ITEMS:
        halide_offsets = halide_grouping(items)
        halide_bytes = _peak(items, halide_offsets)
        if halide_bytes < peak:
            offsets, peak = halide_offsets, halide_bytes
    bound = packing.lower_bound
    static_offsets: list[int | None] = [None] * len(slots)
    for k, offset in zip(static, offsets, strict=True):
        static_offsets[k] = offset
    return SpacePlan(
        static_offsets=tuple(static_offsets),
        static_bytes=peak,
        dynamic_order=tuple(k for k, s in enumerate(slots) if s.static_bytes is None),
        lower_bound=bound,
        max_load=packing.max_load,
        optimal=packing.optimal or peak == bound,
        halide_bytes=halide_bytes,
        unfused_bytes=sum(i.size for i in items),
        time_limit_hit=packing.time_limit_hit,
    )
