"""Before every backend and the simulator: `affine`, `index`, `scf.forall` and
`scf.parallel` to `arith` and `scf.for`.

Kernels as IREE and MLIR's tests write them compute indices with `affine` and
`index` ops and loop with `scf.forall`/`scf.parallel`. Both backends
(`lowering.emit`) and the simulator first run `pre_lower`, which rewrites, with MLIR's
semantics:

- `affine.apply`/`min`/`max` to `arith` (`mod` is the non-negative remainder, as in
  MLIR's `-lower-affine`; `floordiv`/`ceildiv` are `arith.floordivsi`/`ceildivsi`),
  `affine.load`/`store` to `memref.load`/`store` (`affine.vector_load`/`store` to
  `vector.load`/`store`), `affine.for` to `scf.for` (the
  largest lower and the smallest upper bound of multi-result maps), `affine.if` to
  `scf.if` on the integer set's constraints, `affine.yield` to `scf.yield`,
  `affine.delinearize_index`/`linearize_index` to divisions and products;
- every `index` op to the `arith` op with the same semantics;
- `scf.forall` without a mapping and `scf.parallel` without reductions to nests of
  `scf.for` (both run every iteration in the thread that reaches them, as MLIR's
  `-convert-scf-to-cf` does);
- `scf.forall` mapped to blocks (`#gpu.block<...>`, in a kernel) to a block-strided nest
  of `scf.for` (`_distribute_over_blocks`: one iteration per block on a grid of the
  loop's sizes, as MLIR's `transform.gpu.map_forall_to_blocks` makes it, and each
  iteration exactly once on any other grid).

An `scf.forall` mapped to threads, warps or lanes (`#gpu.thread<x>`: only the transform
dialect distributes those), a block-mapped one in host code and an `scf.parallel` with
reductions are refused at the op. Every op a rewrite inserts is derived from the op it
replaces (`provenance`), so a later error points at the user's line.

xDSL's `lower-affine` is not used: it handles neither `min`/`max`/`if`, nor symbols in
load/store maps, and lowers `mod` to `arith.remsi`, which is negative for negative
operands where MLIR's `mod` is not.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.mappings import block_dimensions
from gpu_alloc.dialect.memory import is_workgroup_type
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.provenance import DerivingPattern
from gpu_alloc.syntax.mlir_affine import DYNAMIC, DelinearizeIndexOp, LinearizeIndexOp, MaxOp
from gpu_alloc.syntax.mlir_index import ARITH_EQUIVALENT
from gpu_alloc.syntax.mlir_scf import ForallOp, InParallelOp
from xdsl.dialects import affine, arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import AffineMapAttr, IndexType, IntegerAttr, ModuleOp, UnregisteredOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)
from xdsl.ir.affine.affine_set import AffineConstraintKind, AffineSet
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

_INDEX = IndexType()
_ARITH: dict[str, Callable[[SSAValue, SSAValue], Operation]] = {
    op.name: op
    for op in arith.Arith.operations  # pyright: ignore[reportAssignmentType]
}


class _Builder:
    """Ops inserted before one op, and the values they compute."""

    def __init__(self, rewriter: PatternRewriter):
        self.rewriter = rewriter
        self.constants: dict[int, SSAValue] = {}

    def add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op)
        return op.results[0]

    def constant(self, value: int) -> SSAValue:
        if value not in self.constants:
            self.constants[value] = self.add(arith.ConstantOp(IntegerAttr(value, _INDEX)))
        return self.constants[value]

    def value(self, value: SSAValue | int) -> SSAValue:
        return value if isinstance(value, SSAValue) else self.constant(value)

    def binary(self, name: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.add(_ARITH[name](lhs, rhs))

    def expr(
        self, e: AffineExpr, dims: Sequence[SSAValue], symbols: Sequence[SSAValue]
    ) -> SSAValue:
        if isinstance(e, AffineConstantExpr):
            return self.constant(e.value)
        if isinstance(e, AffineDimExpr):
            return dims[e.position]
        if isinstance(e, AffineSymExpr):
            return symbols[e.position]
        assert isinstance(e, AffineBinaryOpExpr)
        lhs = self.expr(e.lhs, dims, symbols)
        rhs = self.expr(e.rhs, dims, symbols)
        if e.kind is AffineBinaryOpKind.Add:
            return self.binary("arith.addi", lhs, rhs)
        if e.kind is AffineBinaryOpKind.Mul:
            return self.binary("arith.muli", lhs, rhs)
        if e.kind is AffineBinaryOpKind.FloorDiv:
            return self.binary("arith.floordivsi", lhs, rhs)
        if e.kind is AffineBinaryOpKind.CeilDiv:
            return self.binary("arith.ceildivsi", lhs, rhs)
        # mod: the remainder in [0, rhs) (rhs > 0 in affine maps), as MLIR computes it
        remainder = self.binary("arith.remsi", lhs, rhs)
        negative = self.add(arith.CmpiOp(remainder, self.constant(0), "slt"))
        shifted = self.binary("arith.addi", remainder, rhs)
        return self.add(arith.SelectOp(negative, shifted, remainder))

    def map_results(self, map_attr: AffineMapAttr, operands: Sequence[SSAValue]) -> list[SSAValue]:
        data = map_attr.data
        dims, symbols = operands[: data.num_dims], operands[data.num_dims :]
        return [self.expr(e, dims, symbols) for e in data.results]

    def fold(self, name: str, values: Sequence[SSAValue]) -> SSAValue:
        result = values[0]
        for value in values[1:]:
            result = self.binary(name, result, value)
        return result


def _basis(builder: _Builder, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[SSAValue]:
    values = iter(dynamic)
    return [next(values) if v == DYNAMIC else builder.constant(v) for v in static]


class _LowerAffineValues(RewritePattern):
    """`affine.apply`/`min`/`max`/`delinearize_index`/`linearize_index` to `arith`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        builder = _Builder(rewriter)
        if isinstance(op, affine.ApplyOp):
            results = builder.map_results(op.map, op.operands)
        elif isinstance(op, affine.MinOp | MaxOp):
            name = "arith.minsi" if isinstance(op, affine.MinOp) else "arith.maxsi"
            results = [builder.fold(name, builder.map_results(op.map, op.operands))]
        elif isinstance(op, DelinearizeIndexOp):
            basis = _basis(builder, op.static_basis.get_values(), op.dynamic_basis)
            results = _delinearize(builder, op.linear_index, basis, len(op.results))
        elif isinstance(op, LinearizeIndexOp):
            basis = _basis(builder, op.static_basis.get_values(), op.dynamic_basis)
            results = [_linearize(builder, list(op.multi_index), basis)]
        else:
            return
        rewriter.replace(op, [], results)


