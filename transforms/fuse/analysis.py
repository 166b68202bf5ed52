"""The analysis and plan half of `fuse-gpu-allocs`: every diagnostic, no IR change.

`plan_kernel` reads one kernel (any block-level code) and decides everything the
rewrite will do: which allocations are Funcs (and which same-name copies share a slot),
the layout of each memory space, the loops private sizes are evaluated at the last trip
of. `check_shared_limit` checks a plan, with the plans of the functions its kernel calls,
against `max-shared-bytes`; `name_plan` then picks the names of new backings and renamed
private allocations. Every user error is raised by these, so the rewrite
(`fuse_gpu_allocs`) runs only on kernels that will fuse completely and a failed pass
leaves the module as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

from gpu_alloc.dialect import AllocOp, MemorySpace
from gpu_alloc.dialect.ops import SPACE_WORDS
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.packing import PackingError
from gpu_alloc.transforms.barrier_gaps import Gap
from gpu_alloc.transforms.block_level_code import BlockLevelCode as Kernel
from gpu_alloc.transforms.block_level_code import kernel_allocs
from gpu_alloc.transforms.block_sizes import bounded_byte_size, size_slice
from gpu_alloc.transforms.fuse.plan import Slot, SpacePlan, plan_space
from gpu_alloc.transforms.fuse.report import FuncRow, KernelReport
from gpu_alloc.transforms.fuse.trip_bounds import is_non_decreasing
from gpu_alloc.transforms.kernel_ir import (
    ThreadDependence,
    enclosing_ops,
    is_thread_dependent_control,
    kernel_name,
    next_power_of_two,
    why_thread_dependent,
)
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap, lifetime, stage_map
from gpu_alloc.transforms.loop_allocs import check_hoistable
from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation

BACKING_NAMES = {MemorySpace.SHARED: "shared_alloc", MemorySpace.GLOBAL: "global_alloc"}


@dataclass
class Func:
    """One block-level allocation of a kernel (or several same-name copies)."""

    ops: list[AllocOp]
    lifetime: Lifetime
    static_bytes: int | None
    alignment: int
    natural_alignment: int = 1
    """What the allocation alone is aligned to (its element, its `alignment`), without
    the pass's `alignment` option: the unfused kernel's alignment of it."""

    @property
    def name(self) -> str:
        return self.ops[0].alloc_name.data

    @property
    def space(self) -> int:
        return self.ops[0].space


@dataclass(frozen=True)
class SpaceLayout:
    """The planned backing of one memory space, or (backing None) a lone Func kept."""

    space: MemorySpace
    funcs: list[Func]
    plan: SpacePlan
    backing: str | None
    """The backing's name ("" until `name_plan` picks it); None for a lone Func kept."""


@dataclass(frozen=True)
class PrivateAlloc:
    alloc: AllocOp
    new_name: str | None
    """The name it gets (a block-level Func has its name), or None to keep it."""
    last_trip_loops: tuple[scf.ForOp, ...]
    """Enclosing loops, innermost first, whose last trip its sizes are taken at."""


@dataclass
class KernelPlan:
    kernel: Kernel
    allocs: list[AllocOp]
    """Every non-backing allocation of the kernel, in program order."""
    private: list[PrivateAlloc]
    spaces: list[SpaceLayout]
    report: KernelReport

    def shared_bytes(self) -> int:
        """The static bytes of shared memory the kernel's own Funcs take once fused."""
        return sum(s.plan.static_bytes for s in self.spaces if s.space == MemorySpace.SHARED)


@dataclass(frozen=True)
class FuseOptions:
    alignment: int
    max_shared_bytes: int
    time_limit: float | None
    budget: int | None = None
    static_shared_limit: int | None = None
    """The chip's target's limit on static shared arrays per kernel (NVIDIA's 48 KiB);
    None where there is none (AMD, SPIR-V)."""


