"""Replace comparisons by known truth values and fold the branches they decide.

`fold_to_constants` turns each given `arith.cmpi` into an `arith.constant` of `i1`,
then folds what that makes trivial: `arith.andi`/`ori` with a constant operand,
`arith.select` with a constant condition, and `scf.if` with a constant condition
(the taken region is inlined in place of the `if`, the other one dropped).
"""

from __future__ import annotations

from collections.abc import Sequence

from gpu_alloc.transforms.iv_conditions import constant_int
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, i1
from xdsl.ir import Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def _bool_constant(value: bool, before: Operation) -> SSAValue:
    const = arith.ConstantOp(IntegerAttr(int(value), i1))
    Rewriter.insert_op(const, InsertPoint.before(before))
    return const.result


def _outside_operands(region: Region) -> list[SSAValue]:
    """Values used in `region` but defined outside it."""
    return [
        operand
        for op in region.walk()
        for operand in op.operands
        if not region.is_ancestor(operand.owner)
    ]


def _inline_if(if_op: scf.IfOp, taken: bool) -> None:
    region = if_op.true_region if taken else if_op.false_region
    dropped = if_op.false_region if taken else if_op.true_region
    freed = _outside_operands(dropped)
    _inline_region(if_op, region)
    for value in freed:
        _erase_if_dead(value)


def _inline_region(if_op: scf.IfOp, region: Region) -> None:
    if not region.blocks:
        Rewriter.erase_op(if_op)
        return
    block = region.block
    terminator = block.last_op
    assert isinstance(terminator, scf.YieldOp)
    yielded = tuple(terminator.operands)
    Rewriter.erase_op(terminator, safe_erase=False)
    Rewriter.inline_block(block, InsertPoint.before(if_op))
    for result, value in zip(if_op.results, yielded, strict=True):
        result.replace_all_uses_with(value)
    Rewriter.erase_op(if_op)


def _erase_if_dead(value: SSAValue) -> None:
    """Erase the definition of `value` if nothing uses it, then its operands' ones."""
    owner = value.owner
    if isinstance(owner, Operation) and owner.parent is not None and is_trivially_dead(owner):
        operands = tuple(owner.operands)
        Rewriter.erase_op(owner)
        for operand in operands:
            _erase_if_dead(operand)


def _fold_user(op: Operation, constant: SSAValue, value: bool) -> list[SSAValue]:
    """Fold one user of a constant i1; returns the new constants it produced."""
    if isinstance(op, arith.AndIOp | arith.OrIOp):
        other = op.rhs if op.lhs is constant else op.lhs
        absorbing = isinstance(op, arith.OrIOp)  # `or true` / `and false`
        if value == absorbing:
            op.result.replace_all_uses_with(constant)
            Rewriter.erase_op(op)
            _erase_if_dead(other)
            return [constant]
        op.result.replace_all_uses_with(other)
        Rewriter.erase_op(op)
        return [other] if constant_int(other) is not None else []
    if isinstance(op, arith.SelectOp) and op.cond is constant:
        dropped = op.rhs if value else op.lhs
        op.result.replace_all_uses_with(op.lhs if value else op.rhs)
        Rewriter.erase_op(op)
        _erase_if_dead(dropped)
        return []
    if isinstance(op, scf.IfOp):
        _inline_if(op, value)
    return []


def fold_to_constants(comparisons: Sequence[tuple[arith.CmpiOp, bool]]) -> None:
    """Replace each comparison by its truth value and fold the branches it decides."""
    worklist: list[SSAValue] = []
    for cmp, value in comparisons:
        const = _bool_constant(value, cmp)
        cmp.result.replace_all_uses_with(const)
        operands = tuple(cmp.operands)
        Rewriter.erase_op(cmp)
        for operand in operands:
            _erase_if_dead(operand)
        worklist.append(const)
    while worklist:
        constant = worklist.pop()
        known = constant_int(constant)
        if known is None:
            continue
        for use in tuple(constant.uses):
            if use.operation.parent is not None:
                worklist.extend(_fold_user(use.operation, constant, bool(known & 1)))
        _erase_if_dead(constant)