def _delinearize(
    builder: _Builder, index: SSAValue, basis: list[SSAValue], count: int
) -> list[SSAValue]:
    """MLIR's `delinearize_index`: with as many results as basis elements the first is
    not reduced modulo its bound; with one more, it is the quotient left over."""
    results: list[SSAValue] = []
    remaining = index
    bounds = basis if count == len(basis) + 1 else basis[1:]
    for bound in reversed(bounds):
        results.append(builder.binary("arith.remui", remaining, bound))
        remaining = builder.binary("arith.divui", remaining, bound)
    results.append(remaining)
    return list(reversed(results))


def _linearize(builder: _Builder, indices: list[SSAValue], basis: list[SSAValue]) -> SSAValue:
    bounds = basis if len(basis) == len(indices) else [builder.constant(0), *basis]
    total = indices[0]
    for index, bound in zip(indices[1:], bounds[1:], strict=True):
        total = builder.binary("arith.addi", builder.binary("arith.muli", total, bound), index)
    return total


class _LowerAffineMemory(RewritePattern):
    """`affine.load`/`store` to `memref.load`/`store` and `affine.vector_load`/`store` to
    `vector.load`/`store`, at the map's results (as MLIR's `-lower-affine`); the op's
    attributes (`alignment`, ...) go with it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        builder = _Builder(rewriter)
        new: Operation
        if isinstance(op, affine.LoadOp):
            indices = _memory_indices(builder, op.map, list(op.indices))
            new = memref.LoadOp.get(op.memref, indices)
        elif isinstance(op, affine.StoreOp):
            indices = _memory_indices(builder, op.map, list(op.indices))
            new = memref.StoreOp.get(op.value, op.memref, indices)
        elif isinstance(op, affine.VectorLoadOp):
            indices = _memory_indices(builder, op.map, list(op.indices))
            new = vector.LoadOp(op.memref, indices, op.result.type)
        elif isinstance(op, affine.VectorStoreOp):
            indices = _memory_indices(builder, op.map, list(op.indices))
            new = vector.StoreOp(op.value, op.memref, indices)
        else:
            return
        new.attributes.update(op.attributes)
        rewriter.replace(op, new)


def _memory_indices(
    builder: _Builder, map_attr: AffineMapAttr | None, operands: list[SSAValue]
) -> list[SSAValue]:
    return operands if map_attr is None else builder.map_results(map_attr, operands)


class _LowerAffineControl(RewritePattern):
    """`affine.for` to `scf.for`, `affine.if` to `scf.if`, `affine.yield` to `scf.yield`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        builder = _Builder(rewriter)
        if isinstance(op, affine.ForOp):
            lower = builder.fold(
                "arith.maxsi", builder.map_results(op.lowerBoundMap, op.lowerBoundOperands)
            )
            upper = builder.fold(
                "arith.minsi", builder.map_results(op.upperBoundMap, op.upperBoundOperands)
            )
            step = builder.constant(op.step.value.data)
            body = rewriter.move_region_contents_to_new_regions(op.body)
            rewriter.replace(op, scf.ForOp(lower, upper, step, list(op.inits), body))
        elif isinstance(op, affine.IfOp):
            condition = _set_condition(builder, op.condition.data, list(op.args))
            then_region = rewriter.move_region_contents_to_new_regions(op.then_region)
            else_region = rewriter.move_region_contents_to_new_regions(op.else_region)
            new = scf.IfOp(condition, op.result_types, then_region, else_region)
            rewriter.replace(op, new)
        elif isinstance(op, affine.YieldOp):
            rewriter.replace(op, scf.YieldOp(*op.operands))


