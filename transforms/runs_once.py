"""One rule for "may run more than once per block": when a block-level buffer may be one.

Fusion (and lowering, on unfused IR) gives each block-level allocation one place for the
whole block: the storage is shared by every time the allocating code runs. That is
safe only where no two runs overlap, that is, where a barrier that every thread of the
block meets separates each run's accesses from the next's. Code may run more than once
per block in three ways, and the rule covers each:

1. **Loops.** An allocation made in a loop body: `scf.for`/`scf.while` are
   `loop_allocs`' (a barrier must close the back edge); a block of an unstructured body
   that lies on a `cf` cycle (`cf.br`/`cf.cond_br` back edges) is refused, since no
   barrier may be placed in unstructured control flow; any other op with regions
   (`affine.for`, an unknown op) is already refused as control flow the analyses do
   not model (`fuse.analysis`).
2. **Functions entered more than once.** A workgroup `func.func` that one kernel
   reaches through several call sites (calls from different kernels are different
   launches: each has its own shared memory), from a loop (of any form, in the caller or in any caller's
   caller), or from a function entered more than once itself. Its block-level
   allocations are one buffer for every call, so the calls must not overlap: its body
   (one block) must start or end with a barrier (`barrier_ops.is_barrier`) before or
   after every op that touches memory. The same barrier makes the function's own reuse
   (Funcs sharing bytes across a barrier inside it) safe across calls. Without it the
   function is accepted only if it holds no barrier and every call touches the same
   bytes from the same threads (`same_accesses_every_call`); otherwise
   `insert-barriers=over-limit|always` put a barrier at the end of its body where the
   whole block calls it (`fuse.reuse_barriers`), and fusion and lowering refuse it with a
   located diagnostic.
3. **Recursion.** A function that reaches itself through calls: the levels are live at
   once, so no single buffer can serve them. Refused.

`why_repeated` names the reason a unit may run more than once (None: at most once per
block); `check_runs_once` raises for the first allocation the rule refuses.
"""

from __future__ import annotations

from gpu_alloc.dialect import AllocOp, MemorySpace
from gpu_alloc.dialect.ops import SPACE_WORDS
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms.barrier_gaps import touches_memory
from gpu_alloc.transforms.barrier_ops import is_barrier, may_be_barrier
from gpu_alloc.transforms.block_level_code import (
    BlockLevelCode,
    block_level_code,
    enclosing_code,
    kernel_allocs,
)
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.kernel_ir import (
    BLOCK_UNIFORM_OPS,
    THREAD_ID_OPS,
    kernel_name,
    walk_ops,
)
from gpu_alloc.transforms.lifetimes import stage_map
from gpu_alloc.transforms.loop_allocs import (
    CarriedAllocation,
    alloc_accesses,
    check_hoistable,
    enclosing_loops,
    shapes_access,
)
from xdsl.dialects import func, gpu, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.traits import IsTerminator, is_side_effect_free


def cycle_blocks(region: Region) -> set[Block]:
    """The blocks of `region` that lie on a cycle of its control-flow graph."""
    blocks = list(region.blocks)
    successors = {
        b: [s for s in (b.last_op.successors if b.last_op else ()) if s.parent is region]
        for b in blocks
    }
    on_cycle: set[Block] = set()
    for start in blocks:
        seen: set[Block] = set()
        work = list(successors[start])
        while work:
            block = work.pop()
            if block is start:
                on_cycle.add(start)
                break
            if block not in seen:
                seen.add(block)
                work.extend(successors[block])
    return on_cycle


def _ancestor_in(op: Operation, region: Region) -> Operation | None:
    current: Operation | None = op
    while current is not None and current.parent_region() is not region:
        current = current.parent_op()
    return current


def in_cf_loop(op: Operation, code: Operation) -> bool:
    """Whether `op` lies (at any depth) in a block of a region between it and `code`
    that is on a `cf` cycle."""
    current: Operation | None = op
    while current is not None and current is not code:
        region = current.parent_region()
        if region is None:
            return False
        block = current.parent_block()
        if len(region.blocks) > 1 and block in cycle_blocks(region):
            return True
        current = region.parent_op()
    return False


