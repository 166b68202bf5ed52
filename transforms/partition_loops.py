"""`partition-loops`: split loops at the iterations where a boundary test changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.dialect.ops import AliasOp, AllocOp
from gpu_alloc.transforms.constants import constant_before
from gpu_alloc.transforms.fold_conditions import fold_to_constants
from gpu_alloc.transforms.iv_conditions import (
    IvComparison,
    SplitPoint,
    constant_int,
    find_iv_comparisons,
)
from gpu_alloc.transforms.kernel_ir import ThreadDependence, contains_barrier
from gpu_alloc.transforms.layout_record import forget_layouts
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

Value = SSAValue | int
"""A loop bound being computed: an SSA value, or an integer known at compile time."""


class _BoundBuilder:
    """Emits the split-point arithmetic before the loop (with an xDSL `Builder`),
    folding constants."""

    def __init__(self, loop: scf.ForOp):
        self.loop = loop
        self.builder = Builder(InsertPoint.before(loop))
        loop_type = loop.lb.type
        assert isinstance(loop_type, IndexType | IntegerType)
        self.type: IndexType | IntegerType = loop_type

    def get(self, value: Value) -> SSAValue:
        if isinstance(value, SSAValue):
            return value
        return constant_before(self.loop, IntegerAttr(value, self.type))

    def emit(self, op: Operation) -> SSAValue:
        return self.builder.insert(op).results[0]

    @staticmethod
    def known(value: Value) -> int | None:
        return value if isinstance(value, int) else constant_int(value)

    def add(self, a: Value, b: int) -> Value:
        if b == 0:
            return a
        if (x := self.known(a)) is not None:
            return x + b
        return self.emit(arith.AddiOp(self.get(a), self.get(b)))

    def min(self, a: Value, b: Value) -> Value:
        if (x := self.known(a)) is not None and (y := self.known(b)) is not None:
            return min(x, y)
        return self.emit(arith.MinSIOp(self.get(a), self.get(b)))

    def max(self, a: Value, b: Value) -> Value:
        if (x := self.known(a)) is not None and (y := self.known(b)) is not None:
            return max(x, y)
        return self.emit(arith.MaxSIOp(self.get(a), self.get(b)))

    def split(self, point: SplitPoint, infinity: Value) -> Value:
        """The first iteration at which the comparisons of `point` change truth."""
        shifted = self.add(point.bound, point.addend)
        if not point.unsigned:
            return shifted
        bound = self.known(point.bound)
        if bound is not None:
            return infinity if bound < 0 else shifted
        negative = self.emit(arith.CmpiOp(point.bound, self.get(0), "slt"))
        return self.emit(arith.SelectOp(negative, self.get(infinity), self.get(shifted)))

    def align(self, point: Value, lb: Value, hi: Value, step: Value) -> Value:
        """The first iteration `lb + k*step >= point`, for `lb <= point <= hi`."""
        if self.known(step) == 1:
            return point
        known = [self.known(v) for v in (point, lb, hi, step)]
        if all(v is not None for v in known):
            p, lo, h, st = (v for v in known if v is not None)
            return min(h, lo + -(-(p - lo) // st) * st)
        distance = (
            self.get(point)
            if self.known(lb) == 0
            else self.emit(arith.SubiOp(self.get(point), self.get(lb)))
        )
        steps = self.emit(arith.CeilDivUIOp(distance, self.get(step)))
        offset = self.emit(arith.MuliOp(steps, self.get(step)))
        if self.known(lb) != 0:
            offset = self.emit(arith.AddiOp(self.get(lb), offset))
        return self.min(hi, offset)


def _same_order_statically(a: SplitPoint, b: SplitPoint) -> bool | None:
    """Whether `a`'s split is <= `b`'s for every bound value, when that is known."""
    if a.bound is b.bound and a.unsigned == b.unsigned:
        return a.addend <= b.addend
    x, y = constant_int(a.bound), constant_int(b.bound)
    if x is not None and y is not None and not a.unsigned and not b.unsigned:
        return x + a.addend <= y + b.addend
    return None


SplitKey = tuple[int, int, bool]
"""Equal for split points that are equal by construction (same bound value)."""


def _key(point: SplitPoint) -> SplitKey:
    return (id(point.bound), point.addend, point.unsigned)


def _representable(point: SplitPoint, loop_type: IndexType | IntegerType) -> bool:
    """False if a constant split point does not fit the loop's type (never split there)."""
    bound = constant_int(point.bound)
    if bound is None:
        return True
    width = 64 if isinstance(loop_type, IndexType) else loop_type.width.data
    return -(1 << (width - 1)) <= bound + point.addend < (1 << (width - 1))


