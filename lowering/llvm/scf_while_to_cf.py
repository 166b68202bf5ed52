"""`scf.while` to `cf` branches, which xDSL 0.75's `convert-scf-to-cf` does not lower.

The "before" region becomes the loop header (its `scf.condition` a `cf.cond_br` to the
"after" region or out of the loop, both with the condition's arguments); the "after"
region branches back to the header with its `scf.yield` operands. Both regions are
single blocks (`scf.while` requires it).

Upstream fix: add this pattern to `xdsl.transforms.convert_scf_to_cf`.
"""

from __future__ import annotations

from xdsl.dialects import cf, scf
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint


class WhileLowering(RewritePattern):
    """One `scf.while` → header block, body block and a continuation block."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: scf.WhileOp, rewriter: PatternRewriter) -> None:
        init_block = op.parent_block()
        if init_block is None:
            return
        end_block = init_block.split_before(op)
        header = op.before_region.block
        body = op.after_region.block
        condition = header.last_op
        yielded = body.last_op
        assert isinstance(condition, scf.ConditionOp) and isinstance(yielded, scf.YieldOp)
        rewriter.inline_region(op.before_region, BlockInsertPoint.before(end_block))
        rewriter.inline_region(op.after_region, BlockInsertPoint.before(end_block))
        rewriter.insert(cf.BranchOp(header, *op.arguments), InsertPoint.at_end(init_block))
        rewriter.replace(yielded, cf.BranchOp(header, *yielded.operands))
        results = [end_block.insert_arg(r.type, i) for i, r in enumerate(op.res)]
        exit_values = list(condition.args)
        rewriter.replace(
            condition,
            cf.ConditionalBranchOp(condition.condition, body, exit_values, end_block, exit_values),
        )
        rewriter.replace(op, [], results)
