"""Find the branches of an `scf.for` body that compare the induction variable with a bound.

A comparison `iv + c <pred> n` (or `n <pred> iv + c`) where `c` is an integer constant
and `n` is defined outside the loop is monotone in `iv`: it holds on a prefix of the
iteration space (`iv < s`) or on a suffix (`iv >= s`) for a split point `s` computed
from `n` and `c`. `find_iv_comparisons` returns every such comparison that decides an
`scf.if` or an `arith.select` of the body, directly or through `arith.andi`/`ori`/
`xori`. Equality tests are not monotone and are ignored.

Unsigned predicates are only accepted when `iv + c` is known non-negative (the loop's
lower bound and `c` are non-negative constants); a bound that is negative as a signed
value is then larger than every `iv + c`. Like MLIR's own loop transforms, the split
arithmetic assumes `n + 1 - c` does not wrap.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, OpResult, SSAValue

_SWAPPED = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle"}
_SWAPPED |= {"ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}
_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")


def constant_int(value: SSAValue) -> int | None:
    """The value of an integer `arith.constant`, or None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


@dataclass(frozen=True)
class SplitPoint:
    """`s = bound + addend`; if `unsigned`, `s` is +infinity when `bound` is negative.

    Two comparisons with equal split points change truth at the same iteration.
    """

    bound: SSAValue
    addend: int
    unsigned: bool


@dataclass(frozen=True)
class IvComparison:
    """A comparison in the loop body that holds exactly when `iv < split` (`prefix`)
    or exactly when `iv >= split` (not `prefix`)."""

    cmp: arith.CmpiOp
    split: SplitPoint
    prefix: bool


def _iv_plus_constant(value: SSAValue, iv: SSAValue) -> int | None:
    """`c` if `value` is `iv`, `iv + c`, `c + iv` or `iv - c` for a constant `c`."""
    if value is iv:
        return 0
    owner = value.owner
    if isinstance(owner, arith.AddiOp):
        if owner.lhs is iv:
            return constant_int(owner.rhs)
        if owner.rhs is iv:
            return constant_int(owner.lhs)
    if isinstance(owner, arith.SubiOp) and owner.lhs is iv:
        c = constant_int(owner.rhs)
        return None if c is None else -c
    return None


def _defined_outside(value: SSAValue, loop: scf.ForOp) -> bool:
    owner = value.owner
    return not loop.is_ancestor(owner)


def _lower_bound_non_negative(loop: scf.ForOp) -> bool:
    lb = constant_int(loop.lb)
    return lb is not None and lb >= 0


def classify_comparison(cmp: arith.CmpiOp, loop: scf.ForOp) -> IvComparison | None:
    """The split point of `cmp` if it compares `loop`'s iv (plus a constant) with a
    loop-invariant bound, else None."""
    iv = loop.body.block.args[0]
    predicate = _PREDICATES[cmp.predicate.value.data]
    c = _iv_plus_constant(cmp.lhs, iv)
    bound = cmp.rhs
    if c is None:
        c = _iv_plus_constant(cmp.rhs, iv)
        bound = cmp.lhs
        if predicate not in _SWAPPED:
            return None
        predicate = _SWAPPED[predicate]
    if c is None or predicate in ("eq", "ne") or not _defined_outside(bound, loop):
        return None
    unsigned = predicate.startswith("u")
    if unsigned and (c < 0 or not _lower_bound_non_negative(loop)):
        return None
    # (iv + c) < n  <=>  iv < n - c ;  (iv + c) <= n  <=>  iv < n - c + 1
    strict = predicate[1:] in ("lt", "ge")
    addend = -c if strict else 1 - c
    prefix = predicate[1:] in ("lt", "le")
    return IvComparison(cmp, SplitPoint(bound, addend, unsigned), prefix)


def _condition_roots(loop: scf.ForOp) -> Iterator[SSAValue]:
    for op in loop.body.walk():
        if isinstance(op, scf.IfOp):
            yield op.cond
        elif isinstance(op, arith.SelectOp):
            yield op.cond


def _comparisons_deciding(
    value: SSAValue, loop: scf.ForOp, seen: set[Operation]
) -> Iterator[arith.CmpiOp]:
    if not isinstance(value, OpResult):
        return
    owner = value.op
    if owner in seen or not loop.is_ancestor(owner):
        return
    seen.add(owner)
    if isinstance(owner, arith.CmpiOp):
        yield owner
    elif isinstance(owner, arith.AndIOp | arith.OrIOp | arith.XOrIOp):
        for operand in owner.operands:
            yield from _comparisons_deciding(operand, loop, seen)


def find_iv_comparisons(loop: scf.ForOp) -> list[IvComparison]:
    """The comparisons of `loop`'s iv with a loop-invariant bound that decide a branch
    of its body, in program order of the branches."""
    seen: set[Operation] = set()
    found: list[IvComparison] = []
    for root in _condition_roots(loop):
        for cmp in _comparisons_deciding(root, loop, seen):
            if (comparison := classify_comparison(cmp, loop)) is not None:
                found.append(comparison)
    return found