def _in_loop(call: Operation, code: Operation) -> str | None:
    """Why `call` may run more than once per run of `code` (None: at most once)."""
    if in_cf_loop(call, code):
        return "a cf loop"
    parent = call.parent_op()
    while parent is not None and parent is not code:
        if not isinstance(parent, scf.IfOp | scf.ExecuteRegionOp):
            return f"an '{parent.name}'"
        parent = parent.parent_op()
    return None


class RunsOnce:
    """Answers `why_repeated` for the code of one module (its `CallGraph`), memoised."""

    def __init__(self, graph: CallGraph):
        self.graph = graph
        self._known: dict[Operation, str | None] = {}
        self._roots: dict[Operation, frozenset[Operation]] = {}

    def roots(self, code: Operation) -> frozenset[Operation]:
        """The code units the block enters first (kernels, launches, uncalled
        functions) from which `code` is reached: each is a launch of its own."""
        if code in self._roots:
            return self._roots[code]
        self._roots[code] = frozenset()  # a cycle adds nothing (recursion is refused)
        callers = [enclosing_code(c) for c in self.graph.calls.get(code, [])]
        found = [self.roots(c) for c in callers if c is not None]
        self._roots[code] = frozenset().union(*found) if found else frozenset({code})
        return self._roots[code]

    def why_repeated(self, code: Operation) -> str | None:
        """None if `code` runs at most once per block, else why it may run more often."""
        if code in self._known:
            return self._known[code]
        reason: str | None = None
        if isinstance(code, func.FuncOp):
            reached = {code, *self.graph.callees(code)}
            if any(enclosing_code(c) in reached for c in self.graph.calls.get(code, [])):
                reason = f"'{kernel_name(code)}' is called recursively"
            else:
                reason = self._calls_reason(code)
        self._known[code] = reason
        return reason

    def _calls_reason(self, code: func.FuncOp) -> str | None:
        name = kernel_name(code)
        calls = self.graph.calls.get(code, [])
        for root in self.roots(code):
            sites = [c for c in calls if root in self.roots(enclosing_code(c) or c)]
            if len(sites) > 1:
                return f"'{name}' is called from {len(sites)} call sites in '{kernel_name(root)}'"
        for call in calls:
            caller = enclosing_code(call)
            if caller is None:
                continue
            caller_name = kernel_name(caller)
            if (loop := _in_loop(call, caller)) is not None:
                return f"'{name}' is called inside {loop} in '{caller_name}'"
            if (reason := self.why_repeated(caller)) is not None:
                return f"'{name}' is called from '{caller_name}', and {reason}"
        return None


def closed_entry(code: Operation) -> bool:
    """Whether every run of `code` starts or ends with a barrier: in its one block, a
    barrier before the first op that touches memory, or after the last one."""
    if not isinstance(code, func.FuncOp | gpu.FuncOp) or len(code.body.blocks) != 1:
        return False
    ops = [o for o in code.body.blocks[0].ops if not o.has_trait(IsTerminator)]
    touching = [k for k, o in enumerate(ops) if touches_memory(o) and not is_barrier(o)]
    if not touching:
        return True
    return any(is_barrier(o) for o in ops[: touching[0]]) or any(
        is_barrier(o) for o in ops[touching[-1] + 1 :]
    )


class _CallInvariance:
    """Whether a value of `function` is the same, per thread, on every call of it: made
    from thread and block ids and constants only, or an argument every call passes the
    same operand-less op's result for (the same constant, the same thread id)."""

    def __init__(self, function: func.FuncOp, calls: list[func.CallOp]):
        self.function, self.calls = function, calls
        self.known: dict[SSAValue, bool] = {}

    def __call__(self, value: SSAValue) -> bool:
        if value not in self.known:
            self.known[value] = False  # a cycle proves nothing
            self.known[value] = self._solve(value)
        return self.known[value]

    def _solve(self, value: SSAValue) -> bool:
        if isinstance(value, BlockArgument):
            owner = value.block.parent_op()
            if owner is self.function:
                return self._same_argument(value.index)
            if isinstance(owner, scf.ForOp) and value.index == 0:
                return all(self(v) for v in (owner.lb, owner.ub, owner.step))
            return False
        owner = value.owner
        assert isinstance(owner, Operation)
        if isinstance(owner, THREAD_ID_OPS + BLOCK_UNIFORM_OPS):
            return True
        if owner.regions or not is_side_effect_free(owner):
            return False
        return all(self(v) for v in owner.operands)

    def _same_argument(self, index: int) -> bool:
        makers: list[tuple[str, object, object]] = []
        for call in self.calls:
            if index >= len(call.arguments):
                return False
            owner = call.arguments[index].owner
            if not isinstance(owner, Operation) or owner.operands or owner.regions:
                return False
            if not is_side_effect_free(owner) and not isinstance(owner, THREAD_ID_OPS):
                return False
            makers.append((owner.name, dict(owner.properties), dict(owner.attributes)))
        return all(m == makers[0] for m in makers)


