"""Queries about GPU kernels in the IR contract's form, shared by the passes.

A kernel is a `gpu.func` with the `kernel` unit property (xDSL's spelling) or the
`gpu.kernel` unit attribute (MLIR's): `syntax.mlir_gpu_kernels.is_kernel`. Its body
runs once per thread; code outside thread-dependent control flow is "block level". A
`gpu.launch` body is block-level code too: its entry block's arguments are MLIR's
(`LAUNCH_THREAD_IDS` are the thread ids, the others block ids and grid/block sizes,
uniform in a block), and values it uses from above the launch are the same for every
thread.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from gpu_alloc.dialect.mappings import loop_mapping
from gpu_alloc.syntax.mlir_gpu_lanes import ShuffleOp
from gpu_alloc.transforms.barrier_ops import is_barrier
from xdsl.dialects import func, gpu, scf
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.traits import is_side_effect_free

THREAD_ID_OPS: tuple[type[Operation], ...] = (
    gpu.ThreadIdOp,
    gpu.LaneIdOp,
    gpu.GlobalIdOp,
    ShuffleOp,  # another lane's value, and whether that lane is in range
)
"""Ops whose value differs between the threads of one block."""

BLOCK_UNIFORM_OPS: tuple[type[Operation], ...] = (
    gpu.BlockIdOp,
    gpu.BlockDimOp,
    gpu.GridDimOp,
)
"""Ops without memory effects whose value is the same for every thread of a block."""


Kernel = gpu.FuncOp | func.FuncOp | gpu.LaunchOp
"""Block-level code `fuse-gpu-allocs` fuses: a `gpu.func` kernel, a workgroup-level
`func.func` (IREE's), or a `gpu.launch` body."""

LAUNCH_THREAD_IDS = range(3, 6)
"""The thread ids x, y, z among a `gpu.launch` body's entry arguments (MLIR's order:
block ids 0-2, thread ids 3-5, grid sizes 6-8, block sizes 9-11, then cluster ids and
sizes when the launch has clusters, then the workgroup and private attributions)."""


def kernel_name(kernel: Operation) -> str:
    """A function's symbol; `gpu.launch in f` for a launch body (f: its function)."""
    if isinstance(kernel, gpu.FuncOp | func.FuncOp):
        return kernel.sym_name.data
    parent = kernel.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp | gpu.FuncOp):
        parent = parent.parent_op()
    return f"{kernel.name} in {parent.sym_name.data}" if parent is not None else kernel.name


def launch_thread_id(value: SSAValue) -> bool:
    """Whether `value` is a thread id argument of a `gpu.launch` body."""
    if not isinstance(value, BlockArgument) or value.index not in LAUNCH_THREAD_IDS:
        return False
    launch = value.block.parent_op()
    return isinstance(launch, gpu.LaunchOp) and launch.body.blocks[0] is value.block


def next_power_of_two(n: int) -> int:
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def enclosing_ops(op: Operation, stop: Operation) -> Iterator[Operation]:
    """The ops strictly between `op` and its ancestor `stop`, innermost first."""
    parent = op.parent_op()
    while parent is not None and parent is not stop:
        yield parent
        parent = parent.parent_op()


def walk_ops(op: Operation) -> Iterator[Operation]:
    """`op` and every op nested in it, in program order, without recursion (xDSL's
    `Operation.walk` nests one generator per region level and hits Python's recursion
    limit on deeply nested kernels)."""
    stack: list[Iterator[Operation]] = [iter((op,))]
    while stack:
        current = next(stack[-1], None)
        if current is None:
            stack.pop()
            continue
        yield current
        if current.regions:
            stack.append(
                nested
                for region in current.regions
                for block in region.blocks
                for nested in block.ops
            )


def ops_with_barriers(root: Operation, extra: Iterable[Block] = ()) -> set[Operation]:
    """Every op under `root` (itself included) that contains a barrier
    (`barrier_ops.is_barrier`), or one of the blocks `extra` (where a barrier is
    supposed: `lifetimes.stage_map`'s hypothetical barriers)."""
    found: set[Operation] = set()
    starts = [op for op in walk_ops(root) if is_barrier(op)]
    starts += [op for op in (b.parent_op() for b in extra) if op is not None]
    for op in starts:
        current: Operation | None = op
        while current is not None and current not in found:
            found.add(current)
            current = None if current is root else current.parent_op()
    return found


def contains_barrier(op: Operation) -> bool:
    return any(is_barrier(o) for o in walk_ops(op))


