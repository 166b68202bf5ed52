"""Is a value the same for every thread of a block?

A conservative syntactic test: constants, kernel arguments, block and grid ids and
sizes, and pure arithmetic of uniform values are uniform; thread and lane ids, loads
and anything else are not.
"""

from __future__ import annotations

from xdsl.dialects import arith, gpu
from xdsl.ir import BlockArgument, OpResult, SSAValue
from xdsl.traits import Pure

_UNIFORM_OPS = (arith.ConstantOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp)


def is_block_uniform(value: SSAValue, _depth: int = 0) -> bool:
    """True only if `value` is provably equal across the threads of a block."""
    if _depth > 64:
        return False
    if isinstance(value, BlockArgument):
        return isinstance(value.block.parent_op(), gpu.FuncOp)
    assert isinstance(value, OpResult)
    owner = value.op
    if isinstance(owner, _UNIFORM_OPS):
        return True
    if owner.name.startswith("arith.") and owner.has_trait(Pure):
        return all(is_block_uniform(v, _depth + 1) for v in owner.operands)
    return False
