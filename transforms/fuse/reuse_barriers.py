"""The barriers `fuse-gpu-allocs{insert-barriers=never|over-limit|always}` inserts.

Two kinds, both only at positions every thread of the block reaches together
(`barrier_gaps`), and only in code the whole block enters (`call_graph`: not in a
function some call site may reach from thread-dependent control flow, nor one whose
callers the pass cannot see):

- **Back edges** (`over-limit` and `always`): a Func made in a loop body whose
  iterations would race once it is hoisted to the entry (`loop_allocs`) gets a barrier
  at the end of that loop's body. With `never`, or where no barrier may go, fusion
  refuses the Func with a located diagnostic instead.
- **Reuse**: two shared Funcs share bytes only when a barrier separates their accesses
  on every path (`lifetimes`). The planner measures (`analysis.plan_kernel`
  with the barriers supposed, not inserted: `lifetimes.stage_map`'s hypothetical
  barriers): it starts from a barrier at
  every candidate position and, innermost loops first, drops each one whose removal
  does not grow the backing (`always`) or keeps it within `max-shared-bytes` minus what
  the code's callees take (`over-limit`). Barriers are not monotone (a barrier at the
  start of both branches of an `scf.if` puts the branches back in one stage), so the
  sweep keeps the smallest backing it meets, not the all-barrier one. Then it drops, one
  at a time, any barrier without which the backing stays as small (`always`) or within
  the limit (`over-limit`). The limit holds for a kernel with the functions it calls
  (`over-limit` plans callees first, each within the limit less its own callees' bytes;
  a caller that does not fit even at its smallest has its callees come down by what it
  lacks, `_choose_reuse`). A dynamic size with a static bound counts at the bound.

The planning is a pure what-if, so it ends by construction: each loop's back edge is
planned at most once (a Func whose loop that barrier does not close is refused), the
sweep tries each reuse position once, and the final drop removes one barrier a round.
No IR changes until every unit's plan is final; then each planned barrier is inserted
once. Every unit of code is planned on its own (a `gpu.launch` in a function is code of its
own: its barriers are not the function's) before any reuse barrier is inserted, so each
kept barrier's remark is true of the module the pass leaves: the backing without that
barrier (the others kept) and with it. `always` inserts nothing if the barriers do not
lower the static shared backing; `over-limit` inserts no reuse barrier if the code fits
without, or does not fit with the best set it finds (the limit error stays); `never`
inserts nothing. Each inserted barrier is reported on stderr.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpu_alloc.dialect import AllocOp, MemorySpace
from gpu_alloc.dialect.ops import SPACE_WORDS
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.remarks import emit_remark
from gpu_alloc.transforms.barrier_gaps import (
    Gap,
    InsertedBarrier,
    candidate_gaps,
    end_of_block,
)
from gpu_alloc.transforms.block_level_code import BlockLevelCode, kernel_allocs
from gpu_alloc.transforms.block_sizes import bounded_byte_size
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.fuse.analysis import FuseOptions, KernelPlan, plan_kernel
from gpu_alloc.transforms.kernel_ir import (
    ThreadDependence,
    enclosing_ops,
    is_thread_dependent_control,
    kernel_name,
)
from gpu_alloc.transforms.lifetimes import stage_map
from gpu_alloc.transforms.loop_allocs import (
    CarriedAllocation,
    Loop,
    back_edge_block,
    enclosing_loops,
    open_loop,
)
from gpu_alloc.transforms.runs_once import RunsOnce, closed_entry, same_accesses_every_call
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

MODES = ("never", "over-limit", "always")


@dataclass
class FusionUnits:
    """The code `fuse-gpu-allocs` fuses, with what it knows of it before fusing."""

    module: ModuleOp
    units: list[BlockLevelCode]
    graph: CallGraph
    base_plans: dict[BlockLevelCode, KernelPlan | None]
    """Each unit's plan as the code stood before barriers were inserted into it (None:
    not planned, or planning raised: `fuse_module` plans it again and reports)."""


def insert_barriers(fusion: FusionUnits, options: Any) -> list[InsertedBarrier]:
    """Inserts the barriers `options.insert_barriers` (a `FuseGpuAllocsPass`) asks for;
    returns them, back edges first, then per unit in program order.

    A pure what-if until every unit's plan is final: the back edges and the reuse
    barriers are measured as hypothetical barriers (`lifetimes.stage_map`), and the IR
    is changed once, at the end. On an error nothing was inserted."""
    mode = options.insert_barriers
    if mode not in MODES:
        raise GpuAllocPassError(
            f"fuse-gpu-allocs: option insert-barriers must be one of {', '.join(MODES)}, "
            f"got '{mode}'"
        )
    if mode == "never":
        return []
    back_edges = {unit: plan_back_edges(unit, fusion.graph) for unit in fusion.units}
    runs_once = RunsOnce(fusion.graph)
    for unit in fusion.units:  # functions entered more than once whose calls would overlap
        edge = call_edge(unit, fusion.graph, runs_once)
        calls = fusion.graph.calls.get(unit, [])
        funcs = [a for a in kernel_allocs(unit) if a.space != MemorySpace.PRIVATE]
        if (
            edge is not None
            and isinstance(unit, func.FuncOp)  # as call_edge's is
            and (back_edges[unit] or not same_accesses_every_call(unit, funcs, calls))
        ):
            back_edges[unit].append(edge)
    planners = {
        unit: _Planner(unit, options.fuse_options(unit), fusion, back_edges)
        for unit in fusion.units
    }
    claims = _choose_reuse(fusion, planners, None if mode == "always" else options)
    chosen: list[tuple[BlockLevelCode, list[tuple[Gap, _Claim]]]] = []
    for unit in fusion.units:
        reason = fusion.graph.why_not_uniform(unit)
        if reason is None:
            chosen.append((unit, claims[unit]))
            edge = call_edge(unit, fusion.graph, runs_once)
            taken = {gap for gap, _ in claims[unit]}
            if (
                claims[unit]
                and edge is not None
                and edge not in back_edges[unit]
                and edge.gap not in taken
            ):
                back_edges[unit].append(edge)  # a reuse barrier inside: calls must not overlap
        elif claims[unit]:  # it would have bought bytes: say why it is not there
            where = kernel_name(unit)
            emit_remark("fuse-gpu-allocs", f"no barrier inserted in '{where}': {reason}", unit)
    # Every unit decided: now insert, each position once.
    inserted: list[InsertedBarrier] = []
    for unit in fusion.units:
        inserted += [edge.inserted() for edge in back_edges[unit]]
        if back_edges[unit]:
            fusion.base_plans[unit] = None  # planned on hypothetical barriers: plan again
    for unit, claims in chosen:
        inserted += [claim.inserted(gap) for gap, claim in claims]
        if claims:
            fusion.base_plans[unit] = None
    for barrier in inserted:  # located at the op the barrier follows (or its region's op)
        anchor = barrier.op.prev_op or barrier.op.parent_op()
        emit_remark("fuse-gpu-allocs", barrier.describe(), anchor)
    return inserted


def _choose_reuse(
    fusion: FusionUnits, planners: dict[BlockLevelCode, _Planner], options: Any | None
) -> dict[BlockLevelCode, list[tuple[Gap, _Claim]]]:
    """Each unit's reuse barriers. `options` None (`always`): each unit as small as it
    gets. Otherwise (`over-limit`) the limit holds for a unit with every function it
    calls (each a `.shared` array of its own), so the units are planned callees first,
    each within the limit less what its callees take with their barriers. Where a unit
    does not fit even at its smallest, its callees give what it lacks: each in turn is
    planned again to what it must come down to (or as small as it gets), and the unit
    once more within what they leave. Only a callee the whole block enters takes
    barriers (`call_graph.why_not_uniform`)."""
    graph = fusion.graph
    if options is None:
        return {unit: planner.choose(None) for unit, planner in planners.items()}
    callees: dict[BlockLevelCode, list[BlockLevelCode]] = {}
    for unit in planners:
        reached = set(graph.callees(unit)) - {unit}
        callees[unit] = [c for c in planners if c in reached]
    claims: dict[BlockLevelCode, list[tuple[Gap, _Claim]]] = {}

    def own(unit: BlockLevelCode) -> int:
        """The unit's bytes as the pass will leave it: a unit that takes no barrier
        keeps its bytes whatever its claims would buy."""
        inserted = graph.why_not_uniform(unit) is None
        return planners[unit].chosen_bytes(claims[unit] if inserted else [])

    def budget(unit: BlockLevelCode) -> int:
        return options.shared_limit(unit) - sum(own(c) for c in callees[unit])

    # A caller's callee set holds each of its callees' sets and the callee itself, so
    # fewer callees come first: callees before their callers.
    for unit in sorted(planners, key=lambda u: len(callees[u])):
        claims[unit] = planners[unit].choose(budget(unit))
        if not callees[unit] or own(unit) <= budget(unit):
            continue
        smallest = planners[unit].chosen_bytes(planners[unit].choose(None))
        lacking = smallest - budget(unit)
        for callee in callees[unit]:
            if lacking <= 0:
                break
            if graph.why_not_uniform(callee) is not None:
                continue
            before = own(callee)
            shrunk = planners[callee].choose(before - lacking) or planners[callee].choose(None)
            if shrunk and planners[callee].chosen_bytes(shrunk) < before:
                claims[callee] = shrunk
                lacking -= before - own(callee)
        claims[unit] = planners[unit].choose(budget(unit))
    return claims


# ---- back edges -------------------------------------------------------------------------


@dataclass(frozen=True)
class BackEdge:
    """A planned barrier at the end of `loop`'s body, for the Funcs `funcs` made in it."""

    kernel: str
    loop: Loop | None
    """None: the barrier ends a function entered more than once (`runs_once`)."""
    gap: Gap
    where: str
    funcs: tuple[str, ...]

    def inserted(self) -> InsertedBarrier:
        op = self.gap.insert()
        return InsertedBarrier(
            self.kernel, self.where, None, None, op, self.funcs, self.loop is None
        )