def _set_condition(builder: _Builder, integer_set: AffineSet, operands: list[SSAValue]) -> SSAValue:
    """True when every constraint (`e >= 0`, `e <= 0`, `e == 0`) of the set holds."""
    dims, symbols = operands[: integer_set.num_dims], operands[integer_set.num_dims :]
    condition = builder.add(arith.ConstantOp(IntegerAttr(1, 1)))
    for constraint in integer_set.constraints:
        lhs = builder.expr(constraint.lhs, dims, symbols)
        rhs = builder.expr(constraint.rhs, dims, symbols)
        predicate = {
            AffineConstraintKind.ge: "sge",
            AffineConstraintKind.le: "sle",
            AffineConstraintKind.eq: "eq",
        }[constraint.kind]
        holds = builder.add(arith.CmpiOp(lhs, rhs, predicate))
        condition = builder.add(arith.AndIOp(condition, holds))
    return condition


class _LowerIndexOps(RewritePattern):
    """Every `index` op to its `arith` twin (`mlir_index.ARITH_EQUIVALENT`)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        target = ARITH_EQUIVALENT.get(op.name)
        if target is None:
            return
        if target in _ARITH:
            new = _ARITH[target].create(
                operands=op.operands, result_types=op.result_types, properties=op.properties
            )
        else:  # arith.index_castui: not in xDSL 0.75; both backends know it by name
            new = UnregisteredOp.with_name(target).create(
                operands=op.operands, result_types=op.result_types
            )
        rewriter.replace(op, new)


class _LowerParallelLoops(RewritePattern):
    """`scf.forall` (unmapped or mapped to blocks, no outputs) and `scf.parallel` (no
    reductions) to nests of `scf.for`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, ForallOp):
            if op.outputs:
                raise GpuAllocPassError("an scf.forall with shared outputs is not lowered", op)
            mapped = bool(op.mapping is not None and op.mapping.data)
            dimensions = block_dimensions(op)
            if mapped and dimensions is None:
                raise GpuAllocPassError(
                    "an scf.forall with a mapping distributes its iterations over "
                    f"{op.mapping.data[0]}s, which only the transform dialect lowers "  # pyright: ignore[reportOptionalMemberAccess]
                    "(transform.gpu.map_nested_forall_to_threads)",
                    op,
                )
            builder = _Builder(rewriter)
            value = builder.value
            bounds = [(value(lb), value(ub), value(step)) for lb, ub, step in op.bounds()]
            if dimensions is None:
                _nest(rewriter, op, bounds, InParallelOp)
            else:
                _distribute_over_blocks(builder, op, bounds, dimensions)
        elif isinstance(op, scf.ParallelOp):
            if op.initVals:
                raise GpuAllocPassError("an scf.parallel with reductions is not lowered", op)
            bounds = list(zip(op.lowerBound, op.upperBound, op.step, strict=True))
            _nest(rewriter, op, bounds, scf.ReduceOp)


