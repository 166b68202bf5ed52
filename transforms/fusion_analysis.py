"""The analysis and plan half of `fuse-gpu-allocs`: every diagnostic, no IR change.

`plan_kernel` reads one kernel and decides everything the rewrite will do: which
allocations are Funcs (and which same-name copies share a slot), the layout of each
memory space, the names of new backings and renamed private allocations, the loops
private sizes are evaluated at the last trip of. Every user error is raised here, so
the rewrite (`fuse_gpu_allocs`) runs only on kernels that will fuse completely and a
failed pass leaves the module as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import AllocOp, MemorySpace, is_backing
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.transforms.block_sizes import bounded_byte_size, size_slice
from gpu_alloc.transforms.fusion_plan import Slot, SpacePlan, plan_space
from gpu_alloc.transforms.fusion_report import FuncRow, KernelReport
from gpu_alloc.transforms.gpu_buffers import Kernel, owned_by
from gpu_alloc.transforms.kernel_ir import (
    ThreadDependence,
    enclosing_ops,
    is_thread_dependent_control,
    kernel_name,
    next_power_of_two,
    walk_ops,
)
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap, lifetime, stage_map
from gpu_alloc.transforms.trip_bounds import is_non_decreasing
from xdsl.dialects import scf
from xdsl.dialects.builtin import MemRefType

BACKING_NAMES = {MemorySpace.SHARED: "shared_alloc", MemorySpace.GLOBAL: "global_alloc"}
SPACE_WORDS = {1: "heap", 3: "shared", 5: "private"}


@dataclass
class Func:
    """One block-level allocation of a kernel (or several same-name copies)."""

    ops: list[AllocOp]
    lifetime: Lifetime
    static_bytes: int | None
    alignment: int

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


@dataclass(frozen=True)
class FuseOptions:
    alignment: int
    max_shared_bytes: int
    time_limit: float | None
    budget: int | None = None


def plan_kernel(
    kernel: Kernel, options: FuseOptions, unique_name: Callable[[str], str]
) -> KernelPlan:
    """Everything `fuse-gpu-allocs` will do to `kernel`; raises on any user error."""
    entry = kernel.body.blocks[0]
    allocs = [
        o
        for o in walk_ops(kernel)
        if isinstance(o, AllocOp) and not is_backing(o) and owned_by(o, kernel)
    ]
    block_level = [a for a in allocs if a.space != MemorySpace.PRIVATE]
    depends_on_thread = ThreadDependence(kernel)
    for alloc in block_level:
        _check_block_level(kernel, alloc, depends_on_thread)
        size_slice(alloc, entry)
    stages = stage_map(kernel)
    funcs = _merge_same_names(block_level, stages, options.alignment)
    block_names = {a.alloc_name.data for a in block_level}
    private = [
        _plan_private(kernel, alloc, block_names, unique_name)
        for alloc in allocs
        if alloc.space == MemorySpace.PRIVATE
    ]
    report = KernelReport(
        kernel=kernel_name(kernel),
        stages=stages.last_stage + 1,
        not_intact_reason=stages.not_intact_reason,
    )
    spaces: list[SpaceLayout] = []
    for space in (MemorySpace.SHARED, MemorySpace.GLOBAL):
        space_funcs = [f for f in funcs if f.space == space]
        if space_funcs:
            spaces.append(_plan_space(kernel, space, space_funcs, options, unique_name, report))
    return KernelPlan(kernel, allocs, private, spaces, report)


def _check_block_level(kernel: Kernel, alloc: AllocOp, depends_on_thread: ThreadDependence) -> None:
    for parent in enclosing_ops(alloc, stop=kernel):
        if is_thread_dependent_control(parent, depends_on_thread):
            raise GpuAllocPassError(
                f"{SPACE_WORDS[alloc.space]} allocation '{alloc.alloc_name.data}' is under "
                f"thread-dependent control flow ('{parent.name}'); block-level "
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
    return funcs


def _plan_private(
    kernel: Kernel,
    alloc: AllocOp,
    block_names: set[str],
    unique_name: Callable[[str], str],
) -> PrivateAlloc:
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
    name = alloc.alloc_name.data
    new_name = unique_name(f"{name}_reg") if name in block_names else None
    return PrivateAlloc(alloc, new_name, loops)


def _plan_space(
    kernel: Kernel,
    space: MemorySpace,
    funcs: list[Func],
    options: FuseOptions,
    unique_name: Callable[[str], str],
    report: KernelReport,
) -> SpaceLayout:
    plan = plan_space(
        [Slot(f.lifetime, f.static_bytes, f.alignment) for f in funcs],
        time_limit=options.time_limit,
        budget=options.budget,
    )
    if space == MemorySpace.SHARED:
        _check_shared_limit(kernel, funcs, plan, options.max_shared_bytes)
    keep_as_is = len(funcs) == 1 and len(funcs[0].ops) == 1
    backing = None if keep_as_is else unique_name(BACKING_NAMES[space])
    rows = [
        FuncRow(f.name, space, f.static_bytes, plan.static_offsets[k], f.lifetime)
        for k, f in enumerate(funcs)
    ]
    report.add_space(space, backing or funcs[0].name, plan, rows)
    return SpaceLayout(space, funcs, plan, backing)


def _check_shared_limit(kernel: Kernel, funcs: Sequence[Func], plan: SpacePlan, limit: int) -> None:
    if plan.static_bytes <= limit:
        return
    largest = sorted(
        (f for f in funcs if f.static_bytes is not None), key=lambda f: -(f.static_bytes or 0)
    )[:3]
    names = ", ".join(f"'{f.name}' ({f.static_bytes} B)" for f in largest)
    raise GpuAllocPassError(
        f"kernel '{kernel_name(kernel)}' needs {plan.static_bytes} bytes of shared "
        f"memory, over the limit of {limit} (max-shared-bytes); largest: {names}",
        kernel,
    )
