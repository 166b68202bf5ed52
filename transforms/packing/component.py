"""One independent packing subproblem as numpy arrays, and how a problem splits into them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from gpu_alloc.transforms.packing.items import PackItem

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

    @staticmethod
    def of(items: Sequence[PackItem], ids: Sequence[int]) -> Component:
        chosen = [items[i] for i in ids]
        return Component(
            np.array(ids, dtype=np.int64),
            np.array([item.start for item in chosen], dtype=np.int64),
            np.array([item.end for item in chosen], dtype=np.int64),
            np.array([item.size for item in chosen], dtype=np.int64),
            np.array([item.alignment for item in chosen], dtype=np.int64),
        )

    def __len__(self) -> int:
        return len(self.ids)

    def peak(self, offsets: IntArray) -> int:
        return int((offsets + self.size).max()) if len(self) else 0

    def lower_bound(self) -> int:
        if not len(self):
            return 0
        times = np.concatenate([self.start, self.end])
        deltas = np.concatenate([self.size, -self.size])
        order = np.lexsort((deltas, times))
        return int(np.cumsum(deltas[order]).max())


def quantum(component: Component) -> int:
    """A step every canonical packing's offsets and peak are multiples of.

    Sizes are multiples of their gcd g; aligning a multiple of q up to an alignment a gives a
    multiple of q when a divides q, and a multiple of a otherwise, so q = g reduced by gcd with
    every alignment that does not divide it works. Every packing compacts into a canonical one
    with no larger peak, so asking for capacity C is asking for C rounded down to a multiple."""
    quantum = int(np.gcd.reduce(component.size)) if len(component) else 1
    for alignment in np.unique(component.align).tolist():
        if quantum % alignment:
            quantum = math.gcd(quantum, alignment)
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
