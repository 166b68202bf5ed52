"""Placeholder packing (best-fit by decreasing size); the real packer lands with issue 7."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_TIME_LIMIT = 1.0


class PackingError(ValueError):
    pass


@dataclass(frozen=True)
class PackItem:
    start: int
    end: int
    size: int
    alignment: int = 1


@dataclass(frozen=True)
class Packing:
    offsets: tuple[int, ...]
    peak: int
    lower_bound: int
    optimal: bool


def _overlap(a: PackItem, b: PackItem) -> bool:
    return a.start < b.end and b.start < a.end


def lower_bound(items: Sequence[PackItem]) -> int:
    times = sorted({i.start for i in items})
    return max((sum(i.size for i in items if i.start <= t < i.end) for t in times), default=0)


def best_fit(items: Sequence[PackItem]) -> tuple[int, ...]:
    order = sorted(range(len(items)), key=lambda k: (-items[k].size, items[k].start))
    offsets = [0] * len(items)
    placed: list[int] = []
    for k in order:
        item = items[k]
        busy = sorted(
            (offsets[j], offsets[j] + items[j].size) for j in placed if _overlap(items[j], item)
        )
        best: tuple[int, int] | None = None
        cursor = 0
        for lo, hi in [*busy, (1 << 62, 1 << 62)]:
            start = -(-cursor // item.alignment) * item.alignment
            if start + item.size <= lo:
                gap = lo - start
                if best is None or gap < best[0]:
                    best = (gap, start)
            cursor = max(cursor, hi)
        assert best is not None
        offsets[k] = best[1]
        placed.append(k)
    return tuple(offsets)


def validate(items: Sequence[PackItem], offsets: Sequence[int]) -> None:
    for k, (item, off) in enumerate(zip(items, offsets, strict=True)):
        if off % item.alignment:
            raise PackingError(f"item {k} at offset {off} is not {item.alignment}-aligned")
        for j in range(k):
            other = items[j]
            if (
                _overlap(item, other)
                and off < offsets[j] + other.size
                and offsets[j] < off + item.size
            ):
                raise PackingError(f"items {j} and {k} overlap")


def pack(items: Sequence[PackItem], time_limit: float = DEFAULT_TIME_LIMIT) -> Packing:
    offsets = best_fit(items)
    validate(items, offsets)
    peak = max((o + i.size for o, i in zip(offsets, items, strict=True)), default=0)
    bound = lower_bound(items)
    return Packing(offsets, peak, bound, peak == bound)