def call_edge(unit: BlockLevelCode, graph: CallGraph, runs_once: RunsOnce) -> BackEdge | None:
    """A barrier at the end of a function the block may enter more than once, when its
    Funcs would otherwise be one buffer for calls that overlap (`runs_once`) and a
    barrier may go there; None when none is needed or none may go."""
    if not isinstance(unit, func.FuncOp) or len(unit.body.blocks) != 1:
        return None
    reason = runs_once.why_repeated(unit)
    if reason is None or "recursively" in reason or closed_entry(unit):
        return None
    if graph.why_not_uniform(unit) is not None:
        return None
    funcs = [a for a in kernel_allocs(unit) if a.space != MemorySpace.PRIVATE]
    if not funcs:
        return None
    gap = end_of_block(unit.body.blocks[0])
    names = tuple(dict.fromkeys(a.alloc_name.data for a in funcs))
    return BackEdge(kernel_name(unit), None, gap, gap.describe(unit), names)


def plan_back_edges(unit: BlockLevelCode, graph: CallGraph) -> list[BackEdge]:
    """A barrier at the end of each loop body a hoisted Func would race across, planned
    (not inserted): a barrier in a loop can open it for another Func, so the loops are
    asked again with the planned barriers supposed in place, until none opens. Each
    loop is closed at most once, so this ends after at most one round per loop; a Func
    whose loop a planned barrier does not close is refused with a located diagnostic."""
    allocs = [
        a
        for a in kernel_allocs(unit)
        if a.space != MemorySpace.PRIVATE and enclosing_loops(a, unit)
    ]
    if not allocs:
        return []
    depends = graph.thread_dependence(unit)
    allocs = [a for a in allocs if _uniformly_made(a, unit, depends)]
    closed: dict[Loop, BackEdge] = {}
    while allocs:
        stages = stage_map(unit, depends, [edge.gap for edge in closed.values()])
        opened: dict[Loop, list[AllocOp]] = {}
        for alloc in allocs:
            try:
                found = open_loop(alloc, unit, stages)
            except CarriedAllocation:
                continue  # plan_kernel refuses it
            if found is None:
                continue
            if found.loop in closed:
                raise GpuAllocPassError(
                    f"{SPACE_WORDS[alloc.space]} allocation '{alloc.alloc_name.data}' is made "
                    f"in an '{found.loop.name}' body whose back edge a gpu.barrier does not "
                    f"close in '{kernel_name(unit)}'"
                    + (f": {stages.not_intact_reason}" if stages.not_intact_reason else ""),
                    alloc,
                )
            opened.setdefault(found.loop, []).append(alloc)
        if not opened:
            break
        reason = graph.why_not_uniform(unit)
        if reason is None and len(unit.body.blocks) != 1:
            reason = "its body has several blocks (unstructured control flow)"
        for loop, funcs in opened.items():
            if reason is not None:
                raise GpuAllocPassError(
                    f"{SPACE_WORDS[funcs[0].space]} allocation '{funcs[0].alloc_name.data}' is made in an "
                    f"'{loop.name}' body whose back edge needs a gpu.barrier before it can be "
                    f"hoisted, and no barrier may be inserted in '{kernel_name(unit)}': {reason}",
                    funcs[0],
                )
            gap = end_of_block(back_edge_block(loop))
            names = tuple(dict.fromkeys(a.alloc_name.data for a in funcs))
            closed[loop] = BackEdge(kernel_name(unit), loop, gap, gap.describe(unit), names)
    return list(closed.values())


