"""Which ops compute a block-level allocation's dynamic sizes, and whether they may.

A shared or heap allocation has one size for the whole block, so its dynamic sizes
must be computable at the kernel entry from kernel arguments, constants and
block/grid ids with effect-free ops. In a `gpu.launch` body the entry arguments other
than the thread ids (block ids, grid and block sizes) and values from above the launch
count as kernel arguments. `fuse-gpu-allocs` hoists exactly these ops;
`lower-gpu-allocs` refuses an allocation whose sizes break the rule. Both use
`size_slice`, so the rule and its diagnostics exist once.

`affine.apply`, `affine.min`, `affine.max` and the index (de)linearizations are such
effect-free ops (IREE computes tile sizes with them), as are the `index` dialect's. A
size bounded by a constant (`affine.min` with a constant result, `arith.minsi` with a
bounded operand, ...) has a static upper bound (`static_upper_bound`), so an
allocation whose dynamic sizes are all bounded has a static byte size
(`bounded_byte_size`) that the packer lays out like any static one.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc.dialect import AliasOp, AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.syntax.mlir_affine import DelinearizeIndexOp, LinearizeIndexOp, MaxOp
from gpu_alloc.transforms.kernel_ir import BLOCK_UNIFORM_OPS, THREAD_ID_OPS, launch_thread_id
from xdsl.dialects import affine, arith, scf
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr, MemRefType
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr
from xdsl.traits import is_side_effect_free

AFFINE_SIZE_OPS: tuple[type[Operation], ...] = (
    affine.ApplyOp,
    affine.MinOp,
    MaxOp,
    DelinearizeIndexOp,
    LinearizeIndexOp,
)
"""Effect-free `affine` ops that compute sizes (xDSL does not mark all of them pure)."""


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
        if op.regions or not (
            is_side_effect_free(op) or isinstance(op, (*BLOCK_UNIFORM_OPS, *AFFINE_SIZE_OPS))
        ):
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
    by its last value (`fuse.trip_bounds.value_at_last_trip`): their bounds are checked
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


def static_upper_bound(value: SSAValue) -> int | None:
    """A constant that `value` never exceeds, if one follows from how it is computed: a
    constant; `affine.min` with a constant result (the smallest); `arith.minsi`/`minui`
    or `index.mins`/`minu` with a bounded operand; a select of bounded values."""
    op = value.owner
    if not isinstance(op, Operation):
        return None
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    if isinstance(op, affine.MinOp) and isinstance(op.map, AffineMapAttr):
        constants = [e.value for e in op.map.data.results if isinstance(e, AffineConstantExpr)]
        return min(constants) if constants else None
    if op.name in ("arith.minsi", "arith.minui", "index.mins", "index.minu"):
        bounds = [b for o in op.operands if (b := static_upper_bound(o)) is not None]
        return min(bounds) if bounds else None
    if isinstance(op, arith.SelectOp):
        bounds = [static_upper_bound(o) for o in (op.lhs, op.rhs)]
        return None if None in bounds else max(b for b in bounds if b is not None)
    return None


def bounded_byte_size(alloc: AllocOp | AliasOp) -> int | None:
    """The allocation's (or alias's) byte size with every dynamic size at its static
    upper bound; None if a size has no bound (or the element size is unknown)."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    elem = element_bytes(memref_type.get_element_type())
    if elem is None:
        return None
    sizes = iter(alloc.dynamic_sizes)
    total = elem
    for dim in memref_type.get_shape():
        bound = static_upper_bound(next(sizes)) if dim < 0 else dim
        if bound is None or bound < 0:
            return None
        total *= bound
    return total