@dataclass
class _Part:
    """One copy of the loop over `[lb, ub)`; `iv_below[k]` says whether all of its
    iterations are below split point `k` (or all at or above it)."""

    lb: Value
    ub: Value
    iv_below: dict[SplitKey, bool]


def _yields_storage(loop: scf.ForOp) -> bool:
    terminator = loop.body.block.last_op
    return terminator is not None and any(
        isinstance(v.owner, AllocOp | AliasOp) for v in terminator.operands
    )


def _partitionable(loop: scf.ForOp, points: Sequence[SplitPoint]) -> bool:
    if _yields_storage(loop):
        return False
    if contains_barrier(loop):
        # Every thread must reach the same barrier ops: only split where all agree.
        kernel = loop.parent_op()
        while kernel is not None and not isinstance(kernel, gpu.FuncOp):
            kernel = kernel.parent_op()
        if kernel is None:
            return False
        depends_on_thread = ThreadDependence(kernel)
        values = [loop.lb, loop.ub, loop.step, *(p.bound for p in points)]
        return not any(depends_on_thread(v) for v in values)
    return True


class _Partitioner:
    """Clones one loop into parts and chains their loop-carried values."""

    def __init__(self, loop: scf.ForOp, comparisons: Sequence[IvComparison]):
        self.loop = loop
        self.comparisons = comparisons
        self.bounds = _BoundBuilder(loop)
        self.created: list[scf.ForOp] = []

    def emit(self, part: _Part, init: Sequence[SSAValue], at: InsertPoint) -> scf.ForOp:
        """A clone of the loop over `part`, with its comparisons folded, at `at`."""
        mapping: dict[SSAValue, SSAValue] = {}
        clone = self.loop.clone(value_mapper=mapping)
        clone.operands[0] = self.bounds.get(part.lb)
        clone.operands[1] = self.bounds.get(part.ub)
        for index, value in enumerate(init):
            clone.operands[3 + index] = value
        Rewriter.insert_op(clone, at)
        folds: list[tuple[arith.CmpiOp, bool]] = []
        for comparison in self.comparisons:
            below = part.iv_below.get(_key(comparison.split))
            if below is None:
                continue
            cloned = mapping[comparison.cmp.result].owner
            assert isinstance(cloned, arith.CmpiOp)
            folds.append((cloned, below == comparison.prefix))
        fold_to_constants(clone.body, folds)
        self.created.append(clone)
        return clone

    def emit_versioned(
        self, condition: SSAValue, init: Sequence[SSAValue], if_true: _Part, if_false: _Part
    ) -> Sequence[SSAValue]:
        """`scf.if condition` around two clones, for a part whose folding depends on
        the run-time order of the split points."""
        types = [r.type for r in self.loop.results]
        if_op = scf.IfOp(condition, types, [scf.YieldOp()], [scf.YieldOp()])
        Rewriter.insert_op(if_op, InsertPoint.before(self.loop))
        for region, part in ((if_op.true_region, if_true), (if_op.false_region, if_false)):
            old_yield = region.block.last_op
            assert old_yield is not None
            inner = self.emit(part, init, InsertPoint.before(old_yield))
            Rewriter.replace_op(old_yield, scf.YieldOp(*inner.results))
        return if_op.results

    def finish(self, results: Sequence[SSAValue]) -> list[scf.ForOp]:
        for old, new in zip(self.loop.results, results, strict=True):
            old.replace_all_uses_with(new)
        Rewriter.erase_op(self.loop)
        return self.created


def _suffix_key(comparisons: Sequence[IvComparison]) -> SplitKey | None:
    return next((_key(c.split) for c in comparisons if not c.prefix), None)


