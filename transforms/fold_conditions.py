"""Replace comparisons by known truth values and fold the branches they decide.

`fold_to_constants` turns each given `arith.cmpi` into an `arith.constant` of `i1`
(`KnownComparison`), then folds what that makes trivial with xDSL's canonicalization
patterns: `arith.andi`/`ori` with a constant operand (`SignlessIntegerBinaryOperation-
ConstantProp` moves it to the right, `...ZeroOrUnitRight` folds `and x, false` and
`or x, false`), `arith.select` with a constant condition (`SelectConstPattern`) and
`scf.if` with a constant condition (`IfPropagateConstantCondition`: the taken region
is inlined in place of the `if`, the other one dropped). xDSL 0.75 lacks the other
half of the boolean identities, `and x, true -> x` and `or x, true -> true`:
`BooleanRightConstant` adds it.

Only decided values are folded: a pattern fires on an op only when one of the operands
it folds on is a constant that replaced a given comparison (or that such a fold
produced), and the effect-free ops that only the folded ops used are erased with
them. The rest of the region (other constants, dead code that was there before) is
left as it was.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, IntegerType, i1
from xdsl.ir import Operation, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.transforms.canonicalization_patterns.arith import (
    SelectConstPattern,
    SignlessIntegerBinaryOperationConstantProp,
    SignlessIntegerBinaryOperationZeroOrUnitRight,
)
from xdsl.transforms.canonicalization_patterns.scf import IfPropagateConstantCondition
from xdsl.transforms.canonicalization_patterns.utils import const_evaluate_operand
from xdsl.transforms.dead_code_elimination import is_trivially_dead


class BooleanRightConstant(RewritePattern):
    """`arith.andi x, true` -> x and `arith.ori x, true` -> true on `i1`: the halves of
    the boolean identities that xDSL 0.75's `ZeroOrUnitRight` does not fold."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AndIOp | arith.OrIOp, rewriter: PatternRewriter):
        if op.result.type != i1 or not const_evaluate_operand(op.rhs):
            return
        kept = op.lhs if isinstance(op, arith.AndIOp) else op.rhs
        rewriter.replace(op, (), (kept,))


class KnownComparison(RewritePattern):
    """Replaces each given `arith.cmpi` by an `i1` constant of its known truth value."""

    def __init__(self, truths: dict[arith.CmpiOp, bool]):
        self.truths = truths

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.CmpiOp, rewriter: PatternRewriter):
        if (value := self.truths.pop(op, None)) is None:
            return
        rewriter.replace(op, arith.ConstantOp(IntegerAttr(int(value), i1)))


_BRANCH_FOLDS = GreedyRewritePatternApplier(
    [
        SignlessIntegerBinaryOperationConstantProp(),
        SignlessIntegerBinaryOperationZeroOrUnitRight(),
        BooleanRightConstant(),
        SelectConstPattern(),
        IfPropagateConstantCondition(),
    ],
    dce_enabled=False,
)


def _folded_operands(op: Operation) -> Sequence[SSAValue]:
    """The operands whose constant value the branch folds act on."""
    if isinstance(op, arith.AndIOp | arith.OrIOp) and op.result.type == i1:
        return (op.lhs, op.rhs)
    if isinstance(op, arith.SelectOp | scf.IfOp):
        return (op.cond,)
    return ()


def _is_bool_constant(value: SSAValue | None) -> bool:
    return (
        value is not None
        and isinstance(value.owner, arith.ConstantOp)
        and value.type == IntegerType(1)
    )


class _DecidedFolds(RewritePattern):
    """Applies the folds to ops that use a decided value, and erases the ops that
    became dead because a fold removed one of their uses."""

    def __init__(self, truths: dict[arith.CmpiOp, bool]):
        self.known = KnownComparison(truths)
        self.decided: set[SSAValue] = set()
        self.freed: set[Operation] = set()

    def listener(self) -> PatternRewriterListener:
        return PatternRewriterListener(
            operation_removal_handler=[self._removed],
            operation_replacement_handler=[self._replaced],
        )

    def _removed(self, op: Operation) -> None:
        for nested in op.walk():
            self.freed.update(
                operand.owner for operand in nested.operands if isinstance(operand.owner, Operation)
            )

    def _replaced(self, op: Operation, new_results: Sequence[SSAValue | None]) -> None:
        if isinstance(op, arith.CmpiOp) or any(v in self.decided for v in _folded_operands(op)):
            self.decided.update(v for v in new_results if v is not None and _is_bool_constant(v))

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op in self.freed and op.parent is not None and is_trivially_dead(op):
            self.freed.discard(op)
            rewriter.erase(op)
        elif isinstance(op, arith.CmpiOp):
            self.known.match_and_rewrite(op, rewriter)
        elif any(value in self.decided for value in _folded_operands(op)):
            _BRANCH_FOLDS.match_and_rewrite(op, rewriter)


def fold_to_constants(region: Region, comparisons: Sequence[tuple[arith.CmpiOp, bool]]) -> None:
    """Replace each comparison (all in `region`) by its truth value and fold the
    branches it decides."""
    if not comparisons:
        return
    folds = _DecidedFolds(dict(comparisons))
    PatternRewriteWalker(folds, listener=folds.listener()).rewrite_region(region)
