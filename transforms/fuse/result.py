"""What `fuse-gpu-allocs` decided, as data: per kernel and memory space, every Func's offset,
bytes and stages, the backing's unfused and fused bytes, the lower bound and whether the
layout is proven optimal (`gpu_alloc.api.fuse` and `gpu_alloc.api.fusion_result`).

Two sources give the same `FusionResult`: the pass's own plan (`from_reports`, what
`report=true` prints), and the IR after fusion (`read_fusion_result`), before or after
`flatten-aliases`. Reading the IR goes through one function, `_recorded_slices`: the
`gpu_alloc.layout` record of each backing, which `fuse-gpu-allocs` writes with the stage
intervals it planned with and `flatten-aliases` keeps (run on a copy when aliases are
still there, so that hand-written aliases the record does not name get entries too);
the lower bound is the backing's bytes where fuse left its `gpu_alloc.proven_optimal` mark
(the search proved a layout above the max load optimal), fuse's `gpu_alloc.lower_bound`
where it recorded one above the max load (alignment padding, refuted capacities), else the
max load recomputed from the slices over the same intervals; `proven` is "at the lower
bound".
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import (
    LAYOUT_ATTR,
    LOWER_BOUND_ATTR,
    PROVEN_OPTIMAL_ATTR,
    AliasOp,
    AllocOp,
    FuncSlice,
    MemorySpace,
    is_backing,
    read_layout,
)
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.packing import PackItem, lower_bound
from gpu_alloc.transforms.block_level_code import block_level_code, owned_by
from gpu_alloc.transforms.fuse.report import SPACE_NAMES, KernelReport
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from gpu_alloc.transforms.layout_record import closed_stages, stage_count
from gpu_alloc.transforms.lifetimes import lifetime, stage_map
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Operation


@dataclass(frozen=True)
class FuncPlacement:
    """One Func: where fusion put it and when it is live."""

    name: str
    offset: int | None
    """Byte offset in the backing; None for a Func placed at run time (a dynamic size)."""
    bytes: int | None
    """Its size in bytes; None when dynamic."""
    first_stage: int
    last_stage: int
    """The closed interval of barrier stages during which it is live."""


@dataclass(frozen=True)
class SpaceFusion:
    """One kernel's Funcs of one memory space, fused into one backing (or one kept Func)."""

    space: str
    """`shared` or `heap`."""
    backing: str
    """The backing's name (`shared_alloc`, ...), or the lone Func's when there is one."""
    funcs: tuple[FuncPlacement, ...]
    unfused_bytes: int
    """The static Funcs' bytes added up: what the kernel used before fusion."""
    fused_bytes: int
    """The backing's static bytes (Funcs with a dynamic size come after them)."""
    lower_bound: int
    """No layout can be smaller: the most static bytes live in one stage, raised by alignment
    padding and by what the packer's search proved (`Packing.lower_bound`)."""
    proven: bool
    """No layout of these Funcs is smaller (at the lower bound, or the search proved it)."""
    dynamic: bool = False
    """Whether Funcs with a run-time size follow the static part."""

    @property
    def saved_bytes(self) -> int:
        return self.unfused_bytes - self.fused_bytes

    def func(self, name: str) -> FuncPlacement:
        return next(f for f in self.funcs if f.name == name)


@dataclass(frozen=True)
class KernelFusion:
    """One kernel (a `gpu.func`, a `gpu.launch` body, a workgroup `func.func`)."""

    kernel: str
    stages: int
    """How many barrier stages the kernel has."""
    spaces: tuple[SpaceFusion, ...]
    no_reuse_reason: str | None = None
    """Why no Funcs may share bytes (the barrier structure is not understood), if so."""

    def space(self, space: str) -> SpaceFusion | None:
        return next((s for s in self.spaces if s.space == space), None)


@dataclass(frozen=True)
class FusionResult:
    kernels: tuple[KernelFusion, ...]

    def kernel(self, name: str) -> KernelFusion:
        found = [k for k in self.kernels if k.kernel == name]
        if not found:
            known = ", ".join(k.kernel for k in self.kernels) or "none"
            raise KeyError(f"no kernel '{name}' (kernels: {known})")
        return found[0]


def _ordered(funcs: Iterable[FuncPlacement]) -> tuple[FuncPlacement, ...]:
    return tuple(sorted(funcs, key=lambda f: (f.offset is None, f.offset or 0, f.first_stage)))


