"""Which Func slices meet another: share bytes *and* stages, in O(n log n).

Two slices of a layout record meet when their byte ranges overlap and their stage
intervals overlap: rectangles in the (byte, stage) plane. `meeting(queries, data)`
says, for each query, whether some data slice meets it, without looking at every pair
(a kernel may hold thousands of Funcs). Hand-written because no well-kept pure-Python
library answers "does this rectangle meet any of those" offline; the two sweeps below
are textbook (a segment tree of maxima and one of minima).

A data slice `d` meets a query `q` in one of two disjoint ways:

- `d` starts at or before `q`'s first byte and still covers it: found by sweeping the
  bytes in order, with the live `d`s in a tree ordered by first stage holding their
  last stages (is any last stage >= `q`'s first among those whose first <= `q`'s last?);
- `d` starts strictly inside `q`'s bytes: with the `d`s ordered by first byte these are
  one index range; going through the queries by decreasing first stage and adding the
  `d`s whose last stage reaches it, the tree holds their first stages (is the least one
  in the range <= `q`'s last?).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Protocol


class Rectangle(Protocol):
    """What `meeting` needs of a slice (`FuncSlice` has it)."""

    @property
    def offset(self) -> int: ...
    @property
    def end(self) -> int: ...
    @property
    def first_stage(self) -> int: ...
    @property
    def last_stage(self) -> int: ...


class _Tree:
    """A segment tree over `size` leaves keeping the maximum (`sign` 1) or minimum (-1)."""

    def __init__(self, size: int, sign: int):
        self.size, self.sign = max(size, 1), sign
        self.empty = -(10**18)
        self.values = [self.empty] * (2 * self.size)

    def set(self, index: int, value: int | None) -> None:
        position = index + self.size
        self.values[position] = self.empty if value is None else self.sign * value
        while position > 1:
            position //= 2
            self.values[position] = max(self.values[2 * position], self.values[2 * position + 1])

    def best(self, lo: int, hi: int) -> int | None:
        """The maximum (minimum) over leaves [lo, hi), None if all are empty."""
        found = self.empty
        lo, hi = lo + self.size, hi + self.size
        while lo < hi:
            if lo & 1:
                found, lo = max(found, self.values[lo]), lo + 1
            if hi & 1:
                hi -= 1
                found = max(found, self.values[hi])
            lo, hi = lo // 2, hi // 2
        return None if found == self.empty else self.sign * found


def meeting(queries: Sequence[Rectangle], data: Sequence[Rectangle]) -> list[bool]:
    """For each query, whether some other slice of `data` (not the query itself, when
    the query is in `data` too) shares bytes and stages with it. Empty slices meet
    nothing."""
    queries_kept = [q for q in queries if q.end > q.offset]
    data_kept = [d for d in data if d.end > d.offset]
    hits = _covering_start(queries_kept, data_kept)
    hits |= _starting_inside(queries_kept, data_kept)
    return [id(q) in hits for q in queries]


def _covering_start(queries: Sequence[Rectangle], data: Sequence[Rectangle]) -> set[int]:
    by_first = sorted(range(len(data)), key=lambda k: data[k].first_stage)
    rank = {k: r for r, k in enumerate(by_first)}
    firsts = [data[k].first_stage for k in by_first]
    index_of = {id(d): k for k, d in enumerate(data)}
    tree = _Tree(len(data), 1)
    # At one byte: ends (half-open) before starts before queries.
    events = [(d.end, 0, k) for k, d in enumerate(data)]
    events += [(d.offset, 1, k) for k, d in enumerate(data)]
    events += [(q.offset, 2, k) for k, q in enumerate(queries)]
    hits: set[int] = set()
    for _, kind, k in sorted(events):
        if kind < 2:
            tree.set(rank[k], data[k].last_stage if kind == 1 else None)
            continue
        q = queries[k]
        itself = index_of.get(id(q))
        if itself is not None:
            tree.set(rank[itself], None)
        best = tree.best(0, bisect_right(firsts, q.last_stage))
        if itself is not None and data[itself].offset <= q.offset < data[itself].end:
            tree.set(rank[itself], data[itself].last_stage)
        if best is not None and best >= q.first_stage:
            hits.add(id(q))
    return hits


def _starting_inside(queries: Sequence[Rectangle], data: Sequence[Rectangle]) -> set[int]:
    by_offset = sorted(range(len(data)), key=lambda k: data[k].offset)
    position = {k: p for p, k in enumerate(by_offset)}
    offsets = [data[k].offset for k in by_offset]
    by_last = sorted(range(len(data)), key=lambda k: -data[k].last_stage)
    tree = _Tree(len(data), -1)
    added = 0
    hits: set[int] = set()
    for q in sorted(queries, key=lambda q: -q.first_stage):
        while added < len(by_last) and data[by_last[added]].last_stage >= q.first_stage:
            k = by_last[added]
            tree.set(position[k], data[k].first_stage)
            added += 1
        lo, hi = bisect_right(offsets, q.offset), bisect_left(offsets, q.end)
        least = tree.best(lo, hi) if lo < hi else None
        if least is not None and least <= q.last_stage:
            hits.add(id(q))
    return hits
