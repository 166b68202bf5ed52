"""Block-level allocations made in a loop body: when fusion may hoist them to the entry.

`fuse-gpu-allocs` moves every shared and heap Func to the code's entry. An allocation
made in the body of an `scf.for` or `scf.while` is a new buffer on every iteration;
hoisted, the iterations share one, and the accesses of one iteration meet those of the
next in one barrier interval unless a barrier separates them. Hoisting adds no race
when, for the loops around the allocation, innermost first:

1. a barrier closes the loop's back edge for the Func: on every path from each of its
   accesses to the end of the body, or on every path from the start of the body to each
   of its accesses, there is a `gpu.barrier` (for an `scf.while`, also: on every path
   through the region the Func is not in). Such a loop closes every loop around it too:
   each path from one iteration's access to another's leaves through its body's end; or
2. the loop holds no barrier nor possible barrier (`barrier_ops`: a call, an unknown op) and the Func's accesses
   in it touch the same bytes from the same threads on every iteration (their indices,
   masks, the views they go through and the conditions and inner loop bounds around them
   do not change from one iteration to the next). Two iterations' accesses in one
   barrier interval are then accesses that one iteration makes in one interval: if they
   raced, the kernel raced before fusion. The next loop out is checked the same way.

Otherwise `open_loop` names the innermost loop that fails both: a barrier at the end of
its body (`back_edge_gap`) closes it, and every loop around it. A Func that is carried
out of its iteration (yielded by the loop, returned) cannot be hoisted at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect import AllocOp
from gpu_alloc.dialect.ops import SPACE_WORDS
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms.barrier_ops import may_be_barrier
from gpu_alloc.transforms.block_level_code import BlockLevelCode
from gpu_alloc.transforms.kernel_ir import BLOCK_UNIFORM_OPS, THREAD_ID_OPS, kernel_name, walk_ops
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap
from gpu_alloc.transforms.memory_effects import UseKind
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import IsTerminator, is_side_effect_free

Loop = scf.ForOp | scf.WhileOp


@dataclass(frozen=True)
class OpenLoop:
    """A loop whose back edge must be closed before `alloc` may be hoisted out of it."""

    alloc: Operation
    loop: Loop


class CarriedAllocation(Exception):
    """The allocation's memref leaves the iteration that made it (`op` carries it)."""

    def __init__(self, op: Operation):
        super().__init__(op.name)
        self.op = op


def enclosing_loops(op: Operation, code: Operation) -> list[Loop]:
    """The `scf.for`/`scf.while` ops between `op` and `code`, innermost first."""
    loops: list[Loop] = []
    parent = op.parent_op()
    while parent is not None and parent is not code:
        if isinstance(parent, Loop):
            loops.append(parent)
        parent = parent.parent_op()
    return loops


def open_loop(alloc: Operation, code: Operation, stages: StageMap) -> OpenLoop | None:
    """The innermost loop around `alloc` that hoisting would race across (see the module
    docstring), or None when hoisting is safe. Raises `CarriedAllocation`."""
    loops = enclosing_loops(alloc, code)
    if not loops:
        return None
    accesses = alloc_accesses(alloc)
    for loop in loops:
        if _back_edge_closed(loop, accesses, stages):
            return None
        if not _same_accesses_every_iteration(loop, accesses, stages):
            return OpenLoop(alloc, loop)
    return None


def back_edge_block(loop: Loop) -> Block:
    """The block whose end is the loop's back edge: the body, or a while's "after" region."""
    return loop.body.block if isinstance(loop, scf.ForOp) else loop.after_region.blocks[0]


def alloc_accesses(alloc: Operation) -> list[tuple[Operation, list[Operation]]]:
    """Each op touching the allocation's contents, with the views it goes through."""
    found: list[tuple[Operation, list[Operation]]] = []
    views: dict[SSAValue, list[Operation]] = {alloc.results[0]: []}
    for access in memref_accesses(alloc.results[0]):
        through = views.get(access.value, [])
        if access.kind is UseKind.VIEW:
            view = access.op  # an scf.yield into an scf.if: the if's results are the views
            if isinstance(view, scf.YieldOp) and (parent := view.parent_op()) is not None:
                view = parent
            for result in view.results:
                views.setdefault(result, [*through, view])
        elif access.kind is UseKind.ESCAPE and access.op.has_trait(IsTerminator):
            raise CarriedAllocation(access.op)
        elif access.kind.accesses or access.kind is UseKind.FREE:
            found.append((access.op, through))
    return found


def _hull(intervals: list[Lifetime]) -> Lifetime | None:
    if not intervals:
        return None
    return Lifetime(min(i.start for i in intervals), max(i.end for i in intervals))


def _crosses(before: Lifetime, after: Lifetime) -> bool:
    """Whether every path from a point at `before` to one at `after` (a later point of
    one walk) crosses a barrier: the fewest barriers at `after` exceed the most at `before`."""
    return after.start > before.end - 1


