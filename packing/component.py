"""One independent packing subproblem as numpy arrays, and how a problem splits into them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from gpu_alloc.packing.items import PackItem

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


def align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


@dataclass
class Component:
    """Items that occupy memory, as arrays (positions are local; `ids` maps back to the input)."""

    ids: IntArray
    start: IntArray
    end: IntArray
    size: IntArray
    align: IntArray
    pinned: IntArray
    """The offset each buffer is pinned at, -1 for a free one."""

    @staticmethod
    def of(items: Sequence[PackItem], ids: Sequence[int]) -> Component:
        chosen = [items[i] for i in ids]
        return Component(
            np.array(ids, dtype=np.int64),
            np.array([item.start for item in chosen], dtype=np.int64),
            np.array([item.end for item in chosen], dtype=np.int64),
            np.array([item.size for item in chosen], dtype=np.int64),
            np.array([item.alignment for item in chosen], dtype=np.int64),
            np.array([-1 if item.offset is None else item.offset for item in chosen], np.int64),
        )

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def has_pins(self) -> bool:
        return bool((self.pinned >= 0).any())

    def peak(self, offsets: IntArray) -> int:
        return int((offsets + self.size).max()) if len(self) else 0

    def max_load(self) -> int:
        if not len(self):
            return 0
        times = np.concatenate([self.start, self.end])
        deltas = np.concatenate([self.size, -self.size])
        order = np.lexsort((deltas, times))
        return int(np.cumsum(deltas[order]).max())

    def lower_bound(self, load: int | None = None, aligned: bool = True) -> int:
        """No packing's peak is below this: the max load (`load` if already known), the top of
        a pinned buffer and, with `aligned` where alignment matters, `aligned_section_bound`."""
        bound = self.max_load() if load is None else load
        pinned = self.pinned >= 0
        if pinned.any():
            bound = max(bound, int((self.pinned + self.size)[pinned].max()))
        if aligned and (self.size % self.align.max()).any():
            # (When every size is a multiple of every alignment, padding never shows.)
            bound = max(bound, aligned_section_bound(self))
        return bound


SECTION_BOUND_MAX_PAIRS = 2_000_000
"""`aligned_section_bound` looks at every (section, buffer live there) pair; above this many it
is not computed (the max load stands)."""


def aligned_section_bound(component: Component) -> int:
    """A bound that counts alignment: at each time section, the buffer with the highest offset
    among those live there lies above all the others (they cannot overlap it), so it starts at
    a multiple of its alignment no lower than their total size; whichever buffer that is, the
    peak is at least min over them of align_up(load - size, alignment) + size.

    (The max load is a multiple of every packing's `quantum`, so rounding it up to one gains
    nothing; this is where the granule shows.)"""
    times = np.unique(np.concatenate([component.start, component.end]))
    first = np.searchsorted(times, component.start)
    spans = np.searchsorted(times, component.end) - first
    if int(spans.sum()) > SECTION_BOUND_MAX_PAIRS:
        return 0
    item = np.repeat(np.arange(len(component)), spans)
    section = np.repeat(first, spans) + (
        np.arange(len(item)) - np.repeat(np.cumsum(spans) - spans, spans)
    )
    load = np.zeros(len(times), dtype=np.int64)
    np.add.at(load, section, component.size[item])  # exact in int64 (bincount sums floats)
    size, align = component.size[item], component.align[item]
    highest = -(-(load[section] - size) // align) * align + size
    per_section = np.full(len(times), np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(per_section, section, highest)
    return int(per_section[np.bincount(section, minlength=len(times)) > 0].max())


def quantum(component: Component) -> int:
    """A step every canonical packing's offsets and peak are multiples of.

    Sizes are multiples of their gcd g; aligning a multiple of q up to an alignment a gives a
    multiple of q when a divides q, and a multiple of a otherwise, so q = g reduced by gcd with
    every alignment that does not divide it works, and so does its gcd with every pinned offset.
    Every packing compacts into a canonical one with no larger peak, so asking for capacity C is
    asking for C rounded down to a multiple."""
    quantum = int(np.gcd.reduce(component.size)) if len(component) else 1
    for alignment in np.unique(component.align).tolist():
        if quantum % alignment:
            quantum = math.gcd(quantum, alignment)
    pins = component.pinned[component.pinned > 0]
    if len(pins):
        quantum = math.gcd(quantum, int(np.gcd.reduce(pins)))
    return max(quantum, 1)


def split_components(items: Sequence[PackItem], live: list[int]) -> list[list[int]]:
    """Split items into groups no lifetime crosses between (independent subproblems)."""
    ordered = sorted(live, key=lambda i: items[i].start)
    groups: list[list[int]] = []
    reach = None
    for index in ordered:
        if reach is None or items[index].start >= reach:
            groups.append([])
            reach = items[index].end
        groups[-1].append(index)
        reach = max(reach, items[index].end)
    return groups
