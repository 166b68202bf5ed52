"""Queries about GPU kernels in the IR contract's form, shared by the passes.

A kernel is a `gpu.func` with the `kernel` unit property (xDSL's spelling) or the
`gpu.kernel` unit attribute (MLIR's). Its body runs once per thread; code outside
thread-dependent control flow is "block level".
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import func, gpu, memref, scf
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

THREAD_ID_OPS: tuple[type[Operation], ...] = (gpu.ThreadIdOp, gpu.LaneIdOp, gpu.GlobalIdOp)
"""Ops whose value differs between the threads of one block."""

BLOCK_UNIFORM_OPS: tuple[type[Operation], ...] = (
    gpu.BlockIdOp,
    gpu.BlockDimOp,
    gpu.GridDimOp,
)
"""Ops without memory effects whose value is the same for every thread of a block."""

VIEW_OPS: tuple[type[Operation], ...] = (
    memref.ViewOp,
    memref.SubviewOp,
    memref.CastOp,
    memref.ReinterpretCastOp,
    memref.ExpandShapeOp,
    memref.CollapseShapeOp,
    memref.MemorySpaceCastOp,
)
"""Ops whose memref result aliases their first memref operand."""


def is_kernel(op: Operation) -> bool:
    return isinstance(op, gpu.FuncOp) and (
        op.kernel is not None or isinstance(op.attributes.get("gpu.kernel"), UnitAttr)
    )


def kernels(module: ModuleOp) -> Iterator[gpu.FuncOp]:
    for op in module.walk():
        if is_kernel(op):
            assert isinstance(op, gpu.FuncOp)
            yield op


def kernel_name(kernel: gpu.FuncOp | func.FuncOp) -> str:
    return kernel.sym_name.data


def next_power_of_two(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def enclosing_ops(op: Operation, stop: Operation) -> Iterator[Operation]:
    """The ops strictly between `op` and its ancestor `stop`, innermost first."""
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        yield parent
        parent = parent.parent_op()


def ancestor_in_block(op: Operation, block: Block) -> Operation | None:
    """The ancestor of `op` (or `op` itself) that sits directly in `block`."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def contains_barrier(op: Operation) -> bool:
    return any(isinstance(o, gpu.BarrierOp) for o in op.walk())


class ThreadDependence:
    """Answers whether a value may differ between the threads of one block.

    Conservative: values read from memory, results of ops with regions and block
    arguments other than the kernel's own and the induction variables of
    block-uniform `scf.for` loops count as thread-dependent.
    """

    def __init__(self, kernel: gpu.FuncOp | func.FuncOp):
        self._entry = kernel.body.blocks[0]
        self._cache: dict[SSAValue, bool] = {}

    def __call__(self, value: SSAValue) -> bool:
        if value in self._cache:
            return self._cache[value]
        self._cache[value] = True  # cycles (loop-carried values) stay dependent
        result = self._compute(value)
        self._cache[value] = result
        return result

    def _compute(self, value: SSAValue) -> bool:
        if isinstance(value, BlockArgument):
            if value.block is self._entry:
                return False
            loop = value.block.parent_op()
            if isinstance(loop, scf.ForOp) and value.index == 0:
                return any(self(v) for v in (loop.lb, loop.ub, loop.step))
            return True
        op = value.owner
        assert isinstance(op, Operation)
        if isinstance(op, THREAD_ID_OPS):
            return True
        if isinstance(op, BLOCK_UNIFORM_OPS):
            return False
        if op.regions or not is_side_effect_free(op):
            return True
        return any(self(operand) for operand in op.operands)


def memref_users(value: SSAValue) -> Iterator[Operation]:
    """Every op that uses `value` directly or through a chain of view-like ops."""
    for use in value.uses:
        user = use.operation
        yield user
        if isinstance(user, VIEW_OPS) and use.index == 0:
            for result in user.results:
                yield from memref_users(result)