_Bounds = tuple[SSAValue, SSAValue, SSAValue]
_DIMENSIONS = ("x", "y", "z")


def _distribute_over_blocks(
    builder: _Builder, op: ForallOp, bounds: list[_Bounds], dimensions: list[str]
) -> None:
    """An `scf.forall` mapped to blocks (`#gpu.block<x|y|z|linear_dim_N>`) as a
    block-strided `scf.for` nest: block `b` runs iterations `b`, `b + grid`, `b + 2 *
    grid`, ... of each mapped dimension (the linear block id over the iterations in
    `linear_dim` order, `linear_dim_0` fastest). A grid of the forall's sizes runs one
    iteration per block, as MLIR's `transform.gpu.map_forall_to_blocks` makes it; any
    other grid still runs every iteration exactly once. A block running several
    iterations reuses its workgroup memory, so a `gpu.barrier` ends each iteration whose
    body touches workgroup memory (the loop is block-uniform: every thread of the block
    reaches it). MLIR's `--convert-scf-to-cf` ignores the mapping and runs every
    iteration in every block: the same results for independent iterations, at the grid's
    size times the work."""
    _check_device_code(op)
    linear = all(d.startswith("linear_dim_") for d in dimensions)
    distinct = len(set(dimensions)) == len(dimensions) == len(bounds)
    if not distinct or not (linear or all(d in _DIMENSIONS for d in dimensions)):
        raise GpuAllocPassError(
            "an scf.forall mapped to blocks maps each loop to its own block dimension "
            f"or all of them linearly, not {', '.join(dimensions)}",
            op,
        )
    counts = [
        builder.binary("arith.ceildivsi", builder.binary("arith.subi", ub, lb), step)
        for lb, ub, step in bounds
    ]
    if linear:
        linear_id, n_blocks = _linear_block(builder)
        loops = [(linear_id, builder.fold("arith.muli", counts), n_blocks)]
    else:
        loops = [
            (
                _block_value(builder, gpu.BlockIdOp, d),
                count,
                _block_value(builder, gpu.GridDimOp, d),
            )
            for d, count in zip(dimensions, counts, strict=True)
        ]
    bodies = [Block(arg_types=[_INDEX]) for _ in loops]
    for outer, inner, (first, end, stride) in zip(bodies, bodies[1:], loops[1:], strict=False):
        outer.add_op(scf.ForOp(first, end, stride, [], Region(inner)))
        outer.add_op(scf.YieldOp())
    innermost = bodies[-1]
    inside = _AppendingBuilder(innermost)
    if linear:
        order = sorted(
            range(len(dimensions)), key=lambda i: -int(dimensions[i].removeprefix("linear_dim_"))
        )
        digits = _delinearize(inside, bodies[0].args[0], [counts[i] for i in order], len(order))
        positions = [digits[order.index(i)] for i in range(len(dimensions))]
    else:
        positions = [b.args[0] for b in bodies]
    body = op.regions[0].block
    for iv, position, (lb, _, step) in zip(body.args, positions, bounds, strict=False):
        offset = inside.binary("arith.muli", position, step)
        iv.replace_all_uses_with(inside.binary("arith.addi", lb, offset))
    rewriter = builder.rewriter
    if isinstance(body.last_op, InParallelOp):
        rewriter.erase(body.last_op)
    for inner_op in list(body.ops):
        inner_op.detach()
        innermost.add_op(inner_op)
    if _touches_workgroup_memory(innermost):
        innermost.add_op(gpu.BarrierOp())
    innermost.add_op(scf.YieldOp())
    first, end, stride = loops[0]
    rewriter.replace(op, scf.ForOp(first, end, stride, [], Region(bodies[0])))


