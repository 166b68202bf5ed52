"""Writes the `gpu_alloc.layout` record (see `gpu_alloc.dialect.layout`) onto backings.

`fuse-gpu-allocs` writes the record of every backing it makes; `flatten-aliases` calls
`record_alias_layouts` before it folds the aliases, while the Func names, offsets and
lifetimes are still in the IR, for the aliases no record names; `lower-gpu-allocs` calls
`single_func_layout` for an allocation that was never fused (one Func at offset 0).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc.dialect import (
    LAYOUT_ATTR,
    AliasOp,
    AllocOp,
    FuncSlice,
    MemorySpace,
    OffsetPointerOp,
    layout_attr,
    read_layout,
)
from gpu_alloc.dialect.slice_overlap import meeting
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.source_lines import source_line
from gpu_alloc.transforms.barrier_ops import is_barrier
from gpu_alloc.transforms.block_level_code import block_level_code, enclosing_code, owned_by
from gpu_alloc.transforms.block_sizes import bounded_byte_size
from gpu_alloc.transforms.iv_conditions import constant_int
from gpu_alloc.transforms.kernel_ir import walk_ops
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap, lifetime, stage_map
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import ArrayAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue


def static_offset(offset: SSAValue, space: int) -> int | None:
    """The byte offset an `offset_pointer` adds, when it is a constant. A heap Func's
    offset is `block base + constant`: the constant is its offset in the block's slice."""
    constant = constant_int(offset)
    if constant is not None:
        return constant
    owner = offset.owner
    if space == MemorySpace.GLOBAL and isinstance(owner, arith.AddiOp):
        parts = [constant_int(owner.lhs), constant_int(owner.rhs)]
        known = [p for p in parts if p is not None]
        if len(known) == 1:
            return known[0]
    return None


def stage_of(stages: StageMap, op: Operation) -> int | None:
    """The barrier stage of `op`, None if it has none: the first stage of its interval
    (an op after a barrier that may be skipped may run in several stages; Funcs that
    share bytes have disjoint intervals, so the first stage tells them apart). With
    `stage_count`, `closed_stages` and `stage_openers`, the only place this package reads a `StageMap`
    beyond `stage_map` and `lifetime` (the layout record, the profile and the picture
    all go through here)."""
    interval = stages.stage_of.get(op)
    return None if interval is None else interval.start


def closed_stages(span: Lifetime) -> tuple[int, int]:
    """The first and last stage of a (half-open) lifetime, as the record writes them."""
    return span.start, span.end - 1


def stage_count(stages: StageMap) -> int:
    """How many barrier stages the kernel has."""
    return stages.last_stage + 1


def stage_openers(stages: StageMap) -> dict[int, list[Operation]]:
    """For each stage after the first, the `gpu.barrier`s that begin it (several when it
    begins in more than one branch of an `scf.if`), in program order."""
    openers: dict[int, list[Operation]] = {}
    for op, interval in stages.stage_of.items():
        if is_barrier(op):  # a barrier moves the point to the stage `end`
            openers.setdefault(interval.end, []).append(op)
    return openers


def barrier_lines(stages: StageMap) -> dict[int, list[int | None]]:
    """For each stage after the first, the source lines of the barriers that begin it
    (`gpu_alloc.source_lines`; None for a barrier no parser saw: one a pass inserted)."""
    return {
        stage: [source_line(b) for b in barriers]
        for stage, barriers in sorted(stage_openers(stages).items())
    }


def describe_barriers(lines: list[int | None]) -> str:
    """`gpu.barrier @ line 23`, `gpu.barrier @ lines 23, 31`, `inserted gpu.barrier`."""
    known = sorted({line for line in lines if line is not None})
    inserted = "inserted gpu.barrier" if None in lines else ""
    if not known:
        return inserted or "gpu.barrier"
    where = f"line {known[0]}" if len(known) == 1 else "lines " + ", ".join(map(str, known))
    return f"gpu.barrier @ {where}" + (f" (+ {inserted})" if inserted else "")


def _alias_slice(alias: AliasOp, stages: StageMap) -> tuple[FuncSlice, FuncSlice] | None:
    """The alias's slice with its lifetime, and with the stages of its uses only."""
    found = _alias_bytes(alias)
    if found is None:
        return None
    offset, size = found
    span = lifetime(alias, alias.memref, stages)
    name = alias.alias_name.data
    found_stages = (stage_of(stages, a.op) for a in memref_accesses(alias.memref))
    used = [stage for stage in found_stages if stage is not None]
    first, last = (min(used), max(used)) if used else closed_stages(span)
    return FuncSlice(name, offset, size, *closed_stages(span)), FuncSlice(
        name, offset, size, first, last
    )


def _alias_bytes(alias: AliasOp) -> tuple[int, int] | None:
    """The alias's static byte offset and size in its backing, if both are known."""
    pointer = alias.pointer.owner
    memref_type = alias.memref.type
    if not isinstance(pointer, OffsetPointerOp) or not isinstance(memref_type, MemRefType):
        return None
    offset = static_offset(pointer.offset, alias.space)
    size = bounded_byte_size(alias)  # what fusion laid out (a size bounded by affine.min)
    return None if offset is None or size is None else (offset, size)


