"""Barrier stages and allocation lifetimes of a GPU kernel.

Stages are numbered by the `gpu.barrier`s of the block-level (block-uniform) code, in
program order. Because a barrier may sit where not every execution reaches it, each
op gets a stage *interval* `[lo, hi]` (stored half-open, `Lifetime(lo, hi + 1)`): lo
is the fewest and hi the most barriers any path from the kernel entry crosses before
the op (a loop body counted once). Two ops whose intervals are disjoint have a barrier
between them on *every* path; ops whose intervals overlap may meet in one barrier
interval. The walk keeps the interval of the current program point:

- an op without barriers inside gets the current interval, and so does everything
  nested in it;
- `gpu.barrier` moves the point to the single stage after the highest one so far;
- a block-uniform `scf.if` walks each branch from the current interval (an absent
  else is an empty branch) and continues with the hull of the branches' exits: a
  barrier in one branch only does not separate the code before the `if` from the
  code after it, a barrier in both branches does;
- a block-uniform `scf.for` walks its body once; if the loop provably runs at least
  once (constant bounds with lb < ub) the code after it continues from the body's
  exit, otherwise from the hull of the body's exit and the interval before the loop
  (zero trips cross none of its barriers);
- a block-uniform `scf.while` walks its "before" region (which always runs) and
  then its "after" region (which may not); the code after the loop continues from
  the "before" region's exit widened by everything the loop may have crossed.

Stage numbers only grow along the walk, so code after a construct never gets a
stage lower than one used inside it.

An allocation lives over the hull of the intervals of its uses (each access, view,
free; through views, selects and `scf.if` results — see `memory_effects`). Loops
with barriers are handled soundly (Halide's bug 7.1): an allocation made outside such
a loop and used inside it lives for the whole loop, since a later iteration may read
what an earlier one wrote; an allocation made inside an `scf.for` body may only be
reused within one iteration when a barrier that every iteration executes (the body's
first or last op) closes the back edge, otherwise it also lives for the whole loop;
inside an `scf.while` it always lives for the whole loop. Two allocations may share
bytes only if their lifetimes are disjoint.

When the barrier structure is not intact (a barrier under thread-dependent control
flow, a barrier inside an op the analysis does not understand, a multi-block kernel
body with barriers), `StageMap.intact` is False with the reason, and every
allocation lives for the whole kernel: no reuse, never a guess. So does an
allocation that escapes (a call, an unknown op, a loop-carried memref).

Every walk is iterative: nesting depth is not limited by Python's recursion limit.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable
from dataclasses import dataclass, field

from gpu_alloc.dialect.mappings import loop_mapping
from gpu_alloc.transforms.barrier_gaps import Gap
from gpu_alloc.transforms.barrier_ops import is_barrier
from gpu_alloc.transforms.iv_conditions import constant_int
from gpu_alloc.transforms.kernel_ir import (
    Kernel,
    ThreadDependence,
    is_thread_dependent_control,
    ops_with_barriers,
    walk_ops,
)
from gpu_alloc.transforms.memory_effects import UseKind
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects import gpu, scf
from xdsl.ir import Block, Operation, SSAValue


@dataclass(frozen=True)
class Lifetime:
    """A half-open interval `[start, end)` of barrier stages (`PackItem`'s convention)."""

    start: int
    end: int

    def overlaps(self, other: Lifetime) -> bool:
        return self.start < other.end and other.start < self.end

    def union(self, other: Lifetime) -> Lifetime:
        return Lifetime(min(self.start, other.start), max(self.end, other.end))


@dataclass(frozen=True)
class BarrierLoop:
    """A block-level loop with barriers inside, and the stages its body spans."""

    op: Operation
    span: Lifetime
    barrier_on_back_edge: bool
    """Every iteration ends (or starts) with a barrier: a buffer made in the body can be
    reused within one iteration."""


@dataclass
class StageMap:
    """The barrier-stage interval of every op of one kernel."""

    stage_of: dict[Operation, Lifetime] = field(default_factory=dict[Operation, Lifetime])
    loops: dict[Operation, BarrierLoop] = field(default_factory=dict[Operation, BarrierLoop])
    last_stage: int = 0
    """The highest stage number used."""
    not_intact_reason: str | None = None
    hypothetical: frozenset[Gap] = frozenset()
    """The barriers the map supposes at positions where the IR has none (a planner's
    what-if: `fuse.reuse_barriers` measures a plan before it changes any IR)."""

    @property
    def intact(self) -> bool:
        return self.not_intact_reason is None

    def whole_kernel(self) -> Lifetime:
        return Lifetime(0, self.last_stage + 1)


_Walk = Generator[tuple[Block, Lifetime], Lifetime, Lifetime]
"""A walk of one block: yields (nested block, entry interval) to have it walked, is
sent that block's exit interval, and returns its own exit interval."""


def _runs_at_least_once(loop: scf.ForOp) -> bool:
    lb, ub = constant_int(loop.lb), constant_int(loop.ub)
    return lb is not None and ub is not None and lb < ub


def _barrier_on_back_edge(body: Block, hypothetical: frozenset[Gap]) -> bool:
    """The body starts or ends with a barrier (real, or one of `hypothetical`)."""
    ops = [o for o in body.ops if not isinstance(o, scf.YieldOp)]
    if Gap(body, None) in hypothetical or (ops and Gap(body, ops[-1]) in hypothetical):
        return True
    return bool(ops) and (is_barrier(ops[0]) or is_barrier(ops[-1]))


class _StageWalker:
    def __init__(
        self,
        kernel: Kernel,
        depends_on_thread: ThreadDependence | None,
        hypothetical: frozenset[Gap],
    ):
        self.depends_on_thread = depends_on_thread or ThreadDependence(kernel)
        self.hypothetical = hypothetical
        self.with_barriers = ops_with_barriers(kernel, (g.block for g in hypothetical))
        self.map = StageMap(hypothetical=hypothetical)
        self.high = 0
        """The highest stage number in an interval given to an op so far."""

    def fail(self, reason: str) -> None:
        if self.map.not_intact_reason is None:
            self.map.not_intact_reason = reason

    def run(self, block: Block, entry: Lifetime) -> Lifetime:
        """Walks `block` and everything nested in it, with an explicit stack."""
        stack: list[_Walk] = [self.walk_block(block, entry)]
        sent: Lifetime | None = None
        while stack:
            try:
                request = stack[-1].send(sent) if sent is not None else next(stack[-1])
            except StopIteration as done:
                stack.pop()
                sent = done.value
                continue
            stack.append(self.walk_block(*request))
            sent = None
        assert sent is not None
        return sent

    def walk_block(self, block: Block, current: Lifetime) -> _Walk:
        if self.hypothetical and Gap(block, None) in self.hypothetical:
            current = Lifetime(current.end, current.end + 1)
        for op in block.ops:
            current = yield from self.walk_op(op, current)
            if self.hypothetical and Gap(block, op) in self.hypothetical:
                current = Lifetime(current.end, current.end + 1)
        return current

    def assign(self, op: Operation, current: Lifetime) -> None:
        self.map.stage_of[op] = current
        if not isinstance(op, scf.YieldOp | scf.ConditionOp):
            # A terminator after a loop body's trailing barrier touches no memory:
            # that barrier still separates the body from what follows.
            self.high = max(self.high, current.end - 1)

    def record_nested(self, op: Operation, current: Lifetime) -> None:
        for nested in walk_ops(op):
            self.assign(nested, current)

    def walk_op(self, op: Operation, current: Lifetime) -> _Walk:
        self.assign(op, current)
        if is_barrier(op):
            return Lifetime(current.end, current.end + 1)
        if op not in self.with_barriers or isinstance(op, gpu.LaunchOp):
            # A launch in a function is code of its own: its barriers are its block's.
            self.record_nested(op, current)
            return current
        if is_thread_dependent_control(op, self.depends_on_thread):
            self.fail(self.not_understood(op))
            self.record_nested(op, current)
            return current
        if isinstance(op, scf.IfOp):
            then_exit = yield (op.true_region.block, current)
            else_exit = current
            if op.false_region.blocks:
                else_exit = yield (op.false_region.block, current)
            return then_exit.union(else_exit)
        if isinstance(op, scf.ForOp):
            exit_ = yield from self.walk_loop(op, [(op.body.block, None)], current)
            return exit_ if _runs_at_least_once(op) else current.union(exit_)
        if loop_mapping(op) is not None:  # a block-uniform parallel loop: a loop per block
            exit_ = yield from self.walk_loop(op, [(op.regions[0].blocks[0], None)], current)
            return current.union(exit_)
        assert isinstance(op, scf.WhileOp)
        regions = [(op.before_region.blocks[0], None), (op.after_region.blocks[0], 0)]
        return (yield from self.walk_loop(op, regions, current))

    def walk_loop(
        self, op: Operation, regions: list[tuple[Block, int | None]], current: Lifetime
    ) -> _Walk:
        """Walks a loop's regions in order, each from the exit of the region its int
        names (None: from the loop's entry); records the loop; returns the hull of
        the first region's exit and every stage the loop may cross."""
        outer_high, self.high = self.high, current.end - 1  # the span of this loop's ops
        exits: list[Lifetime] = []
        for block, entry in regions:
            exits.append((yield (block, current if entry is None else exits[entry])))
        span = Lifetime(current.start, self.high + 1)
        on_back_edge = isinstance(op, scf.ForOp) and _barrier_on_back_edge(
            op.body.block, self.hypothetical
        )
        self.map.loops[op] = BarrierLoop(op, span, on_back_edge)
        self.high = max(outer_high, self.high)
        if len(exits) == 1:
            return exits[0]
        return Lifetime(exits[0].start, max(e.end for e in exits))

    def not_understood(self, op: Operation) -> str:
        if isinstance(op, scf.IfOp | scf.ForOp | scf.WhileOp):
            return f"a gpu.barrier is under thread-dependent control flow ({op.name})"
        return f"a gpu.barrier is inside '{op.name}', which the analysis does not understand"


def stage_map(
    kernel: Kernel,
    depends_on_thread: ThreadDependence | None = None,
    hypothetical: Iterable[Gap] = (),
) -> StageMap:
    """The barrier-stage interval of every op of `kernel` (`depends_on_thread`: its
    thread dependence, if already solved), as if a `gpu.barrier` stood at each of the
    positions `hypothetical` too. The IR is not changed."""
    walker = _StageWalker(kernel, depends_on_thread, frozenset(hypothetical))
    blocks = kernel.body.blocks
    if len(blocks) > 1 and kernel in walker.with_barriers:
        walker.fail("the kernel body has several blocks (unstructured control flow)")
    current = Lifetime(0, 1)
    for block in blocks:
        current = walker.run(block, current)
    walker.map.last_stage = max(walker.high, current.end - 1)
    return walker.map


def _enclosing_loops(op: Operation, stages: StageMap) -> list[BarrierLoop]:
    loops: list[BarrierLoop] = []
    parent = op.parent_op()
    while parent is not None:
        if parent in stages.loops:
            loops.append(stages.loops[parent])
        parent = parent.parent_op()
    return loops


def lifetime(alloc_op: Operation, value: SSAValue, stages: StageMap) -> Lifetime:
    """The stages during which the allocation `value` made by `alloc_op` is live."""
    if not stages.intact:
        return stages.whole_kernel()
    span: Lifetime | None = None
    for access in memref_accesses(value):
        if access.kind in (UseKind.ESCAPE, UseKind.POINTER, UseKind.ALIAS):
            # Its contents may be used at any time.
            return stages.whole_kernel()
        if access.kind in (UseKind.META, UseKind.VIEW):
            # The shape only, or a new name for the storage: neither touches the
            # contents (the view's own accesses are walked as accesses of `value`).
            continue
        use = stages.stage_of.get(access.op)
        if use is None:
            return stages.whole_kernel()
        span = use if span is None else span.union(use)
        for loop in _enclosing_loops(access.op, stages):
            if not loop.op.is_ancestor(alloc_op) or not loop.barrier_on_back_edge:
                span = span.union(loop.span)
    if span is None:
        return stages.stage_of.get(alloc_op, Lifetime(0, 1))
    return span
