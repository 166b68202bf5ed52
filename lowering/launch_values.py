"""Recompute a kernel-side size at a `gpu.launch_func` of that kernel.

The byte sizes of dynamic shared and heap backings are computed inside the kernel from
its arguments, `gpu.grid_dim` and `gpu.block_dim`, with pure `arith` ops. The host must
know the same number before the launch (to size dynamic shared memory or to allocate
the heap buffer), so the computation is cloned in front of the launch with kernel
arguments replaced by the launch's operands and grid/block dimensions by its sizes.
"""

from __future__ import annotations

from gpu_alloc.errors import GpuAllocPassError
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IndexType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

_DIMENSIONS = ("x", "y", "z")


class LaunchValueBuilder:
    """Clones kernel-side index computations in front of one launch site."""

    def __init__(self, kernel: gpu.FuncOp, launch: gpu.LaunchFuncOp, what: str):
        self.kernel = kernel
        self.launch = launch
        self.what = what
        self._values: dict[SSAValue, SSAValue] = {}

    def _insert(self, op: Operation) -> Operation:
        Rewriter.insert_op(op, InsertPoint.before(self.launch))
        return op

    def _as_index(self, value: SSAValue) -> SSAValue:
        if isinstance(value.type, IndexType):
            return value
        return self._insert(arith.IndexCastOp(value, IndexType())).results[0]

    def _dimension(self, op: gpu.GridDimOp | gpu.BlockDimOp) -> SSAValue:
        index = _DIMENSIONS.index(op.dimension.data.value)
        if isinstance(op, gpu.GridDimOp):
            sizes = (self.launch.gridSizeX, self.launch.gridSizeY, self.launch.gridSizeZ)
        else:
            sizes = (self.launch.blockSizeX, self.launch.blockSizeY, self.launch.blockSizeZ)
        return self._as_index(sizes[index])

    def value(self, kernel_value: SSAValue) -> SSAValue:
        """The launch-side value equal to `kernel_value` for this launch."""
        if kernel_value in self._values:
            return self._values[kernel_value]
        result = self._compute(kernel_value)
        self._values[kernel_value] = result
        return result

    def _compute(self, kernel_value: SSAValue) -> SSAValue:
        if isinstance(kernel_value, BlockArgument):
            if kernel_value.block is self.kernel.body.blocks[0]:
                return self.launch.kernelOperands[kernel_value.index]
            raise self._unknown("a block argument inside the kernel")
        assert isinstance(kernel_value, OpResult)
        owner = kernel_value.op
        if isinstance(owner, gpu.GridDimOp | gpu.BlockDimOp):
            return self._dimension(owner)
        if owner.dialect_name() != "arith" or not is_side_effect_free(owner):
            raise self._unknown(f"'{owner.name}'")
        operands = [self.value(operand) for operand in owner.operands]
        clone = owner.clone()
        for index, operand in enumerate(operands):
            clone.operands[index] = operand
        return self._insert(clone).results[kernel_value.index]

    def _unknown(self, source: str) -> GpuAllocPassError:
        return GpuAllocPassError(
            f"the size of {self.what} depends on {source}, which the host cannot compute "
            f"at the launch of kernel '{self.kernel.sym_name.data}'",
            self.launch,
        )