def plan_kernel(
    kernel: Kernel,
    options: FuseOptions,
    depends_on_thread: ThreadDependence | None = None,
    hypothetical: Iterable[Gap] = (),
) -> KernelPlan:
    """Everything `fuse-gpu-allocs` will do to `kernel`; raises on any user error.
    `depends_on_thread`: the kernel's thread dependence (`CallGraph.thread_dependence`);
    `hypothetical`: positions planned as if a `gpu.barrier` stood there (the IR is not
    changed; `reuse_barriers` measures its plans so)."""
    entry = kernel.body.blocks[0]
    allocs = kernel_allocs(kernel)
    block_level = [a for a in allocs if a.space != MemorySpace.PRIVATE]
    depends_on_thread = depends_on_thread or ThreadDependence(kernel)
    for alloc in block_level:
        _check_block_level(kernel, alloc, depends_on_thread)
        size_slice(alloc, entry)
    stages = stage_map(kernel, depends_on_thread, hypothetical)
    for alloc in block_level:
        check_hoistable(kernel, alloc, stages)
    funcs = _merge_same_names(block_level, stages, options.alignment)
    private = [_plan_private(kernel, a) for a in allocs if a.space == MemorySpace.PRIVATE]
    report = KernelReport(
        kernel=kernel_name(kernel),
        stages=stages.last_stage + 1,
        not_intact_reason=stages.not_intact_reason,
    )
    spaces: list[SpaceLayout] = []
    for space in (MemorySpace.SHARED, MemorySpace.GLOBAL):
        space_funcs = [f for f in funcs if f.space == space]
        if space_funcs:
            spaces.append(_plan_space(space, space_funcs, options))
    return KernelPlan(kernel, allocs, private, spaces, report)


def name_plan(plan: KernelPlan, unique_name: Callable[[str], str]) -> KernelPlan:
    """`plan` with names for its new backings (`shared_alloc`, `global_alloc`) and for
    private allocations whose name a block-level Func has (`<name>_reg`), made unique by
    `unique_name`, and with its report filled in."""
    spaces = [
        s if s.backing is None else replace(s, backing=unique_name(BACKING_NAMES[s.space]))
        for s in plan.spaces
    ]
    block_names = {a.alloc_name.data for a in plan.allocs if a.space != MemorySpace.PRIVATE}
    private = [
        replace(p, new_name=unique_name(f"{p.alloc.alloc_name.data}_reg"))
        if p.alloc.alloc_name.data in block_names
        else p
        for p in plan.private
    ]
    report = replace(plan.report, spaces=[])
    for layout in spaces:
        rows = [
            FuncRow(f.name, layout.space, f.static_bytes, layout.plan.static_offsets[k], f.lifetime)
            for k, f in enumerate(layout.funcs)
        ]
        report.add_space(layout.space, layout.backing or layout.funcs[0].name, layout.plan, rows)
    return KernelPlan(plan.kernel, plan.allocs, private, spaces, report)


def _check_block_level(kernel: Kernel, alloc: AllocOp, depends_on_thread: ThreadDependence) -> None:
    for parent in enclosing_ops(alloc, stop=kernel):
        if is_thread_dependent_control(parent, depends_on_thread):
            raise GpuAllocPassError(
                f"{SPACE_WORDS[alloc.space]} allocation '{alloc.alloc_name.data}' is under "
                f"thread-dependent control flow ({why_thread_dependent(parent)}); block-level "
                "allocations must be made by every thread of the block",
                alloc,
            )


def _merge_same_names(allocs: Sequence[AllocOp], stages: StageMap, alignment: int) -> list[Func]:
    """One Func per allocation, except that same-name allocations of one space with
    static sizes and disjoint lifetimes (unrolled copies) share one."""
    funcs: list[Func] = []
    by_key: dict[tuple[int, str], list[Func]] = {}
    for alloc in allocs:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        elem = element_bytes(memref_type.get_element_type())
        if elem is None:
            raise GpuAllocPassError(
                f"allocation '{alloc.alloc_name.data}' has element type "
                f"{memref_type.get_element_type()}, whose size in bytes is unknown",
                alloc,
            )
        func = Func(
            [alloc],
            lifetime(alloc, alloc.memref, stages),
            bounded_byte_size(alloc),  # a dynamic size bounded by affine.min is static
            max(
                next_power_of_two(elem),
                alignment,
                alloc.alignment.value.data if alloc.alignment else 1,
            ),
            max(next_power_of_two(elem), alloc.alignment.value.data if alloc.alignment else 1),
        )
        same = by_key.setdefault((func.space, func.name), [])
        partner = next(
            (
                f
                for f in same
                if f.static_bytes is not None
                and func.static_bytes is not None
                and not f.lifetime.overlaps(func.lifetime)
            ),
            None,
        )
        if partner is None:
            same.append(func)
            funcs.append(func)
            continue
        partner.ops.append(alloc)
        partner.lifetime = partner.lifetime.union(func.lifetime)
        partner.static_bytes = max(partner.static_bytes or 0, func.static_bytes or 0)
        partner.alignment = max(partner.alignment, func.alignment)
        partner.natural_alignment = max(partner.natural_alignment, func.natural_alignment)
    return funcs


