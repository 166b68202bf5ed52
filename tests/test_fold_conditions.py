"""fold_conditions: known comparisons become constants and only the branches they decide fold.

The folding is xDSL's canonicalization patterns plus `BooleanRightConstant` (the half
of the boolean identities xDSL 0.75 lacks), scoped to values the given comparisons
decide: other constant conditions and dead code stay as they were.
"""

from __future__ import annotations

from gpu_alloc.transforms.fold_conditions import BooleanRightConstant, fold_to_constants
from lowering_support import parse
from xdsl.dialects import arith, func
from xdsl.pattern_rewriter import PatternRewriteWalker


def _returned_names(text: str) -> list[str]:
    module = parse(text)
    PatternRewriteWalker(BooleanRightConstant()).rewrite_module(module)
    ret = next(op for op in module.walk() if isinstance(op, func.ReturnOp))
    return [str(v.name_hint) for v in ret.operands]


def test_and_true_is_the_other_operand_and_or_true_is_true():
    text = """
    func.func @f(%x: i1) -> (i1, i1, i1, i1) {
      %t = arith.constant true
      %f = arith.constant false
      %and_t = arith.andi %x, %t : i1
      %or_t = arith.ori %x, %t : i1
      %and_f = arith.andi %x, %f : i1
      %or_f = arith.ori %x, %f : i1
      func.return %and_t, %or_t, %and_f, %or_f : i1, i1, i1, i1
    }
    """
    # and/or with false are xDSL's ZeroOrUnitRight: left alone by this pattern.
    assert _returned_names(text) == ["x", "t", "and_f", "or_f"]


def test_only_decided_branches_fold():
    module = parse(
        """
        func.func @f(%i: index, %n: index, %y: i1, %a: i32, %b: i32) -> (i32, i1, i32, i32) {
          %decided = arith.cmpi slt, %i, %n : index
          %unknown = arith.cmpi sgt, %i, %n : index
          %both = arith.andi %decided, %y : i1
          %either = arith.ori %decided, %unknown : i1
          %s = arith.select %decided, %a, %b : i32
          %r = scf.if %decided -> (i32) {
            scf.yield %a : i32
          } else {
            scf.yield %b : i32
          }
          %keep = arith.constant true
          %kept = arith.select %keep, %a, %b : i32
          %dead = arith.addi %a, %b : i32
          func.return %s, %either, %r, %kept : i32, i1, i32, i32
        }
        """
    )
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    cmp = next(op for op in f.walk() if isinstance(op, arith.CmpiOp))
    assert cmp.result.name_hint == "decided"
    fold_to_constants(f.body, [(cmp, True)])
    module.verify()
    ret = next(op for op in f.walk() if isinstance(op, func.ReturnOp))
    s, either, r, kept = ret.operands
    assert s.name_hint == "a" and r.name_hint == "a"
    assert isinstance(either.owner, arith.ConstantOp) and either.owner.value.value.data != 0
    # `%unknown` only fed the folded `or` and goes with it; `%both` (`and true`) is
    # `%y`; the select on a constant that no comparison decided and the dead add stay.
    names = {v.name_hint for op in f.walk() for v in op.results}
    assert "unknown" not in names and "both" not in names
    assert {"kept", "dead", "keep"} <= names
    assert not any(isinstance(op, arith.CmpiOp) for op in f.walk())


def test_false_decides_the_else_branch_and_the_and():
    module = parse(
        """
        func.func @f(%i: index, %n: index, %y: i1, %a: i32, %b: i32) -> (i1, i32) {
          %c = arith.cmpi slt, %i, %n : index
          %both = arith.andi %y, %c : i1
          %r = scf.if %c -> (i32) {
            scf.yield %a : i32
          } else {
            %x = arith.muli %b, %b : i32
            scf.yield %x : i32
          }
          func.return %both, %r : i1, i32
        }
        """
    )
    f = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    cmp = next(op for op in f.walk() if isinstance(op, arith.CmpiOp))
    fold_to_constants(f.body, [(cmp, False)])
    module.verify()
    ret = next(op for op in f.walk() if isinstance(op, func.ReturnOp))
    both, r = ret.operands
    assert isinstance(both.owner, arith.ConstantOp) and both.owner.value.value.data == 0
    assert isinstance(r.owner, arith.MuliOp)
    assert not any(op.name == "scf.if" for op in f.walk())
