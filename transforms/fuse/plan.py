"""The layout of one kernel's shared or heap allocations in one backing buffer.

Pure planning, no IR changes: static allocations are packed by `packing.pack`
(never worse than Halide's slot grouping, which is tried as well), dynamic ones are
laid out one after another past the static part, each aligned.

Never larger than unfused: the unfused layout is the static allocations one after
another, each at its own (natural) alignment, most aligned first, as the target lays out
separate arrays. When the packing at the `alignment` option needs more bytes than that
(little to reuse, padding to pay), the slots are packed again at their natural alignment
(the unfused layout itself if that is no smaller), and the bound and verdict are that
packing's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.packing import DEFAULT_TIME_LIMIT, PackItem, pack
from gpu_alloc.transforms.fuse.halide_grouping import halide_grouping
from gpu_alloc.transforms.lifetimes import Lifetime

HALIDE_REFERENCE_MAX_ITEMS = 512
"""Halide's grouping is quadratic; above this many allocations it is not computed."""


@dataclass(frozen=True)
class Slot:
    """What the planner needs to know of one allocation (or merged same-name group)."""

    lifetime: Lifetime
    static_bytes: int | None
    """None for an allocation with a dynamic size."""
    alignment: int
    natural_alignment: int | None = None
    """The alignment the allocation has unfused (`alignment` if None)."""


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
    unfused_layout_bytes: int = 0
    """The end of the unfused layout: the static slots one after another at their
    natural alignment, most aligned first (`unfused_bytes` unless an alignment exceeds
    a size); `static_bytes` is never more."""
    natural_layout: bool = False
    """Whether the `alignment` option was dropped for the slots' natural alignment (a layout
    no larger than the unfused one)."""
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
    optimal = packing.optimal or peak == bound
    unfused_offsets, unfused_end = unfused_layout([slots[k] for k in static])
    fall_back = peak > unfused_end
    if fall_back:  # the option's padding costs more than fusing saves: natural alignment
        natural = [
            PackItem(i.start, i.end, i.size, _natural(slots[k]))
            for k, i in zip(static, items, strict=True)
        ]
        tighter = pack(natural, time_limit=time_limit, budget=budget)
        offsets, peak = tighter.offsets, tighter.peak
        if peak > unfused_end:
            offsets, peak = unfused_offsets, unfused_end
        bound = tighter.lower_bound
        optimal = (tighter.optimal and peak == tighter.peak) or peak == bound
    static_offsets: list[int | None] = [None] * len(slots)
    for k, offset in zip(static, offsets, strict=True):
        static_offsets[k] = offset
    return SpacePlan(
        static_offsets=tuple(static_offsets),
        static_bytes=peak,
        dynamic_order=tuple(k for k, s in enumerate(slots) if s.static_bytes is None),
        lower_bound=bound,
        max_load=packing.max_load,
        optimal=optimal,
        halide_bytes=halide_bytes,
        unfused_bytes=sum(i.size for i in items),
        unfused_layout_bytes=unfused_end,
        natural_layout=fall_back,
        time_limit_hit=packing.time_limit_hit,
    )


def unfused_layout(slots: Sequence[Slot]) -> tuple[list[int], int]:
    """Per static slot its offset in the unfused layout (one after another at its
    natural alignment, most aligned first), and the layout's end."""
    order = sorted(range(len(slots)), key=lambda k: -_natural(slots[k]))
    offsets = [0] * len(slots)
    cursor = 0
    for k in order:
        align = _natural(slots[k])
        cursor = -(-cursor // align) * align
        offsets[k] = cursor
        cursor += slots[k].static_bytes or 0
    return offsets, cursor


def _natural(slot: Slot) -> int:
    return slot.natural_alignment or slot.alignment