def _plan_private(kernel: Kernel, alloc: AllocOp) -> PrivateAlloc:
    """A private allocation is hoisted to the kernel entry, each size taken at the
    last trip of every enclosing loop; the size must grow with each loop's variable."""
    loops = tuple(p for p in enclosing_ops(alloc, stop=kernel) if isinstance(p, scf.ForOp))
    for loop in loops:
        if not all(is_non_decreasing(size, loop) for size in alloc.dynamic_sizes):
            raise GpuAllocPassError(
                f"the size of private allocation '{alloc.alloc_name.data}' does not "
                "grow monotonically with the enclosing loop's induction variable; "
                "it cannot be sized for the largest trip",
                alloc,
            )
    size_slice(alloc, kernel.body.blocks[0], loops)
    return PrivateAlloc(alloc, None, loops)


def _plan_space(space: MemorySpace, funcs: list[Func], options: FuseOptions) -> SpaceLayout:
    try:
        plan = plan_space(
            [Slot(f.lifetime, f.static_bytes, f.alignment, f.natural_alignment) for f in funcs],
            time_limit=options.time_limit,
            budget=options.budget,
        )
    except PackingError as error:  # sizes no backing can hold (the packer's 2^62)
        largest = max(funcs, key=lambda f: f.static_bytes or 0)
        raise GpuAllocPassError(
            f"the {'heap' if space == MemorySpace.GLOBAL else 'shared'} allocations of this "
            f"kernel cannot be laid out in one backing: {error}; largest: '{largest.name}' "
            f"({largest.static_bytes} B)",
            largest.ops[0],
        ) from None
    keep_as_is = len(funcs) == 1 and len(funcs[0].ops) == 1
    return SpaceLayout(space, funcs, plan, None if keep_as_is else "")


def check_shared_limit(
    plan: KernelPlan,
    limit: int,
    callees: Sequence[KernelPlan] = (),
    static_limit: int | None = None,
    global_bytes: int = 0,
    limit_source: str = "max-shared-bytes",
) -> None:
    """Raises where the kernel's shared memory would not fit, before the target's tools or
    the launch say so: its own static bytes with those of the functions it calls
    (`callees`: their plans) over `limit`; or its static shared arrays over the target's
    `static_limit` (NVIDIA's 48 KiB, which ptxas enforces; each callee's bytes are a
    static array of their own, and so are the kernel's unless its backing is dynamic or
    above that limit, when it goes to dynamic shared memory); a device function in a
    `gpu.module` is a static array too. `global_bytes`: the shared `memref.global`s the
    code and its callees read that stay as they are (static arrays as well)."""
    own = plan.shared_bytes()
    total = own + sum(c.shared_bytes() for c in callees) + global_bytes
    device = isinstance(plan.kernel, func.FuncOp) and _in_gpu_module(plan.kernel)
    dynamic = any(s.plan.dynamic_order for s in plan.spaces if s.space == MemorySpace.SHARED)
    static = sum(c.shared_bytes() for c in callees) + global_bytes
    if device or (not dynamic and (static_limit is None or own <= static_limit)):
        static += own
    what = f"kernel '{kernel_name(plan.kernel)}' needs {total} bytes of shared memory"
    if (callees or global_bytes) and total > own:
        parts = [f"'{kernel_name(c.kernel)}' {c.shared_bytes()} B" for c in callees]
        parts = [p for p, c in zip(parts, callees, strict=True) if c.shared_bytes()]
        parts += [f"workgroup memref.globals {global_bytes} B"] if global_bytes else []
        what += f" with the functions it calls ({own} B its own; {', '.join(parts)})"
    if total > limit:
        reason = f"over the limit of {limit} ({limit_source})"
    elif static_limit is not None and static > static_limit and (device or static > own):
        reason = (
            f"{static} B of it in static .shared arrays (a device function's shared memory "
            f"is one), over the target's static limit of {static_limit} B per kernel"
        )
    else:
        return
    funcs = [f for s in plan.spaces if s.space == MemorySpace.SHARED for f in s.funcs]
    largest = sorted(
        (f for f in funcs if f.static_bytes is not None), key=lambda f: -(f.static_bytes or 0)
    )
    names = ", ".join(f"'{f.name}' ({f.static_bytes} B)" for f in largest[:3])
    raise GpuAllocPassError(
        f"{what}, {reason}" + (f"; largest: {names}" if names else ""), plan.kernel
    )


def _in_gpu_module(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.ModuleOp):
        parent = parent.parent_op()
    return parent is not None
