"""Writes the `gpu_alloc.layout` record (see `gpu_alloc.dialect.layout`) onto backings.

`flatten-aliases` calls `record_alias_layouts` before it folds the aliases, while the
Func names, offsets and lifetimes are still in the IR; `lower-gpu-allocs` calls
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
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.source_lines import source_line
from gpu_alloc.transforms.block_sizes import bounded_byte_size
from gpu_alloc.transforms.kernel_ir import kernels, walk_ops
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap, lifetime, stage_map
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def static_offset(offset: SSAValue, space: int) -> int | None:
    """The byte offset an `offset_pointer` adds, when it is a constant. A heap Func's
    offset is `block base + constant`: the constant is its offset in the block's slice."""
    constant = _constant(offset)
    if constant is not None:
        return constant
    owner = offset.owner
    if space == MemorySpace.GLOBAL and isinstance(owner, arith.AddiOp):
        parts = [_constant(owner.lhs), _constant(owner.rhs)]
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


def stage_openers(stages: StageMap) -> dict[int, list[gpu.BarrierOp]]:
    """For each stage after the first, the `gpu.barrier`s that begin it (several when it
    begins in more than one branch of an `scf.if`), in program order."""
    openers: dict[int, list[gpu.BarrierOp]] = {}
    for op, interval in stages.stage_of.items():
        if isinstance(op, gpu.BarrierOp):  # a barrier moves the point to the stage `end`
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
    pointer = alias.pointer.owner
    memref_type = alias.memref.type
    if not isinstance(pointer, OffsetPointerOp) or not isinstance(memref_type, MemRefType):
        return None
    offset = static_offset(pointer.offset, alias.space)
    size = bounded_byte_size(alias)  # what fusion laid out (a size bounded by affine.min)
    if offset is None or size is None:
        return None
    span = lifetime(alias, alias.memref, stages)
    name = alias.alias_name.data
    found = (stage_of(stages, a.op) for a in memref_accesses(alias.memref))
    used = [stage for stage in found if stage is not None]
    first, last = (min(used), max(used)) if used else closed_stages(span)
    return FuncSlice(name, offset, size, *closed_stages(span)), FuncSlice(
        name, offset, size, first, last
    )


def _narrow_reuse(lives: list[FuncSlice], uses: list[FuncSlice]) -> list[FuncSlice]:
    """Fusion made Funcs share bytes only when their lifetimes were disjoint; hoisting
    the aliases out of a loop whose back edge has a barrier can make the lifetimes
    recomputed here overlap. Such Funcs get the stages of their uses instead (inside
    fusion's disjoint lifetimes), so (byte, stage) still names one Func."""
    result = list(lives)
    for i, a in enumerate(lives):
        for j in range(i + 1, len(lives)):
            b = lives[j]
            if a.shares_bytes(b) and a.co_live(b) and a.bytes and b.bytes:
                result[i], result[j] = uses[i], uses[j]
    return result


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


def record_alias_layouts(module: ModuleOp) -> None:
    """Put a `gpu_alloc.layout` record on every backing that aliases still point into."""
    for kernel in kernels(module):
        stages = stage_map(kernel)
        by_backing: dict[AllocOp, list[tuple[FuncSlice, FuncSlice]]] = {}
        for alias in walk_ops(kernel):
            if not isinstance(alias, AliasOp):
                continue
            pointer = alias.pointer.owner
            if not isinstance(pointer, OffsetPointerOp):
                continue
            backing = pointer.backing.owner
            entry = _alias_slice(alias, stages)
            if isinstance(backing, AllocOp) and entry is not None:
                by_backing.setdefault(backing, []).append(entry)
        for backing, pairs in by_backing.items():
            lives = _merge([live for live, _ in pairs])
            uses = _merge([use for _, use in pairs])
            slices = _narrow_reuse(lives, uses)
            existing = backing.attributes.get(LAYOUT_ATTR)
            if existing is not None:
                slices = [*read_layout(existing), *slices]
            backing.attributes[LAYOUT_ATTR] = layout_attr(slices)


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


def enclosing_kernel(op: Operation) -> gpu.FuncOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.FuncOp):
        parent = parent.parent_op()
    return parent