def _uniformly_made(alloc: AllocOp, unit: BlockLevelCode, depends: ThreadDependence) -> bool:
    """Not under thread-dependent control (`plan_kernel` refuses those)."""
    return not any(is_thread_dependent_control(p, depends) for p in enclosing_ops(alloc, unit))


# ---- reuse ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Claim:
    """What a chosen reuse barrier buys, measured with every other chosen one in place."""

    kernel: str
    where: str
    bytes_before: int
    bytes_after: int

    def inserted(self, gap: Gap) -> InsertedBarrier:
        return InsertedBarrier(
            self.kernel, self.where, self.bytes_before, self.bytes_after, gap.insert()
        )


class _Planner:
    def __init__(
        self,
        kernel: BlockLevelCode,
        options: FuseOptions,
        fusion: FusionUnits,
        back_edges: dict[BlockLevelCode, list[BackEdge]] | None = None,
    ):
        self.kernel, self.options, self.fusion = kernel, options, fusion
        self.back_edges = back_edges or {}
        self.planned = [edge.gap for edge in self.back_edges.get(kernel, [])]
        """The kernel's back-edge barriers: supposed in every measurement."""
        self.depends_on_thread = fusion.graph.thread_dependence(kernel)
        self.measured = 0
        """How many plans this planner made (the work bound `tests` check)."""

    def plan(self, gaps: Sequence[Gap]) -> KernelPlan | None:
        """The kernel's plan with a barrier at each of `gaps` and its back edges, none of
        them inserted; None if planning refuses the code."""
        self.measured += 1
        try:
            return plan_kernel(
                self.kernel, self.options, self.depends_on_thread, [*self.planned, *gaps]
            )
        except GpuAllocPassError:
            return None

    def shared_bytes(self, gaps: Sequence[Gap]) -> int | None:
        """The kernel's static shared bytes with a barrier at each of `gaps`."""
        plan = self.plan(gaps)
        return None if plan is None else plan.shared_bytes()

    def base_bytes(self) -> int | None:
        plan = self.fusion.base_plans.get(self.kernel)
        if plan is None and self.kernel not in self.fusion.base_plans:
            plan = self.plan([])
            self.fusion.base_plans[self.kernel] = plan
        return None if plan is None else plan.shared_bytes()

    def worth_planning(self, limit: int | None) -> bool:
        """At least two shared allocations, and (over-limit) more unfused static bytes
        than the limit: fusing never needs more than the unfused sum. A dynamic size with
        a static bound counts at its bound, as `plan_kernel` places it."""
        sizes = [
            bounded_byte_size(op) or 0
            for op in kernel_allocs(self.kernel)
            if op.space == MemorySpace.SHARED
        ]
        return len(sizes) > 1 and (limit is None or sum(sizes) > limit)

    def chosen_bytes(self, claims: list[tuple[Gap, _Claim]]) -> int:
        """The kernel's own static shared bytes with `claims` inserted (0: not planned)."""
        return claims[0][1].bytes_after if claims else self.base_bytes() or 0

    def choose(self, limit: int | None) -> list[tuple[Gap, _Claim]]:
        """The reuse barriers to insert for the kernel's own bytes to fit `limit` (None:
        to be as small as they get), with what each buys (see the module docstring)."""
        if not self.worth_planning(limit):
            return []
        base = self.base_bytes()
        if base is None or (limit is not None and base <= limit):
            return []
        gaps = candidate_gaps(self.kernel, self.depends_on_thread, self.planned)
        kept, current = list(gaps), self.shared_bytes(gaps)
        # Drop every barrier the goal does not need, those inside loops (which run on
        # every iteration) first; keep the smallest backing met on the way.
        for gap in sorted(gaps, key=lambda g: -g.loop_depth(self.kernel)):
            rest = [g for g in kept if g is not gap]
            bytes_ = self.shared_bytes(rest)
            if bytes_ is None:
                continue
            if current is None or bytes_ <= current or (limit is not None and bytes_ <= limit):
                kept, current = rest, bytes_
        if current is None or current >= base or (limit is not None and current > limit):
            return []
        return self.claims(kept, limit)

    def claims(self, kept: list[Gap], limit: int | None) -> list[tuple[Gap, _Claim]]:
        """`kept` after dropping any barrier that buys nothing in their company (the
        packer is a heuristic: fewer barriers need not mean more bytes), with each one's
        bytes without it and with all."""
        while True:
            final = self.shared_bytes(kept)
            if final is None or not kept:
                return []
            without = [self.shared_bytes([g for g in kept if g is not gap]) for gap in kept]
            goal = final if limit is None else limit
            useless = [
                gap
                for gap, before in zip(kept, without, strict=True)
                if before is not None and before <= goal
            ]
            if not useless:
                break
            kept = [g for g in kept if g is not useless[-1]]
        name = kernel_name(self.kernel)
        return [
            (gap, _Claim(name, gap.describe(self.kernel), before or final, final))
            for gap, before in zip(kept, without, strict=True)
        ]