def _narrow_reuse(
    lives: list[FuncSlice], uses: list[FuncSlice], recorded: Sequence[FuncSlice] = ()
) -> list[FuncSlice]:
    """Fusion made Funcs share bytes only when their lifetimes were disjoint; hoisting
    the aliases out of a loop whose back edge has a barrier can make the lifetimes
    recomputed here overlap. Such Funcs get the stages of their uses instead (inside
    fusion's disjoint lifetimes), so (byte, stage) still names one Func. `recorded`:
    entries already in the record, which `lives` must not meet either. O(n log n)."""
    met = meeting(lives, [*lives, *recorded])
    return [use if hit else live for live, use, hit in zip(lives, uses, met, strict=True)]


def _merge(slices: list[FuncSlice]) -> list[FuncSlice]:
    """One entry per Func slot: same-name aliases of one slot (one per memref type, or
    unrolled copies) get the union of their stages."""
    merged: dict[tuple[str, int, int], FuncSlice] = {}
    for s in slices:
        key = (s.name, s.offset, s.bytes)
        old = merged.get(key)
        if old is not None:
            s = FuncSlice(
                s.name,
                s.offset,
                s.bytes,
                min(s.first_stage, old.first_stage),
                max(s.last_stage, old.last_stage),
            )
        merged[key] = s
    return list(merged.values())


def _slot(s: FuncSlice) -> tuple[str, int, int]:
    return s.name, s.offset, s.bytes


def record_alias_layouts(module: ModuleOp) -> None:
    """Put a `gpu_alloc.layout` record on every backing that aliases still point into.

    A backing that already has one (`fuse-gpu-allocs` writes it) keeps it: its stages
    are the ones fusion laid the Funcs out by. Only aliases the record does not name
    (written by hand) get entries, with stages derived here."""
    for kernel in block_level_code(module):
        by_backing: dict[AllocOp, list[AliasOp]] = {}
        for alias in walk_ops(kernel):
            if isinstance(alias, AliasOp) and owned_by(alias, kernel):
                pointer = alias.pointer.owner
                backing = pointer.backing.owner if isinstance(pointer, OffsetPointerOp) else None
                if isinstance(backing, AllocOp):
                    by_backing.setdefault(backing, []).append(alias)
        stages: StageMap | None = None
        for backing, aliases in by_backing.items():
            existing = backing.attributes.get(LAYOUT_ATTR)
            recorded = read_layout(existing) if existing is not None else []
            known = {_slot(s) for s in recorded}
            missing = [
                a
                for a in aliases
                if (found := _alias_bytes(a)) is not None
                and (a.alias_name.data, *found) not in known
            ]
            if not missing:
                continue
            stages = stages or stage_map(kernel)
            pairs = [p for a in missing if (p := _alias_slice(a, stages)) is not None]
            lives = _merge([live for live, _ in pairs])
            uses = _merge([use for _, use in pairs])
            backing.attributes[LAYOUT_ATTR] = layout_attr(
                [*recorded, *_narrow_reuse(lives, uses, recorded)]
            )


def forget_layouts(op: Operation) -> None:
    """Drops the `gpu_alloc.layout` records of the code around `op` (a pass that changes
    its barrier stages calls this: the records' stage numbers no longer hold)."""
    code = enclosing_code(op)
    for inner in walk_ops(code) if code is not None else ():
        if LAYOUT_ATTR in inner.attributes and isinstance(inner, AllocOp):
            del inner.attributes[LAYOUT_ATTR]


def single_func_layout(alloc: AllocOp, kernel: gpu.FuncOp | None) -> ArrayAttr | None:
    """The record of an allocation: its own one if it has one (a fused backing), else
    one entry for the unfused Func it is; None when its size is dynamic."""
    existing = alloc.attributes.get(LAYOUT_ATTR)
    if isinstance(existing, ArrayAttr):
        return existing
    if any(isinstance(use.operation, memref.ViewOp) for use in alloc.memref.uses):
        return None  # a backing whose Funcs nobody recorded: nothing to say
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    size = static_byte_size(memref_type)
    if size is None:
        return None
    first = last = 0
    if kernel is not None:
        span = lifetime(alloc, alloc.memref, stage_map(kernel))
        first, last = closed_stages(span)
    return layout_attr([FuncSlice(alloc.alloc_name.data, 0, size, first, last)])


def keep_layout(op: Operation, record: Attribute | None) -> None:
    """Put `record` (if any) on `op`, the op that now makes the backing."""
    if record is not None:
        op.attributes[LAYOUT_ATTR] = record


def shifted_layout(records: Sequence[ArrayAttr | None], offsets: Sequence[int]) -> ArrayAttr | None:
    """One record for allocations placed one after the other at `offsets` (a kernel's
    heap slice): each allocation's record (`single_func_layout`), shifted by its offset."""
    slices = [
        FuncSlice(s.name, s.offset + offset, s.bytes, s.first_stage, s.last_stage)
        for record, offset in zip(records, offsets, strict=True)
        if record is not None
        for s in read_layout(record)
    ]
    return layout_attr(slices) if slices else None
