"""Where `fuse-gpu-allocs` may put a `gpu.barrier`: positions every thread reaches together.

A position is in the code's entry block or in a block of an `scf.if`/`scf.for`/
`scf.while` nested in it through block-uniform control only (`uniform_blocks`): every
thread of the block reaches a barrier there the same number of times. The code itself
must be entered by the whole block (`call_graph.CallGraph.why_not_uniform`); the
planner (`fuse.reuse_barriers`) asks that before it offers any position.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from gpu_alloc.transforms.barrier_ops import is_barrier
from gpu_alloc.transforms.kernel_ir import (
    Kernel,
    ThreadDependence,
    is_thread_dependent_control,
    walk_ops,
)
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator


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


def end_of_block(block: Block) -> Gap:
    """The position right before `block`'s terminator."""
    ops = list(block.ops)
    body = ops[:-1] if ops and ops[-1].has_trait(IsTerminator) else ops
    return Gap(block, body[-1] if body else None)


@dataclass(frozen=True)
class InsertedBarrier:
    kernel: str
    after: str
    """Where the barrier is: `after <op>` (`%result = name` when it has a result) or at
    the start of a region."""
    bytes_before: int | None
    """The static shared backing without this barrier (every other inserted one kept);
    None for a barrier that closes a loop's back edge."""
    bytes_after: int | None
    """The static shared backing with every inserted barrier."""
    op: Operation = field(compare=False, repr=False)
    """The inserted `gpu.barrier`."""
    hoisted: tuple[str, ...] = ()
    """The Funcs made in the loop whose back edge the barrier closes."""
    between_calls: bool = False
    """The barrier ends a function entered more than once per block: it separates one
    call's accesses to `hoisted` (one buffer for every call) from the next's."""

    def describe(self) -> str:
        where = f"inserted gpu.barrier in '{self.kernel}' {self.after}"
        if self.bytes_before is None or self.bytes_after is None:
            funcs = ", ".join(f"'{name}'" for name in self.hoisted)
            if self.between_calls:
                return (
                    f"{where}: ends every call, so {funcs} (one buffer for every call) cannot "
                    "be accessed by two calls at once"
                )
            return (
                f"{where}: closes the loop's back edge, so {funcs} (made in the loop) can "
                "be hoisted to the entry without one iteration's accesses racing with the next's"
            )
        saved = self.bytes_before - self.bytes_after
        return (
            f"{where}: shared backing {self.bytes_before} -> {self.bytes_after} B ({saved} B saved)"
        )


def touches_memory(op: Operation) -> bool:
    """Whether `op` or an op inside it uses or makes a memref (or is a barrier:
    `barrier_ops.is_barrier`)."""
    return any(
        is_barrier(o) or any(isinstance(v.type, MemRefType) for v in (*o.operands, *o.results))
        for o in walk_ops(op)
    )


def uniform_blocks(kernel: Kernel, depends_on_thread: ThreadDependence) -> Iterator[Block]:
    """The kernel's entry block and every block nested in it through block-uniform
    `scf.if`/`scf.for`/`scf.while` ops only, in program order."""
    if len(kernel.body.blocks) != 1:
        return
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


def candidate_gaps(
    kernel: Kernel,
    depends_on_thread: ThreadDependence | None = None,
    planned: Collection[Gap] = (),
) -> list[Gap]:
    """Every block-uniform barrier position that may change a lifetime, in program order.

    In a block, positions between two memory-touching ops are all alike, so only the one
    right after a memory-touching op is offered; a nested block also offers its start
    (a barrier there closes a loop's back edge). None next to an existing barrier, nor
    one of `planned` (barriers already decided on)."""
    gaps: list[Gap] = []
    entry = kernel.body.blocks[0] if kernel.body.blocks else None
    for block in uniform_blocks(kernel, depends_on_thread or ThreadDependence(kernel)):
        ops = list(block.ops)
        if not any(touches_memory(o) for o in ops):
            continue
        if block is not entry and ops and not is_barrier(ops[0]):
            gaps.append(Gap(block, None))
        for op, following in zip(ops, ops[1:], strict=False):
            if (
                touches_memory(op)
                and not is_barrier(op)
                and not is_barrier(following)
                and not (block is entry and following.has_trait(IsTerminator))
            ):
                gaps.append(Gap(block, op))
    return [g for g in gaps if g not in planned]


def _describe(op: Operation) -> str:
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint} = {op.name}"
    return op.name