class ThreadDependence:
    """Answers whether a value may differ between the threads of one block.

    Solved once per kernel as a fixed point over the whole body (no recursion, so any
    nesting depth works), starting from "every value is uniform" and marking values
    dependent until nothing changes. A value is thread-dependent if it is a thread id,
    is read from memory or made by an op with other effects, is computed from a
    dependent value, or is a block argument the analysis does not model (blocks of an
    unstructured body, regions of unknown ops). Structured control flow is modelled:

    - `scf.if` results: dependent iff the condition or a value yielded for that result
      by either branch is;
    - `scf.for`: the induction variable, iteration arguments and results depend on
      the bounds and step, and the iteration arguments and results on their initial
      value and the value yielded for them;
    - `scf.while`: the "before" arguments depend on the initial values and on what the
      "after" region yields; the "after" arguments and the results on what
      `scf.condition` forwards and on its condition; so a counter that starts at a
      constant and steps by a constant is uniform.

    In a `gpu.launch` body the thread id arguments are dependent and the values it uses
    from above the launch are uniform. A function's entry arguments are uniform except
    those in `dependent_arguments` (a device function's caller may pass a thread id:
    `call_graph.CallGraph.thread_dependence` says which). Values the analysis has not
    seen (made after it ran) count as dependent.
    """

    def __init__(self, kernel: Kernel, dependent_arguments: Sequence[int] = ()):
        self._known: set[SSAValue] = set()
        self._dependent: set[SSAValue] = set()
        self._feeds: dict[SSAValue, list[SSAValue]] = {}
        seeds: list[SSAValue] = []
        captures = isinstance(kernel, gpu.LaunchOp)
        for op in walk_ops(kernel):
            self._known.update(op.results)
            for region in op.regions:
                for block in region.blocks:
                    self._known.update(block.args)
            if op is not kernel:
                seeds += self._model(op)
                if captures:  # values from above a launch are uniform
                    self._known.update(v for v in op.operands if not kernel.is_ancestor(_owner(v)))
        for block in list(kernel.body.blocks)[1:]:
            seeds += block.args
        if isinstance(kernel, gpu.LaunchOp) and kernel.body.blocks:
            seeds += [kernel.body.blocks[0].args[i] for i in LAUNCH_THREAD_IDS]
        elif kernel.body.blocks:
            entry_args = kernel.body.blocks[0].args
            seeds += [entry_args[i] for i in dependent_arguments if i < len(entry_args)]
        self._propagate(seeds)

    def __call__(self, value: SSAValue) -> bool:
        return value in self._dependent or value not in self._known

    def _depends(self, targets: Sequence[SSAValue], sources: Sequence[SSAValue]) -> None:
        for source in sources:
            self._feeds.setdefault(source, []).extend(targets)

    def _model(self, op: Operation) -> list[SSAValue]:
        """Records what `op`'s results and region arguments depend on; returns the
        values that are dependent whatever their inputs."""
        if isinstance(op, THREAD_ID_OPS):
            return list(op.results)
        if isinstance(op, BLOCK_UNIFORM_OPS):
            return []
        if isinstance(op, scf.IfOp):
            self._depends(op.results, [op.cond])
            for region in op.regions:
                for block in region.blocks:
                    self._model_yield(block, op.results)
            return []
        if isinstance(op, scf.ForOp):
            body = op.body.block
            self._depends([*body.args, *op.results], [op.lb, op.ub, op.step])
            for k, init in enumerate(op.iter_args):
                self._depends([body.args[k + 1], op.results[k]], [init])
            self._model_yield(body, body.args[1:])
            self._model_yield(body, op.results)
            return []
        if isinstance(op, scf.WhileOp):
            return self._model_while(op)
        if (mapping := loop_mapping(op)) is not None and mapping.uniform:
            # a block-mapped loop: its induction variables follow its bounds
            self._depends([a for r in op.regions for b in r.blocks for a in b.args], op.operands)
            return list(op.results)
        if op.regions:
            return [*op.results, *(a for r in op.regions for b in r.blocks for a in b.args)]
        if not is_side_effect_free(op):
            return list(op.results)
        self._depends(op.results, op.operands)
        return []

    def _model_yield(self, block: Block, targets: Sequence[SSAValue]) -> None:
        terminator = block.last_op
        if terminator is None:
            return
        for target, value in zip(targets, terminator.operands, strict=False):
            self._depends([target], [value])

    def _model_while(self, op: scf.WhileOp) -> list[SSAValue]:
        before = op.before_region.blocks[0]
        after = op.after_region.blocks[0]
        for k, init in enumerate(op.arguments):
            self._depends([before.args[k]], [init])
        self._model_yield(after, before.args)
        condition = before.last_op
        if not isinstance(condition, scf.ConditionOp):
            return [*before.args, *after.args, *op.results]
        exits = [*after.args, *op.results, *before.args]
        self._depends(exits, [condition.condition])
        for k, value in enumerate(condition.args):
            self._depends([after.args[k], op.results[k]], [value])
        return []

    def _propagate(self, seeds: list[SSAValue]) -> None:
        work = list(seeds)
        while work:
            value = work.pop()
            if value in self._dependent:
                continue
            self._dependent.add(value)
            work.extend(self._feeds.get(value, ()))


def _owner(value: SSAValue) -> Operation:
    """The op that defines `value`, or whose region has it as a block argument."""
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        assert owner is not None
        return owner
    assert isinstance(value.owner, Operation)
    return value.owner


def is_thread_dependent_control(op: Operation, depends_on_thread: ThreadDependence) -> bool:
    """Whether the threads of a block may take different paths through `op`'s regions:
    an `scf.if` on a dependent condition, an `scf.for` with dependent bounds or step,
    an `scf.while` whose `scf.condition` is dependent, a parallel loop that is not
    uniform within a block by its mapping (`dialect.mappings`) or has dependent bounds,
    or any other op with regions."""
    if (mapping := loop_mapping(op)) is not None:
        return not mapping.uniform or any(depends_on_thread(v) for v in op.operands)
    if isinstance(op, scf.IfOp):
        return depends_on_thread(op.cond)
    if isinstance(op, scf.ForOp):
        return any(depends_on_thread(v) for v in (op.lb, op.ub, op.step))
    if isinstance(op, scf.WhileOp):
        condition = op.before_region.blocks[0].last_op
        return not isinstance(condition, scf.ConditionOp) or depends_on_thread(condition.condition)
    return True


def why_thread_dependent(op: Operation) -> str:
    """How a refusal names the thread-dependent control flow `op`: its name, and for a
    parallel loop what its mapping says."""
    mapping = loop_mapping(op)
    if mapping is None or mapping.uniform:
        return f"'{op.name}'"
    return f"'{op.name}', {mapping.reason}"