def same_accesses_every_call(
    function: func.FuncOp, allocs: list[AllocOp], calls: list[func.CallOp]
) -> bool:
    """Every call of `function` touches the same bytes of its allocations from the same
    threads, and it holds no barrier (nor possible one): two calls' accesses in one
    barrier interval are then accesses one call makes in one interval (`loop_allocs`'
    rule 2, for calls instead of iterations)."""
    if any(may_be_barrier(op) for op in walk_ops(function)):
        return False
    invariant = _CallInvariance(function, calls)
    for alloc in allocs:
        try:
            accesses = alloc_accesses(alloc)
        except CarriedAllocation:
            return False
        for op, views in accesses:
            operands = [v for o in (op, *views) for v in o.operands if shapes_access(v)]
            if not all(invariant(v) for v in operands):
                return False
            parent = op.parent_op()
            while parent is not None and parent is not function:
                if isinstance(parent, scf.IfOp):
                    if not invariant(parent.cond):
                        return False
                elif isinstance(parent, scf.ForOp):
                    if not all(invariant(v) for v in (parent.lb, parent.ub, parent.step)):
                        return False
                else:
                    return False
                parent = parent.parent_op()
    return True


def check_runs_once(code: BlockLevelCode, allocs: list[AllocOp], runs_once: RunsOnce) -> None:
    """Raises, located at the allocation, for the first block-level allocation of
    `code` (`allocs`) that the rule of the module docstring refuses."""
    block_level = [a for a in allocs if a.space != MemorySpace.PRIVATE]
    if not block_level:
        return
    for alloc in block_level:
        if in_cf_loop(alloc, code):
            raise GpuAllocPassError(
                f"{_what(alloc)} is made in a loop of unstructured control flow (cf.br/"
                f"cf.cond_br back edge) in '{kernel_name(code)}': hoisted to the entry, one "
                "iteration's accesses would race with the next's, and no barrier may be "
                "inserted in unstructured control flow; write the loop as scf.for",
                alloc,
            )
    reason = runs_once.why_repeated(code)
    if reason is None:
        return
    alloc = block_level[0]
    if "recursively" in reason:
        raise GpuAllocPassError(
            f"{_what(alloc)} cannot be one buffer for the block: {reason}, and every "
            "level of the recursion would use the same storage while the outer ones are live",
            alloc,
        )
    calls = runs_once.graph.calls.get(code, [])
    if not closed_entry(code) and not (
        isinstance(code, func.FuncOp) and same_accesses_every_call(code, block_level, calls)
    ):
        raise GpuAllocPassError(
            f"{_what(alloc)} would be one buffer for every run of '{kernel_name(code)}': "
            f"{reason}, and no gpu.barrier at the start or end of its body separates one "
            "call's accesses from the next's; put a gpu.barrier at the end of "
            f"'{kernel_name(code)}'",
            alloc,
        )


def _what(alloc: AllocOp) -> str:
    return f"{SPACE_WORDS[alloc.space]} allocation '{alloc.alloc_name.data}'"


def check_module_runs_once(module: ModuleOp) -> None:
    """The rule for every block-level code unit of `module` as it stands (unfused IR
    included: `lower-gpu-allocs` gives each allocation one static place too), with the
    loop rule of `loop_allocs` for allocations made in `scf` loops; raises for the first
    allocation it refuses."""
    graph = CallGraph(module)
    runs_once = RunsOnce(graph)
    for unit in block_level_code(module):
        allocs = [a for a in kernel_allocs(unit) if a.space != MemorySpace.PRIVATE]
        check_runs_once(unit, allocs, runs_once)
        in_loops = [a for a in allocs if enclosing_loops(a, unit)]
        if in_loops:
            stages = stage_map(unit, graph.thread_dependence(unit))
            for alloc in in_loops:
                check_hoistable(unit, alloc, stages)
