"""Which ops compute a block-level allocation's dynamic sizes, and whether they may.

A shared or heap allocation has one size for the whole block, so its dynamic sizes
must be computable at the kernel entry from kernel arguments, constants and
block/grid ids with effect-free ops. In a `gpu.launch` body the entry arguments other
than the thread ids (block ids, grid and block sizes) and values from above the launch
count as kernel arguments. `fuse-gpu-allocs` hoists exactly these ops;
`lower-gpu-allocs` refuses an allocation whose sizes break the rule. Both use
`size_slice`, so the rule and its diagnostics exist once.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc.dialect import AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms.kernel_ir import BLOCK_UNIFORM_OPS, THREAD_ID_OPS, launch_thread_id
from xdsl.dialects import scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free


class _SliceCollector:
    def __init__(self, alloc: AllocOp, entry: Block, last_trip_loops: Sequence[scf.ForOp]):
        self.alloc = alloc
        self.entry = entry
        self.last_trip_loops = {loop.body.block: loop for loop in last_trip_loops}
        self.ops: list[Operation] = []
        self.seen: set[Operation] = set()
        self.kernel = entry.parent_op()
        """The block-level code; what is defined above it is available at its entry."""

    def from_above(self, value: SSAValue) -> bool:
        if self.kernel is None:
            return False
        owner = value.block.parent_op() if isinstance(value, BlockArgument) else value.owner
        return isinstance(owner, Operation) and not self.kernel.is_ancestor(owner)

    def error(self, reason: str) -> GpuAllocPassError:
        return GpuAllocPassError(
            f"the size of allocation '{self.alloc.alloc_name.data}' {reason}", self.alloc
        )

    def visit(self, value: SSAValue) -> None:
        if launch_thread_id(value):
            raise self.error(
                "depends on the thread id (an argument of the gpu.launch body); a "
                "block-level allocation has one size for the whole block"
            )
        if self.from_above(value):
            return
        if isinstance(value, BlockArgument):
            if value.block is self.entry:
                return
            loop = self.last_trip_loops.get(value.block)
            if loop is not None and value.index == 0:
                # Sized for the largest trip: the size is evaluated at max(ub - 1, lb).
                self.visit(loop.lb)
                self.visit(loop.ub)
                return
            raise self.error(
                "depends on a loop variable or region argument; sizes must be computed "
                "from kernel arguments, constants and block/grid ids"
            )
        op = value.owner
        assert isinstance(op, Operation)
        if op in self.seen:
            return
        if isinstance(op, THREAD_ID_OPS):
            raise self.error(
                f"depends on the thread id ('{op.name}'); a block-level allocation has "
                "one size for the whole block"
            )
        if op.regions or not (is_side_effect_free(op) or isinstance(op, BLOCK_UNIFORM_OPS)):
            raise self.error(
                f"is computed by '{op.name}'; sizes must be computed from kernel "
                "arguments, constants and block/grid ids"
            )
        for operand in op.operands:
            self.visit(operand)
        self.seen.add(op)
        self.ops.append(op)


def size_slice(
    alloc: AllocOp, entry: Block, last_trip_loops: Sequence[scf.ForOp] = ()
) -> list[Operation]:
    """The ops computing `alloc`'s dynamic sizes, defs before uses, without those
    already in `entry`'s arguments. Raises GpuAllocPassError if a size depends on a
    thread id, on a region argument or on memory.

    `last_trip_loops` are enclosing loops whose induction variable will be replaced
    by its last value (`trip_bounds.value_at_last_trip`): their bounds are checked
    instead."""
    collector = _SliceCollector(alloc, entry, last_trip_loops)
    for size in alloc.dynamic_sizes:
        collector.visit(size)
    return collector.ops


def size_slices(allocs: Sequence[AllocOp], entry: Block) -> list[Operation]:
    """The union of the allocations' size slices, each op once, defs before uses."""
    ops: list[Operation] = []
    seen: set[Operation] = set()
    for alloc in allocs:
        for op in size_slice(alloc, entry):
            if op not in seen:
                seen.add(op)
                ops.append(op)
    return ops
