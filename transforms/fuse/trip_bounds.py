"""Bounding a value over every trip of an `scf.for`: "sized for the largest trip".

Private allocations are hoisted out of loops; one whose size grows with the loop's
induction variable is sized for the last trip. The size must be monotone
non-decreasing in the induction variable (sums, products by non-negative constants,
differences with loop-invariant values, min/max, unsigned division by a positive
constant, index casts); anything else is reported by the caller.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

MONOTONE_BOTH = (arith.AddiOp, arith.MaxSIOp, arith.MaxUIOp, arith.MinSIOp, arith.MinUIOp)


def _non_negative_constant(value: SSAValue) -> bool:
    op = value.owner
    return (
        isinstance(op, arith.ConstantOp)
        and isinstance(op.value, IntegerAttr)
        and op.value.value.data >= 0
    )


def _inside(value: SSAValue, loop: scf.ForOp) -> bool:
    if isinstance(value, BlockArgument):
        return loop.is_ancestor(value.block.parent_op() or loop)
    return loop.is_ancestor(value.owner) if isinstance(value.owner, Operation) else False


def is_non_decreasing(value: SSAValue, loop: scf.ForOp) -> bool:
    """Whether `value` never decreases as `loop`'s induction variable grows."""
    if not _inside(value, loop):
        return True
    if value is loop.body.block.args[0]:
        return True
    if isinstance(value, BlockArgument):
        inner = value.block.parent_op()
        # The induction variable of a loop nested in `loop` is sized for its own last
        # trip first, max(ub - 1, lb): it grows with `loop`'s if both bounds do.
        return (
            isinstance(inner, scf.ForOp)
            and value.index == 0
            and is_non_decreasing(inner.lb, loop)
            and is_non_decreasing(inner.ub, loop)
        )
    op = value.owner
    if isinstance(op, arith.ConstantOp):
        return True
    if isinstance(op, MONOTONE_BOTH):
        return is_non_decreasing(op.lhs, loop) and is_non_decreasing(op.rhs, loop)
    if isinstance(op, arith.MuliOp):
        return (_non_negative_constant(op.rhs) and is_non_decreasing(op.lhs, loop)) or (
            _non_negative_constant(op.lhs) and is_non_decreasing(op.rhs, loop)
        )
    if isinstance(op, arith.SubiOp):
        return not _inside(op.rhs, loop) and is_non_decreasing(op.lhs, loop)
    if isinstance(op, arith.DivUIOp):
        return _non_negative_constant(op.rhs) and is_non_decreasing(op.lhs, loop)
    if isinstance(op, arith.IndexCastOp):
        return is_non_decreasing(op.input, loop)
    return False


def value_at_last_trip(value: SSAValue, loop: scf.ForOp) -> SSAValue:
    """`value` evaluated at the loop's last induction value, computed before the loop.

    The caller has checked `is_non_decreasing`; for an empty loop the first value
    (the lower bound) is used, so the result is always defined.
    """
    rewriter_point = InsertPoint.before(loop)
    iv_type = loop.ub.type  # index, or the induction variable's integer type
    assert isinstance(iv_type, IndexType | IntegerType)
    one = arith.ConstantOp(IntegerAttr(1, iv_type))
    before_ub = arith.SubiOp(loop.ub, one)
    last = arith.MaxSIOp(before_ub, loop.lb)
    new_ops: list[Operation] = [one, before_ub, last]
    mapping: dict[SSAValue, SSAValue] = {loop.body.block.args[0]: last.result}

    def clone(v: SSAValue) -> SSAValue:
        if v in mapping:
            return mapping[v]
        if not _inside(v, loop):
            return v
        op = v.owner
        assert isinstance(op, Operation)
        for operand in op.operands:
            clone(operand)
        copy = op.clone(value_mapper=mapping)
        new_ops.append(copy)
        for old, new in zip(op.results, copy.results, strict=True):
            mapping[old] = new
        return mapping[v]

    result = clone(value)
    Rewriter.insert_op(new_ops, rewriter_point)
    return result