def partition_loop(loop: scf.ForOp) -> list[scf.ForOp] | None:
    """Split `loop` at up to two split points; returns the new loops, or None."""
    loop_type = loop.lb.type
    if not isinstance(loop_type, IndexType | IntegerType):
        return None
    comparisons = [c for c in find_iv_comparisons(loop) if _representable(c.split, loop_type)]
    points: list[SplitPoint] = []
    for comparison in comparisons:
        if _key(comparison.split) not in (_key(p) for p in points) and len(points) < 2:
            points.append(comparison.split)
    if not points or not _partitionable(loop, points):
        return None
    if contains_barrier(loop):
        forget_layouts(loop)  # three copies of its barriers: the stages are renumbered
    # Put a split whose tests hold after it (`iv >= s`) first: then, in the usual
    # boundary case, the middle part is where every test holds.
    if len(points) == 2 and _suffix_key(comparisons) == _key(points[1]):
        points.reverse()

    p = _Partitioner(loop, comparisons)
    b = p.bounds
    lb, ub, step = loop.lb, loop.ub, loop.step
    hi = b.max(lb, ub)
    cuts = [b.align(b.max(lb, b.min(hi, b.split(s, hi))), lb, hi, step) for s in points]
    keys = [_key(s) for s in points]
    before_loop = InsertPoint.before(loop)

    if len(points) == 1:
        (k,) = keys
        first = p.emit(_Part(lb, cuts[0], {k: True}), loop.iter_args, before_loop)
        last = p.emit(_Part(cuts[0], ub, {k: False}), first.results, before_loop)
        return p.finish(last.results)

    k0, k1 = keys
    in_order = {k0: False, k1: True}  # cuts[0] <= iv < cuts[1]
    out_of_order = {k0: True, k1: False}  # cuts[1] <= iv < cuts[0]
    ordered = _same_order_statically(points[0], points[1])
    known_cuts = [b.known(cut) for cut in cuts]
    if ordered is None and known_cuts[0] is not None and known_cuts[1] is not None:
        ordered = known_cuts[0] <= known_cuts[1]
    if ordered is None:
        low, high = b.get(b.min(cuts[0], cuts[1])), b.get(b.max(cuts[0], cuts[1]))
        condition = b.emit(arith.CmpiOp(b.get(cuts[0]), b.get(cuts[1]), "sle"))
    else:
        low, high = (cuts[0], cuts[1]) if ordered else (cuts[1], cuts[0])
        low, high = b.get(low), b.get(high)
        condition = None
    prologue = p.emit(_Part(lb, low, {k0: True, k1: True}), loop.iter_args, before_loop)
    if condition is None:
        middle_part = _Part(low, high, in_order if ordered else out_of_order)
        middle = p.emit(middle_part, prologue.results, before_loop).results
    else:
        middle = p.emit_versioned(
            condition,
            prologue.results,
            _Part(low, high, in_order),
            _Part(low, high, out_of_order),
        )
    epilogue = p.emit(_Part(high, ub, {k0: False, k1: False}), middle, before_loop)
    return p.finish(epilogue.results)


@dataclass(frozen=True)
class PartitionLoopsPass(ModulePass):
    """Split `scf.for` loops whose body branches on the induction variable.

    A branch (`scf.if` or `arith.select`) whose condition is a comparison of the
    induction variable plus a constant with a loop-invariant bound (or an and/or of
    such comparisons) splits the loop into a prologue, a steady state and an
    epilogue, with the comparison replaced by its constant value in each, so the
    steady state has no boundary test. Split points are clamped to the loop's range
    with `arith.minsi`/`maxsi` (and rounded up to the step), so dynamic bounds work and
    empty parts cost one test. With two split points whose order is only known at run
    time, the middle part is versioned by an `scf.if` on that order; each execution
    still runs at most three loops.

    Guarantees:
    - Each part is a full clone of the original body: an allocation in the body is
      cloned with its dealloc, and the values its operands use (dynamic sizes, an
      `offset_pointer`'s offset) stay defined before it.
      Nothing is moved into or out of the body; new ops are only inserted before the
      loop and use values defined there.
    - A loop that yields an allocation, or a loop with a `gpu.barrier` whose bounds
      are not the same for every thread of the block, is left alone.
    - Per-Func aliases are not touched, so the pass composes with `fuse-gpu-allocs`
      and `flatten-aliases`. Splitting a loop with a barrier renumbers the barrier stages
      after it, so the `gpu_alloc.layout` records of that code are dropped
      (`flatten-aliases` derives them again).
    """

    name = "partition-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        done: set[Operation] = set()
        while True:
            loop = next(
                (o for o in op.walk() if isinstance(o, scf.ForOp) and o not in done),
                None,
            )
            if loop is None:
                return
            done.add(loop)
            if (created := partition_loop(loop)) is not None:
                done.update(created)