class _AppendingBuilder(_Builder):
    """A `_Builder` whose ops go at the end of `block`."""

    def __init__(self, block: Block):
        self.block = block
        self.constants = {}

    def add(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0]


def _block_value(
    builder: _Builder, op_type: type[gpu.BlockIdOp | gpu.GridDimOp], dim: str
) -> SSAValue:
    return builder.add(op_type(gpu.DimensionAttr(gpu.DimensionEnum(dim))))


def _linear_block(builder: _Builder) -> tuple[SSAValue, SSAValue]:
    """The block's linear id (`x` fastest) and the number of blocks in the grid."""
    ids = [_block_value(builder, gpu.BlockIdOp, d) for d in _DIMENSIONS]
    sizes = [_block_value(builder, gpu.GridDimOp, d) for d in _DIMENSIONS]
    linear = _linearize(builder, ids[::-1], sizes[::-1])
    return linear, builder.fold("arith.muli", sizes)


def _check_device_code(op: Operation) -> None:
    """A block-mapped loop in host code becomes a `gpu.launch` only with a block size,
    which the IR does not give."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, gpu.ModuleOp | gpu.LaunchOp) or is_kernel(parent):
            return
        parent = parent.parent_op()
    raise GpuAllocPassError(
        "an scf.forall mapped to blocks outside a kernel becomes a gpu.launch only with "
        "a block size, which the IR does not give (MLIR: "
        "transform.gpu.map_forall_to_blocks generate_gpu_launch)",
        op,
    )


def _touches_workgroup_memory(block: Block) -> bool:
    """Whether an op in `block` uses or makes a workgroup memref, or calls a function
    (which may)."""
    for op in block.walk():
        if op.name == "func.call":
            return True
        values = [*op.operands, *op.results]
        if any(is_workgroup_type(v.type) for v in values):
            return True
    return False


def _nest(
    rewriter: PatternRewriter,
    op: Operation,
    bounds: list[tuple[SSAValue, SSAValue, SSAValue]],
    terminator: type[Operation],
) -> None:
    """Replaces a parallel loop by `scf.for` loops over `bounds`, outermost first; its
    body (without its terminator) goes into the innermost loop."""
    body = op.regions[0].block
    ivs = list(body.args[: len(bounds)])
    last = body.last_op
    if isinstance(last, terminator):
        rewriter.erase(last)
    blocks = [Block(arg_types=[_INDEX]) for _ in bounds]
    for outer, inner, bound in zip(blocks, blocks[1:], bounds[1:], strict=False):
        outer.add_op(scf.ForOp(bound[0], bound[1], bound[2], [], Region(inner)))
        outer.add_op(scf.YieldOp())
    innermost = blocks[-1]
    for iv, arg in zip(ivs, [b.args[0] for b in blocks], strict=True):
        iv.replace_all_uses_with(arg)
    for inner_op in list(body.ops):
        inner_op.detach()
        innermost.add_op(inner_op)
    innermost.add_op(scf.YieldOp())
    lower, upper, step = bounds[0]
    rewriter.replace(op, scf.ForOp(lower, upper, step, [], Region(blocks[0])))


PRE_LOWERED_OPS = frozenset(
    {
        "affine.apply",
        "affine.min",
        "affine.max",
        "affine.load",
        "affine.store",
        "affine.vector_load",
        "affine.vector_store",
        "affine.for",
        "affine.if",
        "affine.yield",
        "affine.delinearize_index",
        "affine.linearize_index",
        "scf.forall",
        "scf.forall.in_parallel",
        "scf.parallel",
        "scf.reduce",
        *ARITH_EQUIVALENT,
    }
)
"""The ops `pre_lower` rewrites away (so neither backend meets them)."""


def pre_lower(module: ModuleOp) -> None:
    """Rewrites `module` in place (see the module docstring)."""
    patterns: list[RewritePattern] = [
        _LowerParallelLoops(),
        _LowerAffineControl(),
        _LowerAffineMemory(),
        _LowerAffineValues(),
        _LowerIndexOps(),
    ]
    deriving: list[RewritePattern] = [
        DerivingPattern(p) for p in patterns
    ]  # errors point at the user's op
    PatternRewriteWalker(GreedyRewritePatternApplier(deriving)).rewrite_module(module)
