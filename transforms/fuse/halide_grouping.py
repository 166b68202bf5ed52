"""Halide's slot grouping (FuseGPUThreadLoops' `allocate_funcs`), as a reference layout.

Halide groups allocations whose lifetimes follow one another into "slots" with a
greedy best fit (smallest size difference, most recently freed first), makes each
slot as large as its largest member, pads it to 16 bytes (Halide main) and lays the
slots out one after another. This module reproduces that, with ceiling arithmetic
(so without Halide's bug 7.2), to give `fuse-gpu-allocs` a bound it must never
exceed and the report a number to compare with.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.packing import PackItem

SLOT_PADDING = 16


@dataclass
class _Slot:
    members: list[int] = field(default_factory=list[int])
    size: int = 0
    alignment: int = 1


def halide_grouping(items: Sequence[PackItem]) -> tuple[int, ...]:
    """Offsets of `items` as Halide's grouping would place them."""
    slots: list[_Slot] = []
    busy: list[tuple[int, int]] = []  # heap of (free_after, slot index)
    free: list[int] = []  # slot indices, most recently freed last
    for k in sorted(range(len(items)), key=lambda k: (items[k].start, k)):
        item = items[k]
        while busy and busy[0][0] <= item.start:
            free.append(heapq.heappop(busy)[1])
        best: int | None = None
        for position in reversed(range(len(free))):
            slot = slots[free[position]]
            if best is None or abs(slot.size - item.size) < abs(slots[free[best]].size - item.size):
                best = position
        if best is None:
            slots.append(_Slot())
            index = len(slots) - 1
        else:
            index = free.pop(best)
        chosen = slots[index]
        chosen.members.append(k)
        chosen.size = max(chosen.size, item.size)
        chosen.alignment = max(chosen.alignment, item.alignment)
        heapq.heappush(busy, (item.end, index))
    offsets = [0] * len(items)
    cursor = 0
    for slot in sorted(slots, key=lambda s: -s.alignment):
        cursor = -(-cursor // slot.alignment) * slot.alignment
        for k in slot.members:
            offsets[k] = cursor
        cursor += -(-slot.size // SLOT_PADDING) * SLOT_PADDING
    return tuple(offsets)