def _back_edge_closed(
    loop: Loop, accesses: list[tuple[Operation, list[Operation]]], stages: StageMap
) -> bool:
    inside = [stages.stage_of.get(op) for op, _ in accesses if loop.is_ancestor(op)]
    if not stages.intact or any(s is None for s in inside):
        return False  # stages that do not hold prove nothing
    span = _hull([s for s in inside if s is not None])
    if span is None:
        return True
    legs = _legs(loop, stages, span)
    return legs is not None and any(_crosses(a, b) for a, b in legs)


def _legs(loop: Loop, stages: StageMap, span: Lifetime) -> list[tuple[Lifetime, Lifetime]] | None:
    """The two halves of a trip around the back edge, as (from, to) intervals of one walk:
    from the accesses to the end of the last region (the body, or a while's "after"
    region), and from the loop's entry (the body's or "before" region's start) to them."""
    entry = stages.stage_of.get(loop)
    exit_ = _exit(back_edge_block(loop), stages)
    if entry is None or exit_ is None:
        return None
    return [(span, exit_), (entry, span)]


def _exit(block: Block, stages: StageMap) -> Lifetime | None:
    terminator = block.last_op
    return None if terminator is None else stages.stage_of.get(terminator)


# ---- the same accesses on every iteration ---------------------------------------------


def _same_accesses_every_iteration(
    loop: Loop, accesses: list[tuple[Operation, list[Operation]]], stages: StageMap
) -> bool:
    if any(may_be_barrier(op) for op in walk_ops(loop)):
        return False
    if any(loop.is_ancestor(gap.block) for gap in stages.hypothetical):
        return False
    invariant = _Invariance(loop)
    for op, views in accesses:
        if not loop.is_ancestor(op):
            continue
        operands = [v for o in (op, *views) for v in o.operands if shapes_access(v)]
        if not all(invariant(v) for v in operands) or not _invariant_control(op, loop, invariant):
            return False
    return True


def shapes_access(value: SSAValue) -> bool:
    """Operands that decide which elements an access touches: indices, sizes, masks."""
    type_ = value.type
    if isinstance(type_, VectorType):
        type_ = type_.element_type
    return isinstance(type_, IndexType) or type_ == IntegerType(1)


def _invariant_control(op: Operation, loop: Loop, invariant: _Invariance) -> bool:
    parent = op.parent_op()
    while parent is not None and parent is not loop:
        if isinstance(parent, scf.IfOp):
            if not invariant(parent.cond):
                return False
        elif isinstance(parent, scf.ForOp):
            if not all(invariant(v) for v in (parent.lb, parent.ub, parent.step)):
                return False
        else:
            return False
        parent = parent.parent_op()
    return True


class _Invariance:
    """Whether a value is the same on every iteration of `loop` (per thread)."""

    def __init__(self, loop: Loop):
        self.loop = loop
        self.known: dict[SSAValue, bool] = {}

    def __call__(self, value: SSAValue) -> bool:
        stack = [value]
        while stack:
            current = stack[-1]
            if current in self.known:
                stack.pop()
                continue
            inputs = self._inputs(current)
            if inputs is None:
                self.known[current] = False
                stack.pop()
                continue
            pending = [v for v in inputs if v not in self.known]
            if pending:
                stack.extend(pending)
                continue
            self.known[current] = all(self.known[v] for v in inputs)
            stack.pop()
        return self.known[value]

    def _inputs(self, value: SSAValue) -> list[SSAValue] | None:
        """The values `value` is invariant with, or None if it varies whatever they are."""
        owner = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
        if not isinstance(owner, Operation) or not self.loop.is_ancestor(owner):
            return []
        if isinstance(value, BlockArgument):
            if owner is self.loop or not isinstance(owner, scf.ForOp) or value.index != 0:
                return None
            return [owner.lb, owner.ub, owner.step]  # an inner loop's variable
        if isinstance(owner, THREAD_ID_OPS + BLOCK_UNIFORM_OPS):
            return []
        if owner.regions or not is_side_effect_free(owner):
            return None
        return list(owner.operands)


def check_hoistable(kernel: BlockLevelCode, alloc: AllocOp, stages: StageMap) -> None:
    """Raises unless hoisting `alloc` to the entry adds no race (`loop_allocs`)."""
    what = f"{SPACE_WORDS[alloc.space]} allocation '{alloc.alloc_name.data}'"
    try:
        found = open_loop(alloc, kernel, stages)
    except CarriedAllocation as carried:
        raise GpuAllocPassError(
            f"{what} is carried out of the loop iteration that makes it ('{carried.op.name}'); "
            "fusion would give every iteration the same storage",
            alloc,
        ) from None
    if found is not None:
        raise GpuAllocPassError(
            f"{what} is made in an '{found.loop.name}' body with no gpu.barrier closing the "
            f"loop's back edge: hoisted to the entry of '{kernel_name(kernel)}', one iteration's "
            "accesses would race with the next's; put a gpu.barrier at the end of the loop "
            "body (insert-barriers=over-limit or always inserts it)",
            alloc,
        )