def from_reports(reports: Sequence[KernelReport]) -> FusionResult:
    """The result of one run of the pass, from its per-kernel reports."""
    kernels: list[KernelFusion] = []
    for report in reports:
        spaces = tuple(
            SpaceFusion(
                SPACE_NAMES[summary.space],
                summary.backing,
                _ordered(
                    FuncPlacement(row.name, row.offset, row.bytes, *closed_stages(row.lifetime))
                    for row in summary.rows
                ),
                summary.plan.unfused_bytes,
                summary.plan.static_bytes,
                summary.plan.lower_bound,
                summary.plan.optimal,
                bool(summary.plan.dynamic_order),
            )
            for summary in report.spaces
        )
        kernels.append(KernelFusion(report.kernel, report.stages, spaces, report.not_intact_reason))
    return FusionResult(tuple(kernels))


def read_fusion_result(module: ModuleOp) -> FusionResult:
    """The fusion result recorded in `module` after `fuse-gpu-allocs` (with or without
    `flatten-aliases` after it; not after `lower-gpu-allocs`). Funcs with a run-time offset
    or size are not recorded (`gpu_alloc.layout`): they are missing here. A backing written
    by hand (aliases into a buffer of the input, which fuse leaves alone and does not report)
    is listed too, its aliases as its Funcs."""
    slices = _recorded_slices(module)
    kernels: list[KernelFusion] = []
    for kernel in block_level_code(module):
        stages = stage_map(kernel)
        spaces: list[SpaceFusion] = []
        for space in (MemorySpace.SHARED, MemorySpace.GLOBAL):
            for alloc in walk_ops(kernel):
                if isinstance(alloc, AllocOp) and alloc.space == space and owned_by(alloc, kernel):
                    if (found := _space_fusion(alloc, slices, stages)) is not None:
                        spaces.append(found)
        kernels.append(
            KernelFusion(
                kernel_name(kernel), stage_count(stages), tuple(spaces), stages.not_intact_reason
            )
        )
    return FusionResult(tuple(kernels))


def _space_fusion(alloc: AllocOp, slices: dict[str, list[FuncSlice]], stages) -> SpaceFusion | None:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    size = static_byte_size(memref_type)
    if is_backing(alloc) or LAYOUT_ATTR in alloc.attributes:  # a flattened one is a backing too
        funcs = slices.get(alloc.alloc_name.data, [])
        fused = size if size is not None else max((s.end for s in funcs), default=0)
    elif size is not None:  # a lone Func, kept as it is
        span = lifetime(alloc, alloc.memref, stages)
        funcs = [FuncSlice(alloc.alloc_name.data, 0, size, *closed_stages(span))]
        fused = size
    else:
        return None
    bound = lower_bound([PackItem(s.first_stage, s.last_stage + 1, s.bytes) for s in funcs])
    recorded = alloc.attributes.get(LOWER_BOUND_ATTR)
    if PROVEN_OPTIMAL_ATTR in alloc.attributes:
        bound = fused
    elif isinstance(recorded, IntegerAttr):
        bound = max(bound, recorded.value.data)
    return SpaceFusion(
        SPACE_NAMES[alloc.space],
        alloc.alloc_name.data,
        _ordered(
            FuncPlacement(s.name, s.offset, s.bytes, s.first_stage, s.last_stage) for s in funcs
        ),
        sum(s.bytes for s in funcs),
        fused,
        bound,
        fused == bound,
        size is None,
    )


def _recorded_slices(module: ModuleOp) -> dict[str, list[FuncSlice]]:
    """Each backing's Func slices, by backing name (backing names are unique in a module):
    the `gpu_alloc.layout` record, which `flatten-aliases` writes from the aliases (here on a
    copy when aliases are left, so `module` does not change)."""
    source: Operation = module
    if any(isinstance(op, AliasOp) for op in walk_ops(module)):
        from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
        from xdsl.context import Context

        source = module.clone()
        assert isinstance(source, ModuleOp)
        FlattenAliasesPass().apply(Context(), source)
    return {
        op.alloc_name.data: read_layout(op.attributes[LAYOUT_ATTR])
        for op in walk_ops(source)
        if isinstance(op, AllocOp) and LAYOUT_ATTR in op.attributes
    }
