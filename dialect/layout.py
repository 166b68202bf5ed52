"""The layout record: which bytes of a backing belong to which Func, and when.

`flatten-aliases` folds the per-Func aliases into plain views and `lower-gpu-allocs`
turns backings into globals, dynamic shared memory and kernel arguments; both leave
this record behind, so that a profiler (`gpu-alloc-sim --profile`) or a picture
(`gpu-alloc-layout`) still names the Func behind every byte. It is a discardable
attribute named `gpu_alloc.layout`, an array with one dictionary per Func:

    gpu_alloc.layout = [{bytes = 484 : i64, name = "f1", offset = 0 : i64,
                         stages = array<i64: 0, 1>}, ...]

- `name`: the Func's name (its alias or allocation name);
- `offset`, `bytes`: the Func's byte range [offset, offset + bytes) in the backing
  (for a heap backing: in one block's slice of it);
- `stages`: the closed interval of barrier stages during which the Func is live
  (`gpu_alloc.transforms.lifetimes`). After `fuse-gpu-allocs` two entries share bytes
  only when their stage intervals are disjoint, so (byte, stage) names one Func. (Two
  Funcs that fusion let share bytes within one iteration of a loop, whose lifetimes
  recomputed after hoisting would overlap, get the stages of their uses instead.)

`fuse-gpu-allocs` writes it on every backing it makes, with the stages it laid the
Funcs out by (their lifetimes), so that passes between fusion and flattening
(`remove-dead-allocs`) know which Funcs share bytes only because their stages are
disjoint; `flatten-aliases` keeps it. It sits on the op that makes the backing: a
`gpu_alloc.alloc` (after fusion), a
`memref.global`, a `gpu.dynamic_shared_memory` or a `memref.alloca` (after lowering);
a heap backing that became a kernel argument has it on the kernel as
`gpu_alloc.heap_layout`. Only builtin attributes are used, so MLIR's tools read the
lowered IR unchanged. A Func whose offset or size is only known at run time has no
entry. `read_layout` checks a record and says what is wrong with it; `layout_of` reads
the record of an op.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

LAYOUT_ATTR = "gpu_alloc.layout"
HEAP_LAYOUT_ATTR = "gpu_alloc.heap_layout"
PROVEN_OPTIMAL_ATTR = "gpu_alloc.proven_optimal"
"""A unit attribute `fuse-gpu-allocs` puts on a backing larger than the max load (the most
bytes live in one stage) when its search proved that no smaller layout exists."""
LOWER_BOUND_ATTR = "gpu_alloc.lower_bound"
"""An i64 `fuse-gpu-allocs` puts on a backing not proven optimal when the packer's lower bound
(alignment padding, refuted capacities) is above the max load: no smaller layout exists."""


@dataclass(frozen=True)
class FuncSlice:
    """One Func's bytes of a backing and its barrier-stage interval."""

    name: str
    offset: int
    bytes: int
    first_stage: int
    last_stage: int

    @property
    def end(self) -> int:
        return self.offset + self.bytes

    def covers(self, byte: int) -> bool:
        return self.offset <= byte < self.end

    def live_at(self, stage: int) -> bool:
        return self.first_stage <= stage <= self.last_stage

    def co_live(self, other: FuncSlice) -> bool:
        return self.first_stage <= other.last_stage and other.first_stage <= self.last_stage

    def shares_bytes(self, other: FuncSlice) -> bool:
        return self.offset < other.end and other.offset < self.end

    def to_attr(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "name": StringAttr(self.name),
                "offset": IntegerAttr(self.offset, i64),
                "bytes": IntegerAttr(self.bytes, i64),
                "stages": DenseArrayBase.from_list(i64, [self.first_stage, self.last_stage]),
            }
        )


def layout_attr(slices: Sequence[FuncSlice]) -> ArrayAttr:
    """The record for `slices`, sorted by offset then first stage."""
    ordered = sorted(slices, key=lambda s: (s.offset, s.first_stage, s.name))
    return ArrayAttr([s.to_attr() for s in ordered])


def _int_field(entry: DictionaryAttr, key: str, index: int) -> int:
    value = entry.data.get(key)
    if not isinstance(value, IntegerAttr):
        raise VerifyException(f"{LAYOUT_ATTR} entry {index} needs an integer '{key}'")
    number = value.value.data
    if number < 0:
        raise VerifyException(f"{LAYOUT_ATTR} entry {index} has a negative '{key}' ({number})")
    return number


def _read_entry(entry: Attribute, index: int) -> FuncSlice:
    if not isinstance(entry, DictionaryAttr):
        raise VerifyException(f"{LAYOUT_ATTR} entry {index} is not a dictionary")
    name = entry.data.get("name")
    if not isinstance(name, StringAttr) or not name.data:
        raise VerifyException(f"{LAYOUT_ATTR} entry {index} needs a non-empty string 'name'")
    stages = entry.data.get("stages")
    values = stages.get_values() if isinstance(stages, DenseArrayBase) else ()
    if len(values) != 2 or not all(isinstance(v, int) for v in values):
        raise VerifyException(
            f"{LAYOUT_ATTR} entry {index} ('{name.data}') needs 'stages = array<i64: first, last>'"
        )
    first, last = int(values[0]), int(values[1])
    if not 0 <= first <= last:
        raise VerifyException(
            f"{LAYOUT_ATTR} entry {index} ('{name.data}') has an empty stage interval "
            f"[{first}, {last}]"
        )
    return FuncSlice(
        name.data,
        _int_field(entry, "offset", index),
        _int_field(entry, "bytes", index),
        first,
        last,
    )


def read_layout(attr: Attribute, backing_bytes: int | None = None) -> list[FuncSlice]:
    """The Func slices of a record; raises `VerifyException` for a malformed one and for
    a slice past `backing_bytes`. Co-live Funcs sharing bytes are legal (hand-written
    aliases may overlap); a profiler then tells them apart by the view's name."""
    if not isinstance(attr, ArrayAttr):
        raise VerifyException(f"{LAYOUT_ATTR} must be an array of dictionaries")
    slices = [_read_entry(entry, i) for i, entry in enumerate(attr.data)]
    for s in slices:
        if backing_bytes is not None and s.end > backing_bytes:
            raise VerifyException(
                f"{LAYOUT_ATTR}: '{s.name}' covers bytes [{s.offset}, {s.end}) of a "
                f"{backing_bytes}-byte backing"
            )
    return slices


def layout_of(op: Operation) -> list[FuncSlice] | None:
    """The Funcs of the backing `op` makes, as its `gpu_alloc.layout` record describes
    them (byte range and barrier-stage interval each, sorted by offset), or None when it
    has no record. After `fuse-gpu-allocs` a backing's record is the layout fusion chose:
    two entries share bytes only when their stage intervals are disjoint. Raises
    `VerifyException` for a malformed record."""
    record = op.attributes.get(LAYOUT_ATTR)
    return None if record is None else read_layout(record)
