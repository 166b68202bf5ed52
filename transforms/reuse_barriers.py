"""Barrier insertion for reuse: `fuse-gpu-allocs{insert-barriers=never|over-limit|always}`.

Two shared Funcs share bytes only when a barrier separates their accesses on every path
(`lifetimes`). When every access of one precedes every access of the other, a
`gpu.barrier` between them lets them share. Candidate positions are in the kernel's
entry block and in the blocks of `scf.if`/`scf.for`/`scf.while` ops nested in it whose
control is block-uniform (`kernel_ir.is_thread_dependent_control`): every thread of
the block reaches such a barrier the same number of times, so it is always legal;
the only question is whether it buys bytes. The stage analysis decides what a barrier
inside a loop buys: it runs on every iteration, so a Func used before it and one used
after it in the body share bytes only if a barrier also closes the back edge (the
body's first or last op) or the Funcs are made outside the loop and the loop's span
is theirs alone (see docs/lifetimes.md); the planner offers the body's start for that.

The planner measures (`fusion_analysis.plan_kernel` on the kernel with the barriers in
place, no other IR change): it puts a barrier at every candidate, then, in program
order, drops each one that is not needed to keep the backing that small (`always`) or
under `max-shared-bytes` (`over-limit`). So every kept barrier is needed: removing any
one of them would grow the backing (`always`) or break the limit (`over-limit`).

Guarantees: only block-uniform positions, never next to an existing barrier; no
barrier that saves nothing (`always` inserts nothing if all candidates together do
not lower the static shared backing); `over-limit` inserts nothing if the kernel fits
without barriers or does not fit with all of them (the limit error stays); `never`
inserts nothing. Each inserted barrier is reported on stderr with the bytes it buys:
the backing without it (the others kept) and with it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc.dialect import AllocOp, MemorySpace
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.remarks import emit_remark
from gpu_alloc.transforms.fusion_analysis import FuseOptions, plan_kernel
from gpu_alloc.transforms.gpu_buffers import Kernel, fusable_kernels
from gpu_alloc.transforms.kernel_ir import (
    ThreadDependence,
    is_thread_dependent_control,
    kernel_name,
    walk_ops,
)
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

MODES = ("never", "over-limit", "always")


@dataclass(frozen=True)
class Gap:
    """A barrier position: right after `after`, or at the start of `block` (None)."""

    block: Block
    after: Operation | None

    def insert(self) -> gpu.BarrierOp:
        barrier = gpu.BarrierOp()
        if self.after is None:
            Rewriter.insert_op(barrier, InsertPoint.at_start(self.block))
        else:
            Rewriter.insert_op(barrier, InsertPoint.after(self.after))
        return barrier

    def loop_depth(self, kernel: Operation) -> int:
        """How many loops enclose the position: how often a barrier there may run."""
        parent = self.block.parent_op()
        depth = 0
        while parent is not None and parent is not kernel:
            depth += isinstance(parent, scf.ForOp | scf.WhileOp)
            parent = parent.parent_op()
        return depth

    def describe(self, kernel: Operation) -> str:
        parent = self.block.parent_op()
        where = "" if parent is kernel or parent is None else f" in '{parent.name}'"
        if self.after is not None:
            return f"after {_describe(self.after)}{where}"
        return f"at the start of a region{where}"


@dataclass(frozen=True)
class InsertedBarrier:
    kernel: str
    after: str
    """Where the barrier is: `after <op>` (`%result = name` when it has a result) or at
    the start of a region."""
    bytes_before: int
    """The static shared backing without this barrier (every other inserted one kept)."""
    bytes_after: int
    """The static shared backing with every inserted barrier."""
    op: Operation = field(compare=False, repr=False)
    """The inserted `gpu.barrier`."""

    def describe(self) -> str:
        return (
            f"inserted gpu.barrier in '{self.kernel}' {self.after}: shared backing "
            f"{self.bytes_before} -> {self.bytes_after} B ({self.bytes_before - self.bytes_after} B saved)"
        )


def insert_reuse_barriers(module: ModuleOp, options: Any) -> list[InsertedBarrier]:
    """Inserts the barriers `options.insert_barriers` (a `FuseGpuAllocsPass`) asks for;
    returns them in program order, per kernel."""
    mode = options.insert_barriers
    if mode not in MODES:
        raise GpuAllocPassError(
            f"fuse-gpu-allocs: option insert-barriers must be one of {', '.join(MODES)}, "
            f"got '{mode}'"
        )
    if mode == "never":
        return []
    measuring = FuseOptions(options.alignment, 1 << 62, options.time_limit, options.budget)
    limit = None if mode == "always" else options.shared_limit()
    inserted: list[InsertedBarrier] = []
    for kernel in list(fusable_kernels(module)):
        inserted += _Planner(kernel, measuring).run(limit)
    for barrier in inserted:  # located at the op the barrier follows (or its region's op)
        anchor = barrier.op.prev_op or barrier.op.parent_op()
        emit_remark("fuse-gpu-allocs", barrier.describe(), anchor)
    return inserted


def _touches_memory(op: Operation) -> bool:
    """Whether `op` or an op inside it uses or makes a memref (or is a barrier)."""
    return any(
        isinstance(o, gpu.BarrierOp)
        or any(isinstance(v.type, MemRefType) for v in (*o.operands, *o.results))
        for o in walk_ops(op)
    )


def uniform_blocks(kernel: Kernel) -> Iterator[Block]:
    """The kernel's entry block and every block nested in it through block-uniform
    `scf.if`/`scf.for`/`scf.while` ops only, in program order."""
    if len(kernel.body.blocks) != 1:
        return
    depends_on_thread = ThreadDependence(kernel)
    stack = [kernel.body.blocks[0]]
    while stack:
        block = stack.pop()
        yield block
        nested = [
            inner
            for op in block.ops
            if isinstance(op, scf.IfOp | scf.ForOp | scf.WhileOp)
            and not is_thread_dependent_control(op, depends_on_thread)
            for region in op.regions
            for inner in region.blocks
        ]
        stack.extend(reversed(nested))


def candidate_gaps(kernel: Kernel) -> list[Gap]:
    """Every block-uniform barrier position that may change a lifetime, in program order.

    In a block, positions between two memory-touching ops are all alike, so only the one
    right after a memory-touching op is offered; a nested block also offers its start
    (a barrier there closes a loop's back edge). None next to an existing barrier."""
    gaps: list[Gap] = []
    entry = kernel.body.blocks[0] if kernel.body.blocks else None
    for block in uniform_blocks(kernel):
        ops = list(block.ops)
        if not any(_touches_memory(o) for o in ops):
            continue
        if block is not entry and ops and not isinstance(ops[0], gpu.BarrierOp):
            gaps.append(Gap(block, None))
        for op, following in zip(ops, ops[1:], strict=False):
            if (
                _touches_memory(op)
                and not isinstance(op, gpu.BarrierOp)
                and not isinstance(following, gpu.BarrierOp)
                and not (block is entry and following.has_trait(IsTerminator))
            ):
                gaps.append(Gap(block, op))
    return gaps


class _Planner:
    def __init__(self, kernel: Kernel, options: FuseOptions):
        self.kernel, self.options = kernel, options

    def shared_bytes(self, gaps: Sequence[Gap]) -> int | None:
        """The kernel's static shared bytes with a barrier at each of `gaps`."""
        barriers = [gap.insert() for gap in gaps]
        try:
            plan = plan_kernel(self.kernel, self.options, lambda name: name)
        except GpuAllocPassError:
            return None
        finally:
            for barrier in barriers:
                Rewriter.erase_op(barrier)
        return sum(s.plan.static_bytes for s in plan.spaces if s.space == MemorySpace.SHARED)

    def worth_planning(self, limit: int | None) -> bool:
        """At least two shared allocations, and (over-limit) more unfused static bytes
        than the limit: fusing never needs more than the unfused sum."""
        sizes = [
            static_byte_size(op.memref.type) or 0
            for op in walk_ops(self.kernel)
            if isinstance(op, AllocOp) and op.space == MemorySpace.SHARED
        ]
        return len(sizes) > 1 and (limit is None or sum(sizes) > limit)

    def run(self, limit: int | None) -> list[InsertedBarrier]:
        if not self.worth_planning(limit):
            return []
        base = self.shared_bytes([])
        gaps = candidate_gaps(self.kernel)
        if base is None or (limit is not None and base <= limit) or not gaps:
            return []
        best = self.shared_bytes(gaps)
        if best is None or best >= base or (limit is not None and best > limit):
            return []
        target = best if limit is None else limit
        kept = list(gaps)
        # Drop every barrier the target does not need, those inside loops (which run on
        # every iteration) first.
        for gap in sorted(gaps, key=lambda g: -g.loop_depth(self.kernel)):
            rest = [g for g in kept if g is not gap]
            bytes_ = self.shared_bytes(rest)
            if bytes_ is not None and bytes_ <= target:
                kept = rest
        return self.keep(kept, limit)

    def keep(self, kept: list[Gap], limit: int | None) -> list[InsertedBarrier]:
        """Inserts `kept`, after dropping any barrier that buys nothing in their company
        (the packer is a heuristic: fewer barriers need not mean more bytes)."""
        while True:
            final = self.shared_bytes(kept)
            if final is None or not kept:
                return []
            without = [self.shared_bytes([g for g in kept if g is not gap]) for gap in kept]
            useless = [
                gap
                for gap, before in zip(kept, without, strict=True)
                if before is not None and before <= (final if limit is None else limit)
            ]
            if not useless:
                break
            kept = [g for g in kept if g is not useless[-1]]
        name = kernel_name(self.kernel)
        return [
            InsertedBarrier(name, gap.describe(self.kernel), before or final, final, gap.insert())
            for gap, before in zip(kept, without, strict=True)
        ]


def _describe(op: Operation) -> str:
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint} = {op.name}"
    return op.name
