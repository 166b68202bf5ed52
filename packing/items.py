"""The packer's input and output: buffers with lifetimes (`PackItem`), offsets (`Packing`) with
the certificate of their lower bound (`Refutation`), the max-load lower bound and the validator
every result is checked with."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from numbers import Integral

import numpy as np


class PackingError(ValueError):
    """A packing item is malformed, or a set of offsets is not a valid packing.

    `indices` names the items at fault (positions in the input sequence).
    """

    def __init__(self, message: str, indices: tuple[int, ...] = ()):
        super().__init__(message)
        self.indices = indices


def is_integer(value: object) -> bool:
    """Whether `value` is an integer (Python's or numpy's; not a float, not a bool)."""
    return isinstance(value, Integral) and not isinstance(value, bool)


MAX_TOTAL_BYTES = 2**62
"""The most the sizes and alignments of one input may add up to: the packer works in 64-bit
integers, and no offset or peak it computes exceeds that sum."""


def total_bytes(items: Sequence[PackItem]) -> int:
    """What `items`' sizes and alignments add up to (checked against `MAX_TOTAL_BYTES`)."""
    return sum(item.size + item.alignment for item in items)


def check_total(items: Sequence[PackItem]) -> None:
    """Raise `PackingError` when `items` add up to more than `MAX_TOTAL_BYTES`."""
    total = total_bytes(items)
    if total > MAX_TOTAL_BYTES:
        raise PackingError(f"the buffers' sizes add up to {total}, more than 2^62 bytes")


@dataclass(frozen=True)
class PackItem:
    """One buffer: live during the half-open time interval [start, end), `size` bytes, at an
    offset that is a multiple of `alignment`; `offset`, when given, pins it there."""

    start: int
    end: int
    size: int
    alignment: int = 1
    offset: int | None = None
    """The byte offset the buffer must have (None: the packer chooses)."""

    def __post_init__(self) -> None:
        for name in ("start", "end", "size", "alignment", "offset"):
            value = getattr(self, name)
            if not (value is None and name == "offset") and not is_integer(value):
                raise PackingError(f"{name} {value!r} is not an integer")
        if self.end < self.start:
            raise PackingError(f"lifetime [{self.start}, {self.end}) ends before it starts")
        if self.size < 0:
            raise PackingError(f"size {self.size} is negative")
        if self.alignment < 1 or self.alignment & (self.alignment - 1):
            raise PackingError(f"alignment {self.alignment} is not a positive power of two")
        if self.offset is not None and self.offset < 0:
            raise PackingError(f"pinned offset {self.offset} is negative")
        if self.offset is not None and self.offset % self.alignment:
            raise PackingError(
                f"pinned offset {self.offset} is not aligned to {self.alignment} bytes"
            )

    @property
    def occupies_memory(self) -> bool:
        return self.size > 0 and self.end > self.start


@dataclass(frozen=True)
class Refutation:
    """A certificate that no packing of some items fits in `capacity` bytes: the exact search
    over their canonical packings (`search.CanonicalSearch`) with tie-break `ranking` finished
    after `nodes` nodes without one. `confirm` replays it."""

    capacity: int
    items: tuple[int, ...]
    """The refuted items (positions in `pack`'s input); any packing of all the input packs them."""
    ranking: int
    """Which of the search's rankings (`CanonicalSearch.rankings`) the refuting dive used."""
    nodes: int
    """Nodes the refuting dive visited."""


