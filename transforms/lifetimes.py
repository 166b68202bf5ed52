"""Barrier stages and allocation lifetimes of a GPU kernel.

A stage is the block-level code between two `gpu.barrier`s, numbered in program
order; the branches of a block-uniform `scf.if` are walked one after the other, as
Halide does. An allocation lives from the stage of its first use to the stage of its
last use (uses through views count; a `gpu_alloc.dealloc` is a use).

Block-level loops that contain barriers are handled soundly (Halide's bug 7.1):
an allocation made outside such a loop and used inside it lives for the whole loop,
since a later iteration may read what an earlier one wrote; an allocation made
inside the loop body may only be reused within one iteration when a barrier closes
the loop's back edge, otherwise it also lives for the whole loop.

When the barrier structure is not intact (a barrier under thread-dependent control
flow, a barrier inside an op the analysis does not understand, a multi-block kernel
body with barriers), `StageMap.intact` is False with the reason, and every
allocation lives for the whole kernel: no reuse, never a guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_alloc.dialect import DeallocOp
from gpu_alloc.transforms.kernel_ir import (
    VIEW_OPS,
    ThreadDependence,
    contains_barrier,
    memref_users,
)
from xdsl.dialects import func, gpu, memref, scf
from xdsl.ir import Block, Operation, SSAValue

KNOWN_ACCESS_OPS: tuple[type[Operation], ...] = (
    memref.LoadOp,
    memref.StoreOp,
    memref.DimOp,
    memref.CopyOp,
    memref.AtomicRMWOp,
    DeallocOp,
    *VIEW_OPS,
)
"""Uses whose effect on memory ends with the op itself."""


@dataclass(frozen=True)
class Lifetime:
    """A closed interval of barrier stages."""

    first: int
    last: int

    def overlaps(self, other: Lifetime) -> bool:
        return self.first <= other.last and other.first <= self.last

    def union(self, other: Lifetime) -> Lifetime:
        return Lifetime(min(self.first, other.first), max(self.last, other.last))


@dataclass(frozen=True)
class BarrierLoop:
    """A block-level `scf.for` with barriers inside, and the stages it spans."""

    op: scf.ForOp
    first: int
    last: int
    barrier_on_back_edge: bool


@dataclass
class StageMap:
    """The barrier stage of every op of one kernel."""

    stage_of: dict[Operation, int] = field(default_factory=dict[Operation, int])
    loops: list[BarrierLoop] = field(default_factory=list[BarrierLoop])
    last_stage: int = 0
    not_intact_reason: str | None = None

    @property
    def intact(self) -> bool:
        return self.not_intact_reason is None

    def whole_kernel(self) -> Lifetime:
        return Lifetime(0, self.last_stage)


class _StageWalker:
    def __init__(self, kernel: gpu.FuncOp | func.FuncOp):
        self.kernel = kernel
        self.depends_on_thread = ThreadDependence(kernel)
        self.map = StageMap()
        self.stage = 0

    def fail(self, reason: str) -> None:
        if self.map.not_intact_reason is None:
            self.map.not_intact_reason = reason

    def walk_block(self, block: Block) -> None:
        for op in block.ops:
            self.walk_op(op)

    def record_nested(self, op: Operation) -> None:
        for nested in op.walk():
            self.map.stage_of[nested] = self.stage

    def walk_op(self, op: Operation) -> None:
        self.map.stage_of[op] = self.stage
        if isinstance(op, gpu.BarrierOp):
            self.stage += 1
            return
        if not op.regions or not contains_barrier(op):
            self.record_nested(op)
            return
        if isinstance(op, scf.ForOp):
            if any(self.depends_on_thread(v) for v in (op.lb, op.ub, op.step)):
                self.fail("a gpu.barrier is inside an scf.for with thread-dependent bounds")
                self.record_nested(op)
                return
            first = self.stage
            body = op.body.block
            self.walk_block(body)
            body_ops = [o for o in body.ops if not isinstance(o, scf.YieldOp)]
            ends_with_barrier = bool(body_ops) and isinstance(body_ops[-1], gpu.BarrierOp)
            back_edge = ends_with_barrier or (
                bool(body_ops) and isinstance(body_ops[0], gpu.BarrierOp)
            )
            # A trailing barrier separates the loop's last stage from the code after it.
            last = max(first, self.stage - 1) if ends_with_barrier else self.stage
            self.map.loops.append(BarrierLoop(op, first, last, back_edge))
            return
        if isinstance(op, scf.IfOp):
            if self.depends_on_thread(op.cond):
                self.fail("a gpu.barrier is under thread-dependent control flow (scf.if)")
                self.record_nested(op)
                return
            for region in op.regions:
                for block in region.blocks:
                    self.walk_block(block)
            return
        self.fail(f"a gpu.barrier is inside '{op.name}', which the analysis does not understand")
        self.record_nested(op)


def stage_map(kernel: gpu.FuncOp | func.FuncOp) -> StageMap:
    """Number the barrier stages of `kernel`."""
    walker = _StageWalker(kernel)
    blocks = kernel.body.blocks
    if len(blocks) > 1 and contains_barrier(kernel):
        walker.fail("the kernel body has several blocks (unstructured control flow)")
    for block in blocks:
        walker.walk_block(block)
    walker.map.last_stage = walker.stage
    return walker.map


def lifetime(alloc_op: Operation, value: SSAValue, stages: StageMap) -> Lifetime:
    """The stages during which the allocation `value` made by `alloc_op` is live."""
    if not stages.intact:
        return stages.whole_kernel()
    span: Lifetime | None = None
    for user in memref_users(value):
        if not isinstance(user, KNOWN_ACCESS_OPS):
            # The memref escapes (a call, a yield, an op we do not model): its
            # contents may be used at any time.
            return stages.whole_kernel()
        stage = stages.stage_of.get(user)
        if stage is None:
            return stages.whole_kernel()
        use = Lifetime(stage, stage)
        span = use if span is None else span.union(use)
        for loop in stages.loops:
            if loop.op.is_ancestor(user) and (
                not loop.op.is_ancestor(alloc_op) or not loop.barrier_on_back_edge
            ):
                span = span.union(Lifetime(loop.first, loop.last))
    if span is None:
        stage = stages.stage_of.get(alloc_op, 0)
        return Lifetime(stage, stage)
    return span
