"""Reuse an integer `arith.constant` that already dominates an insertion point."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter


def dominating_constant(before: Operation, attr: IntegerAttr) -> SSAValue | None:
    """An `arith.constant attr` earlier in `before`'s block or in an enclosing one."""
    node: Operation | None = before
    while node is not None and (block := node.parent_block()) is not None:
        for op in block.ops:
            if op is node:
                break
            if isinstance(op, arith.ConstantOp) and op.value == attr:
                return op.result
        node = block.parent_op()
    return None


def constant_before(before: Operation, attr: IntegerAttr) -> SSAValue:
    """A constant `attr` usable at `before`: an existing one, or a new one there."""
    if (existing := dominating_constant(before, attr)) is not None:
        return existing
    constant = arith.ConstantOp(attr)
    Rewriter.insert_op(constant, InsertPoint.before(before))
    return constant.result