@dataclass(frozen=True)
class Packing:
    """Offsets for a list of `PackItem`s (in input order) and how good they are."""

    offsets: tuple[int, ...]
    peak: int
    """max(offset + size) over the items (never-live ones included), 0 when there are none."""
    lower_bound: int
    """No packing has a smaller peak: the max load (`max_load`), raised to the step every
    compacted packing's peak is a multiple of, to the top of any pinned buffer, and past every
    capacity the exact search refuted (`refutation`)."""
    optimal: bool
    """Whether no packing has a smaller peak: exactly when `peak == lower_bound`."""
    max_load: int = 0
    """The max-load bound alone: the largest total size live at one time (`lower_bound()`)."""
    refutation: Refutation | None = None
    """The search's certificate for `lower_bound` when it is above what the load and the step
    give (None otherwise): `lower_bound` is the next multiple of the step above its capacity."""
    feasible: bool | None = None
    """With a `capacity` (feasibility mode): True when `peak <= capacity`, False when the search
    proved that no packing fits (`refutation` says how), None when the work ran out first.
    None in minimise mode."""
    work: int = field(default=0, compare=False)
    """Work units spent (`budget` module): the same for the same input and options."""
    time_limit_hit: bool = field(default=False, compare=False)
    """Whether the wall-clock cap cut the search short (the result depends on the machine)."""
    interrupted: bool = field(default=False, compare=False)
    """Whether `Meter.interrupt` (the tool's Ctrl-C) stopped the search: the best so far."""


def lower_bound(items: Sequence[PackItem]) -> int:
    """The max-load lower bound: the largest total size of the items live at one time.

    `pack` improves on it (`Packing.lower_bound`); this is `Packing.max_load`."""
    live = [item for item in items if item.occupies_memory]
    if not live:
        return 0
    times = np.array([i.start for i in live] + [i.end for i in live], dtype=np.int64)
    sizes = np.array([i.size for i in live], dtype=np.int64)
    deltas = np.concatenate([sizes, -sizes])
    order = np.lexsort((deltas, times))  # at equal times, ends (negative deltas) come first
    return int(np.cumsum(deltas[order]).max())


def validate(items: Sequence[PackItem], offsets: Sequence[int]) -> None:
    """Raise `PackingError` unless `offsets` is a valid packing of `items`.

    Checks one offset per item, non-negative offsets that are multiples of each item's alignment,
    pinned items at their pinned offset, and that no two items with overlapping lifetimes overlap
    in memory.
    """
    if len(offsets) != len(items):
        raise PackingError(f"{len(offsets)} offsets for {len(items)} items")
    for index, (item, offset) in enumerate(zip(items, offsets, strict=True)):
        if offset < 0:
            raise PackingError(f"item {index} has negative offset {offset}", (index,))
        if item.offset is not None and offset != item.offset:
            raise PackingError(
                f"item {index} is pinned at offset {item.offset}, not {offset}", (index,)
            )
        if offset % item.alignment:
            raise PackingError(
                f"item {index} at offset {offset} is not aligned to {item.alignment} bytes",
                (index,),
            )
    # One int per event, sorted: by time, ends (0) before starts (1), then by item.
    count = len(items)
    events = [
        ((time * 2 + is_start) * count + index)
        for index, item in enumerate(items)
        if item.occupies_memory
        for time, is_start in ((item.start, 1), (item.end, 0))
    ]
    events.sort()
    # Items live at the sweep time never overlap in memory, so sorting them by offset is enough
    # to check each new one against its two neighbours. Keys: offset * count + item.
    live: list[int] = []
    for event in events:
        index = event % count
        key = offsets[index] * count + index
        if not (event // count) % 2:
            del live[bisect_left(live, key)]
            continue
        position = bisect_left(live, key)
        for neighbour_position in (position - 1, position):
            if 0 <= neighbour_position < len(live):
                other = live[neighbour_position] % count
                if _overlap_in_memory(items, offsets, index, other):
                    first, second = sorted((index, other))
                    raise PackingError(
                        _overlap_message(items, offsets, first, second), (first, second)
                    )
        live.insert(position, key)


def _overlap_in_memory(items: Sequence[PackItem], offsets: Sequence[int], a: int, b: int) -> bool:
    return offsets[a] < offsets[b] + items[b].size and offsets[b] < offsets[a] + items[a].size


def _overlap_message(items: Sequence[PackItem], offsets: Sequence[int], a: int, b: int) -> str:
    def describe(index: int) -> str:
        item = items[index]
        return (
            f"item {index} (live [{item.start}, {item.end}), "
            f"bytes [{offsets[index]}, {offsets[index] + item.size}))"
        )

    return f"{describe(a)} and {describe(b)} are live at the same time and overlap in memory"
