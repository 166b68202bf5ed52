"""Executes one thread block of a kernel: all its threads at once, one numpy lane each.

Uniform values (the same in every thread: constants, block ids, loop counters of
block-level loops) are numpy scalars; thread-dependent values are arrays with one
lane per thread. Control flow that every active thread takes the same way runs once;
divergent `scf.if`/`scf.for`/`scf.while` and `cf` branches run each side under a mask
of active threads and merge the results, reconverging `cf` branches at their
immediate post-dominator (like a SIMT stack).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gpu_alloc.dialect.kernels import KernelFunction, is_kernel
from gpu_alloc.sim.arith import ARITH_OPS
from gpu_alloc.sim.control_flow import (
    Mask,
    is_empty,
    reconvergence_points,
    restrict,
    select,
    uniform_bool,
    uniform_int,
)
from gpu_alloc.sim.errors import BarrierDivergenceError, SimulationError, option
from gpu_alloc.sim.lanes import shuffle
from gpu_alloc.sim.memory_ops import MemoryOps
from gpu_alloc.sim.state import BlockState, LaunchState
from gpu_alloc.syntax.mlir_gpu_lanes import ShuffleOp
from xdsl.dialects import cf, func, gpu, scf
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import SymbolTable

Value = Any
Handler = Callable[[Operation, Mask], None]

_DIMENSIONS = {"x": 0, "y": 1, "z": 2}
_FUNCTION_EXITS = frozenset({"gpu.return", "func.return"})
MAX_CALL_DEPTH = 64
"""Nested `func.call`s the simulator follows before it stops (recursion)."""


class BlockInterpreter:
    """Runs a kernel body for every thread of one block, block after block."""

    def __init__(self, launch: LaunchState, kernel: KernelFunction):
        self.launch = launch
        self.kernel = kernel
        self.n_threads = launch.threads_per_block
        lanes = np.arange(self.n_threads, dtype=np.int64)
        bx, by, _ = launch.block
        self.thread_ids = (lanes % bx, (lanes // bx) % by, lanes // (bx * by))
        self.env: dict[SSAValue, Value] = {}
        self.block_state = BlockState((0, 0, 0), 0)
        self.memory = MemoryOps(self)
        self._reconvergence: dict[Region, dict[Block, Block | None]] = {}
        self._handlers: dict[str, Handler] = {
            "gpu.thread_id": self._thread_id,
            "gpu.block_id": self._block_id,
            "gpu.block_dim": self._block_dim,
            "gpu.grid_dim": self._grid_dim,
            "gpu.global_id": self._global_id,
            "gpu.lane_id": self._lane_id,
            "gpu.barrier": self._barrier,
            "gpu.shuffle": self._shuffle,
            "scf.if": self._scf_if,
            "scf.for": self._scf_for,
            "scf.while": self._scf_while,
            "func.call": self._call,
            **self.memory.handlers(),
        }
        self._call_depth = 0

    # ---- entry ------------------------------------------------------------------

    def run_block(self, block_id: tuple[int, int, int], arguments: Sequence[Value]) -> None:
        launch = self.launch
        gx, gy, _ = launch.grid
        linear = block_id[0] + gx * (block_id[1] + gy * block_id[2])
        self.block_state = BlockState(block_id, linear)
        self.env = {}
        for arena in launch.arenas_shared_by_blocks():
            self.block_state.track(arena)
        entry = self.kernel.body.blocks.first
        assert entry is not None
        attributions = self.memory.allocations.attribution_values(self.kernel)
        self._run_cfg([(entry, [*arguments, *attributions], None)], stop=None)

    # ---- regions and blocks -------------------------------------------------------

    def _run_ops(self, block: Block, mask: Mask) -> Operation:
        """Executes every op of `block` but its terminator, which it returns."""
        env = self.env
        handlers = self._handlers
        arith = ARITH_OPS
        active = self.n_threads if mask is None else int(mask.sum())
        terminator = block.last_op
        assert terminator is not None
        steps = 0
        for op in block.ops:
            if op is terminator:
                break
            steps += active
            name = op.name
            semantics = arith.get(name)
            if semantics is None and isinstance(op, UnregisteredOp):
                name = op.op_name.data  # arith.index_castui, which xDSL 0.75 lacks
                semantics = arith.get(name)
            if semantics is not None:
                env[op.results[0]] = semantics(op, [env[o] for o in op.operands])
                continue
            handler = handlers.get(name)
            if handler is None:
                self.launch.thread_steps += steps
                raise SimulationError(f"op '{name}' is not supported by the simulator", op)
            try:
                handler(op, mask)
            except SimulationError as error:
                error.op = error.op or op  # the innermost op it is about
                raise
        launch = self.launch
        launch.thread_steps += steps + active
        if launch.max_thread_steps is not None and launch.thread_steps > launch.max_thread_steps:
            raise SimulationError(
                f"stopped after {launch.max_thread_steps} thread-steps "
                f"({option('max_thread_steps', '--max-steps')})"
            )
        return terminator

    def _run_region(self, region: Region, arguments: Sequence[Value], mask: Mask) -> list[Value]:
        """Runs a single-block region (an scf body); returns its terminator's operands."""
        block = region.blocks.first
        assert block is not None
        for argument, value in zip(block.args, arguments, strict=True):
            self.env[argument] = value
        terminator = self._run_ops(block, mask)
        return [self.env[o] for o in terminator.operands]

    def _run_cfg(
        self,
        starts: list[tuple[Block, list[Value], Mask]],
        stop: Block | None,
        exits: list[tuple[list[Value], Mask]] | None = None,
    ) -> tuple[list[Value], Mask] | None:
        """Runs groups of threads from their start blocks until each reaches `stop`
        (or leaves the function: then, with `exits`, the values each group returns are
        added to it); returns the merged arguments and mask at `stop`."""
        arrived: list[tuple[list[Value], Mask]] = []
        pending = list(starts)
        while pending:
            block, arguments, mask = pending.pop()
            while True:
                if block is stop:
                    arrived.append((arguments, mask))
                    break
                for argument, value in zip(block.args, arguments, strict=True):
                    self.env[argument] = value
                terminator = self._run_ops(block, mask)
                if terminator.name in _FUNCTION_EXITS:
                    if exits is not None:
                        exits.append(([self.env[o] for o in terminator.operands], mask))
                    break
                targets = self._branch_targets(terminator, mask)
                if len(targets) == 1:
                    block, arguments, mask = targets[0]
                    continue
                meet = self._reconvergence_point(block)
                if meet is stop:
                    pending.extend(targets)
                    break
                merged = self._run_cfg(targets, meet, exits)
                if merged is None:
                    break
                assert meet is not None
                block, (arguments, mask) = meet, merged
        if not arrived:
            return None
        return _merge_arrivals(arrived, self.n_threads)

    def _reconvergence_point(self, block: Block) -> Block | None:
        region = block.parent
        assert region is not None
        if region not in self._reconvergence:
            self._reconvergence[region] = reconvergence_points(region)
        return self._reconvergence[region][block]

    def _branch_targets(
        self, terminator: Operation, mask: Mask
    ) -> list[tuple[Block, list[Value], Mask]]:
        """The groups of threads a `cf` terminator sends on, each with its block args."""
        env = self.env
        if terminator.name == "cf.br":
            return [(terminator.successors[0], [env[o] for o in terminator.operands], mask)]
        if isinstance(terminator, cf.ConditionalBranchOp):
            condition = env[terminator.cond]
            then_args = [env[o] for o in terminator.then_arguments]
            else_args = [env[o] for o in terminator.else_arguments]
            then_block, else_block = terminator.then_block, terminator.else_block
            taken = uniform_bool(condition, mask)
            if taken is True:
                return [(then_block, then_args, mask)]
            if taken is False:
                return [(else_block, else_args, mask)]
            return [
                (then_block, then_args, restrict(mask, condition, self.n_threads)),
                (else_block, else_args, restrict(mask, ~condition, self.n_threads)),
            ]
        if isinstance(terminator, cf.SwitchOp):
            return self._switch_targets(terminator, mask)
        raise SimulationError(
            f"terminator '{terminator.name}' is not supported by the simulator", terminator
        )

    def _switch_targets(
        self, switch: cf.SwitchOp, mask: Mask
    ) -> list[tuple[Block, list[Value], Mask]]:
        """One group of threads per case their flag selects (first match), then default."""
        env = self.env
        flag = env[switch.flag]
        values = switch.case_values.get_values() if switch.case_values is not None else ()
        segments = switch.case_operand_segments.get_values()
        operands = [env[o] for o in switch.case_operands]
        remaining = mask
        groups: list[tuple[Block, list[Value], Mask]] = []
        start = 0
        for value, block, count in zip(values, switch.case_blocks, segments, strict=True):
            arguments, start = operands[start : start + count], start + count
            if is_empty(remaining):
                break
            chosen = restrict(remaining, flag == value, self.n_threads)
            if not is_empty(chosen):
                groups.append((block, arguments, chosen))
                remaining = restrict(remaining, flag != value, self.n_threads)
        if not is_empty(remaining):
            groups.append(
                (switch.default_block, [env[o] for o in switch.default_operands], remaining)
            )
        return groups

    # ---- gpu --------------------------------------------------------------------------

    def _dimension(self, op: Operation) -> int:
        attribute = op.properties["dimension"]
        assert isinstance(attribute, gpu.DimensionAttr)
        return _DIMENSIONS[str(attribute.data)]

    def _thread_id(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = self.thread_ids[self._dimension(op)]

    def _block_id(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = np.int64(self.block_state.block_id[self._dimension(op)])

    def _block_dim(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = np.int64(self.launch.block[self._dimension(op)])

    def _grid_dim(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = np.int64(self.launch.grid[self._dimension(op)])

    def _global_id(self, op: Operation, mask: Mask) -> None:
        d = self._dimension(op)
        block_id = self.block_state.block_id[d]
        self.env[op.results[0]] = block_id * self.launch.block[d] + self.thread_ids[d]

    def _shuffle(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, ShuffleOp)
        n = self.n_threads
        value, offset, width = (np.broadcast_to(self.env[v], (n,)) for v in op.operands)
        result, valid = shuffle(op, value, offset, width, mask, self._lanes(op))
        self.env[op.shuffle_result], self.env[op.valid] = result, valid

    def _lane_id(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = np.arange(self.n_threads, dtype=np.int64) % self._lanes(op)

    def _lanes(self, op: Operation) -> int:
        """The device's warp or wavefront lanes, or an error where it has no fixed size."""
        if self.launch.lanes is None:
            raise SimulationError(
                f"'{op.name}' needs the sub-group size, which the device leaves open: "
                f"name a chip with {option('chip', '--chip')}",
                op,
            )
        return self.launch.lanes

    def _barrier(self, op: Operation, mask: Mask) -> None:
        if mask is not None and not mask.all():
            missing = int(np.argmin(mask))
            raise BarrierDivergenceError(
                f"gpu.barrier{_in_function(op)} reached by {int(mask.sum())} of "
                f"{self.n_threads} threads of block {self.block_state.block_id} (thread "
                f"{self.thread_triple(missing)} does not reach it): a deadlock on a GPU",
                op,
            )
        self.block_state.next_interval()

    # ---- calls --------------------------------------------------------------------

    def _call(self, op: Operation, mask: Mask) -> None:
        """`func.call` of a `func.func` (a device function, or IREE's workgroup code): the
        active threads run its body and get what each one returns."""
        assert isinstance(op, func.CallOp)
        callee = _callee(op)
        arguments = [self.env[v] for v in op.arguments]
        if self._call_depth >= MAX_CALL_DEPTH:
            raise SimulationError(f"calls nested more than {MAX_CALL_DEPTH} deep", op)
        entry = callee.body.blocks.first
        assert entry is not None
        caller_env, self.env = self.env, {}
        self._call_depth += 1
        exits: list[tuple[list[Value], Mask]] = []
        try:
            self._run_cfg([(entry, arguments, mask)], stop=None, exits=exits)
        finally:
            self.env = caller_env
            self._call_depth -= 1
        if op.results:
            results, _ = _merge_arrivals(exits, self.n_threads)
            for result, value in zip(op.results, results, strict=True):
                self.env[result] = value

    def thread_triple(self, lane: int) -> tuple[int, int, int]:
        return (
            int(self.thread_ids[0][lane]),
            int(self.thread_ids[1][lane]),
            int(self.thread_ids[2][lane]),
        )

    # ---- scf ----------------------------------------------------------------------

    def _scf_if(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, scf.IfOp)
        condition = self.env[op.cond]
        taken = uniform_bool(condition, mask)
        has_else = bool(op.false_region.blocks)
        if taken is not None:
            if taken:
                results = self._run_region(op.true_region, [], mask)
            elif has_else:
                results = self._run_region(op.false_region, [], mask)
            else:
                return
        else:
            then_mask = restrict(mask, condition, self.n_threads)
            else_mask = restrict(mask, ~condition, self.n_threads)
            then_results = self._run_region(op.true_region, [], then_mask)
            else_results = self._run_region(op.false_region, [], else_mask) if has_else else []
            results = [
                self._merge(then_mask, t, e)
                for t, e in zip(then_results, else_results, strict=True)
            ]
        for result, value in zip(op.results, results, strict=True):
            self.env[result] = value

    def _merge(self, mask: Mask, new: Value, old: Value) -> Value:
        if isinstance(new, np.ndarray | np.generic) and isinstance(old, np.ndarray | np.generic):
            return select(mask, new, old)
        if new is old:
            return new
        raise SimulationError("threads of one block disagree on a memref value; not supported")

    def _scf_for(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, scf.ForOp)
        env = self.env
        lower, upper, step = env[op.lb], env[op.ub], env[op.step]
        carried = [env[v] for v in op.iter_args]
        bounds = [uniform_int(v, mask) for v in (lower, upper, step)]
        if all(b is not None for b in bounds):
            lo, hi, st = bounds
            assert lo is not None and hi is not None and st is not None
            if st <= 0:
                raise SimulationError("scf.for with a step that is not positive")
            dtype = np.asarray(lower).dtype
            for i in range(lo, hi, st):
                carried = self._run_region(op.body, [dtype.type(i), *carried], mask)
        else:
            carried = self._divergent_for(op, lower, upper, step, carried, mask)
        for result, value in zip(op.results, carried, strict=True):
            env[result] = value

    def _divergent_for(
        self,
        op: scf.ForOp,
        lower: Value,
        upper: Value,
        step: Value,
        carried: list[Value],
        mask: Mask,
    ) -> list[Value]:
        """A loop whose trip count differs between threads: each thread iterates while
        its own induction variable is below its own bound."""
        n = self.n_threads
        iv = np.broadcast_to(np.asarray(lower), (n,)).copy()
        carried = [np.broadcast_to(np.asarray(v), (n,)).copy() for v in carried]
        active = restrict(mask, iv < upper, n)
        while not is_empty(active):
            updated = self._run_region(op.body, [iv, *carried], active)
            carried = [select(active, new, old) for new, old in zip(updated, carried, strict=True)]
            iv = select(active, iv + step, iv)
            active = restrict(active, iv < upper, n)
        return carried

    def _scf_while(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, scf.WhileOp)
        n = self.n_threads
        values = [self.env[v] for v in op.arguments]
        active = mask
        results: list[Value] | None = None
        while True:
            condition_operands = self._run_region(op.before_region, values, active)
            condition, forwarded = condition_operands[0], condition_operands[1:]
            going_on = uniform_bool(condition, active)
            if going_on is not None and active is mask:
                if not going_on:
                    results = forwarded
                    break
                values = self._run_region(op.after_region, forwarded, active)
                continue
            leaving = restrict(active, ~condition if going_on is None else not going_on, n)
            if not is_empty(leaving):
                results = (
                    [select(leaving, f, f) for f in forwarded]
                    if results is None
                    else [select(leaving, f, r) for f, r in zip(forwarded, results, strict=True)]
                )
            active = restrict(active, condition, n)
            if is_empty(active):
                break
            values = self._run_region(op.after_region, forwarded, active)
        assert results is not None
        for result, value in zip(op.results, results, strict=True):
            self.env[result] = value


def _callee(call: func.CallOp) -> func.FuncOp:
    """The `func.func` `call` calls: the symbol in the nearest symbol table that has it."""
    table: Operation | None = call.parent_op()
    name = call.callee
    while table is not None:
        if table.has_trait(SymbolTable) and (found := SymbolTable.lookup_symbol(table, name)):
            if not isinstance(found, func.FuncOp):
                raise SimulationError(f"func.call of {name}, a '{found.name}'", call)
            if not found.body.blocks:
                raise SimulationError(
                    f"func.call of {name}, a declaration: the simulator has no body to run", call
                )
            return found
        table = table.parent_op()
    raise SimulationError(f"func.call of unknown function {name}", call)


def _in_function(op: Operation) -> str:
    """` in 'f'` for an op in a called function (nothing in the kernel itself)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, func.FuncOp | gpu.FuncOp):
        parent = parent.parent_op()
    if parent is None or is_kernel(parent):
        return ""
    return f" in '{parent.sym_name.data}'"


def _merge_arrivals(
    arrived: list[tuple[list[Value], Mask]], n_threads: int
) -> tuple[list[Value], Mask]:
    """Joins the thread groups that reached one block: their masks and block args."""
    arguments, mask = arrived[0]
    for other_arguments, other_mask in arrived[1:]:
        arguments = [
            select(other_mask, o, a) for o, a in zip(other_arguments, arguments, strict=True)
        ]
        if mask is None or other_mask is None:
            mask = None
        else:
            combined = mask | other_mask
            mask = None if combined.all() else combined
    return arguments, mask
