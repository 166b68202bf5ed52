"""A hypothesis strategy for random valid kernels in the IR contract form.

`kernels()` draws a `GeneratedKernel`: the MLIR text of one `gpu.func` kernel with
several barrier stages of shared (space 3) and heap (space 1) Funcs of random element
types and sizes (some dynamic, sized by scalar kernel arguments), each written by
every thread in a strided loop from the input and from earlier Funcs, block-level
`scf.for` loops of stages with barriers (reading Funcs made before the loop and
updating accumulators), and a last stage that writes the output. Every kernel is
race-free and in bounds by construction; its metadata gives the launch (grid,
block, scalars) and, per Func, its name, space, element type, size and the barrier
stages it is live in (a Func used inside a loop and made before it stays live for
the whole loop).

Barriers that may not run (issue 10): between the writes of a stage the generator
puts extra barrier constructs whose barrier runs only on some paths — under a
block-uniform `scf.if` in one branch (or both), in an `scf.for` with a dynamic
(possibly zero) or constant zero trip count, in the body of an `scf.while` with a
uniform counter (or its always-run "before" region) — with trip counts and
conditions taken from scalar kernel arguments. They never make the kernel racy, but
a fusion that trusted them would let Funcs used on both sides share bytes. Block-level
loops of stages may take their trip count (at least 1 at run time) from a scalar.
A kernel may also hold a hand-written backing `ov` with two aliases over the same
bytes: a store through `ovA`, and after a barrier the output reads through `ovB`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

ELEMENT_TYPES = ("i8", "i16", "i32", "i64", "f32", "f64")
INPUT_SIZE = 256
OUTPUT_PER_BLOCK = 64


@dataclass(frozen=True)
class FuncSpec:
    """One generated Func (a `gpu_alloc.alloc`)."""

    name: str
    space: int
    element: str
    size: int
    """Elements (the run-time value for a dynamic size)."""
    size_argument: str | None
    """The scalar kernel argument holding the size, when it is dynamic."""
    stages: tuple[int, int]
    """First and last barrier stage in which the Func is live. Stage k is the code
    between the k-th and (k+1)-th `gpu.barrier` in textual order (a loop body's
    stages counted once); a Func used inside a loop and made before it is live up to
    the loop's last stage. Two Funcs may share bytes only if their intervals are disjoint."""
    allocated_in_loop: bool = False
    """Its `gpu_alloc.alloc` is inside a block-level loop (not at the kernel entry)."""

    @property
    def nbytes(self) -> int:
        return self.size * element_bytes(self.element)


@dataclass(frozen=True)
class GeneratedKernel:
    text: str
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    scalars: tuple[int, ...]
    """The values of the scalar arguments: dynamic sizes first, then trip counts."""
    funcs: tuple[FuncSpec, ...]
    n_stages: int
    """Barrier stages, the output stage included (the kernel has n_stages - 1 stage
    barriers, plus `extra_barriers`)."""
    extra_barriers: int = 0
    """Barriers in constructs that may not run them, which separate no stages."""
    trip_arguments: int = 0
    """Scalar arguments (after the dynamic sizes) that hold trip counts and conditions."""
    overlapping_aliases: bool = False
    """The kernel holds the hand-written backing `ov` with aliases `ovA` and `ovB`."""


def element_bytes(element: str) -> int:
    return max(1, int(element[1:]) // 8)


def is_float(element: str) -> bool:
    return element.startswith("f")


# ---- the plan -------------------------------------------------------------------------


@dataclass
class _Write:
    func: int
    sources: list[tuple[int, int, int]]
    """(func, multiplier, offset): reads func[(i * multiplier + offset) % size]."""
    update: bool = False
    """f[i] = f[i] + ...: an accumulator already holding values."""


MAYBE_BARRIERS = (
    "if_then",
    "if_else",
    "if_both",
    "for_dynamic",
    "for_zero",
    "for_one",
    "while_body",
    "while_before",
)
"""Barrier constructs put between the writes of a stage. Only `if_both`, `for_one`
and `while_before` run a barrier on every path."""


@dataclass(frozen=True)
class _MaybeBarrier:
    kind: str
    position: int
    """Put after this many of the stage's writes."""
    argument: int
    """The trip-count scalar (index into the trip arguments) it tests."""


@dataclass
class _Stage:
    index: int
    loop: int | None
    writes: list[_Write] = field(default_factory=list[_Write])
    allocs_here: list[int] = field(default_factory=list[int])
    maybe_barriers: list[_MaybeBarrier] = field(default_factory=list[_MaybeBarrier])


@dataclass
class _Loop:
    trips: int
    stages: list[int]
    trip_argument: int | None = None
    """The trip-count scalar holding `trips`, when the count is dynamic."""


@dataclass
class _Plan:
    block: tuple[int, ...]
    grid: tuple[int, ...]
    funcs: list[tuple[int, str, int, bool]]
    """(space, element, size, dynamic) per Func."""
    stages: list[_Stage]
    loops: list[_Loop]
    output_sources: list[tuple[int, int, int]]
    trip_values: list[int] = field(default_factory=list[int])
    overlap: bool = False


@dataclass(frozen=True)
class KernelOptions:
    dynamic_sizes: bool
    loops: bool
    heap: bool
    max_funcs: int
    barrier_paths: bool = True
    overlapping_aliases: bool = True


@st.composite
def _plans(draw: st.DrawFn, options: KernelOptions) -> _Plan:
    block = draw(st.sampled_from([(32,), (64,), (48,), (16, 4), (8, 8), (8, 2, 2)]))
    grid = draw(st.sampled_from([(1,), (2,), (3,), (2, 2)]))
    # The block-level structure: stages, some grouped into loops.
    stages: list[_Stage] = []
    loops: list[_Loop] = []
    for _ in range(draw(st.integers(2, 5))):
        if options.loops and draw(st.booleans()) and draw(st.booleans()):
            loop = _Loop(draw(st.integers(1, 3)), [])
            for _ in range(draw(st.integers(2, 3))):
                loop.stages.append(len(stages))
                stages.append(_Stage(len(stages), len(loops)))
            loops.append(loop)
        else:
            stages.append(_Stage(len(stages), None))
    n_funcs = draw(st.integers(2, options.max_funcs))
    # Funcs are made in stage order, so that later ones can read earlier ones.
    defined_at = sorted(
        draw(st.lists(st.integers(0, len(stages) - 1), min_size=n_funcs, max_size=n_funcs))
    )
    funcs: list[tuple[int, str, int, bool]] = []
    for f, stage in enumerate(defined_at):
        space = draw(st.sampled_from([3, 3, 3, 1] if options.heap else [3]))
        element = draw(st.sampled_from(ELEMENT_TYPES))
        size = draw(st.integers(1, 100))
        dynamic = options.dynamic_sizes and draw(st.integers(0, 4)) == 0
        funcs.append((space, element, size, dynamic))
        earlier = [g for g in range(f) if defined_at[g] < stage]
        sources = _draw_sources(draw, _recent_first(draw, earlier, defined_at, stage))
        if (
            earlier
            and draw(st.integers(0, 3)) > 0
            and earlier[-1] not in {g for g, _, _ in sources}
        ):
            # Mostly a chain, like a stencil pipeline: read the latest earlier Func.
            sources.append((earlier[-1], draw(st.sampled_from([1, 3, 5])), draw(st.integers(0, 7))))
        stages[stage].writes.append(_Write(f, sources))
        loop = stages[stage].loop
        if loop is not None and draw(st.booleans()) and not funcs[f][3]:
            stages[stage].allocs_here.append(f)
    _add_updates(draw, stages, loops, defined_at)
    last = len(stages)
    readable = [g for g in range(n_funcs) if not _allocated_in_loop(stages, g)] or list(
        range(n_funcs)
    )
    readable = _recent_first(draw, readable, defined_at, last)
    output_sources = _draw_sources(draw, readable, at_least_one=True)
    _hoist_allocs_used_outside_their_loop(stages, output_sources)
    plan = _Plan(block, grid, funcs, stages, loops, output_sources)
    if options.loops:
        _draw_trip_counts(draw, plan, options.barrier_paths)
    plan.overlap = options.overlapping_aliases and draw(st.booleans())
    return plan


def _draw_trip_counts(draw: st.DrawFn, plan: _Plan, barrier_paths: bool) -> None:
    """Dynamic trip counts for some loops of stages (at least one trip at run time),
    and barrier constructs that may not run between the writes of some stages."""
    for loop in plan.loops:
        if draw(st.booleans()):
            loop.trip_argument = len(plan.trip_values)
            plan.trip_values.append(loop.trips)
    if not barrier_paths:
        return
    for stage in plan.stages:
        for _ in range(draw(st.integers(0, 2))):
            _add_maybe_barrier(draw, plan, stage, draw(st.integers(0, len(stage.writes))))
    relay_stages = [
        s for s in plan.stages[1:] if s.loop is None and plan.stages[s.index - 1].loop is None
    ]
    if relay_stages:
        _add_relay(draw, plan, draw(st.sampled_from(relay_stages)))


SKIPPED_WITH = {"if_then": 0, "if_else": 1, "for_dynamic": 0, "for_zero": 0, "while_body": 0}
"""Kinds whose barrier may not run, and a trip-count value with which it does not."""


def _add_maybe_barrier(
    draw: st.DrawFn, plan: _Plan, stage: _Stage, position: int, skipped: bool = False
) -> None:
    """A barrier construct; with `skipped`, one whose barrier does not run."""
    if skipped:
        kind = draw(st.sampled_from(sorted(SKIPPED_WITH)))
        trips = SKIPPED_WITH[kind]
    else:
        kind = draw(st.sampled_from(MAYBE_BARRIERS))
        trips = draw(st.sampled_from([0, 0, 1, 2]))
    stage.maybe_barriers.append(_MaybeBarrier(kind, position, len(plan.trip_values)))
    plan.trip_values.append(trips)


def _add_relay(draw: st.DrawFn, plan: _Plan, stage: _Stage) -> None:
    """Three more Funcs around a barrier construct at the start of `stage`: P is written
    in the stage before; R reads P (P's last use), then comes the construct, then Q (as
    large as P) is written; the output reads R and Q. A fusion that trusted a barrier
    that did not run would give Q P's bytes, and Q's writes would race with P's reads."""
    # P and Q are larger than any random Func, so that a packer that thought them
    # disjoint in time would put them at one offset; R is small.
    element = draw(st.sampled_from(["i64", "f64"]))
    size = draw(st.integers(104, 128))
    p, r, q = len(plan.funcs), len(plan.funcs) + 1, len(plan.funcs) + 2
    plan.funcs += [(3, element, size, False), (3, "i8", draw(st.integers(1, 16)), False)]
    plan.funcs.append((3, element, size, False))
    plan.stages[stage.index - 1].writes.append(_Write(p, []))
    multiplier = draw(st.sampled_from([3, 5]))
    stage.writes[0:0] = [_Write(r, [(p, multiplier, draw(st.integers(0, 7)))]), _Write(q, [])]
    stage.maybe_barriers = [replace(b, position=b.position + 2) for b in stage.maybe_barriers]
    _add_maybe_barrier(draw, plan, stage, 1, skipped=True)
    plan.output_sources += [(r, 1, 0), (q, 1, 0)]


def _allocated_in_loop(stages: list[_Stage], func: int) -> bool:
    return any(func in s.allocs_here for s in stages)


def _hoist_allocs_used_outside_their_loop(
    stages: list[_Stage], output_sources: list[tuple[int, int, int]]
) -> None:
    """A Func allocated inside a loop body must be used only inside that loop."""
    loop_of_use: dict[int, set[int | None]] = {}
    for stage in stages:
        for write in stage.writes:
            for g in [write.func, *(g for g, _, _ in write.sources)]:
                loop_of_use.setdefault(g, set()).add(stage.loop)
    for g, _, _ in output_sources:
        loop_of_use.setdefault(g, set()).add(None)
    for stage in stages:
        stage.allocs_here = [
            f for f in stage.allocs_here if loop_of_use.get(f, set()) == {stage.loop}
        ]


def _recent_first(
    draw: st.DrawFn, readable: list[int], defined_at: list[int], stage: int
) -> list[int]:
    """Mostly the Funcs of the last two stages, so that lifetimes are short and
    packings can reuse bytes; sometimes any earlier Func (a long lifetime)."""
    recent = [g for g in readable if defined_at[g] >= stage - 2]
    if recent and draw(st.integers(0, 3)) > 0:
        return recent
    return readable


def _draw_sources(
    draw: st.DrawFn, readable: list[int], at_least_one: bool = False
) -> list[tuple[int, int, int]]:
    if not readable:
        return []
    chosen = draw(
        st.lists(
            st.sampled_from(readable), min_size=1 if at_least_one else 0, max_size=3, unique=True
        )
    )
    return [(g, draw(st.sampled_from([1, 3, 5])), draw(st.integers(0, 7))) for g in chosen]


def _add_updates(
    draw: st.DrawFn, stages: list[_Stage], loops: list[_Loop], defined_at: list[int]
) -> None:
    """Accumulators: a Func made before a loop, updated in one stage of its body."""
    for loop in loops:
        first = loop.stages[0]
        before = [f for f, stage in enumerate(defined_at) if stage < first]
        if not before or not draw(st.booleans()):
            continue
        target = draw(st.sampled_from(before))
        stage = stages[draw(st.sampled_from(loop.stages))]
        if any(target == g for w in stage.writes for g, _, _ in w.sources):
            continue
        written_here = {w.func for w in stage.writes}
        readable = [
            g
            for g in range(len(defined_at))
            if defined_at[g] < stage.index and g != target and g not in written_here
        ]
        stage.writes.append(_Write(target, _draw_sources(draw, readable), update=True))
        # Nothing else in this stage may read the accumulator.
        for write in stage.writes:
            write.sources = [s for s in write.sources if s[0] != target or write.func == target]


# ---- liveness ---------------------------------------------------------------------------


def _live_stages(plan: _Plan) -> list[tuple[int, int]]:
    uses: list[set[int]] = [set() for _ in plan.funcs]
    for stage in plan.stages:
        for write in stage.writes:
            uses[write.func].add(stage.index)
            for g, _, _ in write.sources:
                uses[g].add(stage.index)
    output_stage = len(plan.stages)
    for g, _, _ in plan.output_sources:
        uses[g].add(output_stage)
    intervals: list[tuple[int, int]] = []
    for used in uses:
        first, last = min(used), max(used)
        for loop in plan.loops:
            loop_first, loop_last = loop.stages[0], loop.stages[-1]
            inside = any(loop_first <= s <= loop_last for s in used)
            if inside and first < loop_first:
                last = max(last, loop_last)
        intervals.append((first, last))
    return intervals


# ---- MLIR text --------------------------------------------------------------------------


class _Emitter:
    def __init__(self, plan: _Plan):
        self.plan = plan
        self.lines: list[str] = []
        self.constant_lines: list[str] = []
        self.counter = 0
        self.indent = 6
        self.constants: dict[int, str] = {}
        self.n_threads = 1
        for d in plan.block:
            self.n_threads *= d

    def fresh(self) -> str:
        self.counter += 1
        return f"%v{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append(" " * self.indent + line)

    def emit_lines(self, lines: list[str]) -> None:
        """One level deeper than the current line."""
        self.indent += 2
        for line in lines:
            self.emit(line)
        self.indent -= 2

    def const(self, value: int) -> str:
        if value not in self.constants:
            name = f"%c{value}"
            self.constants[value] = name
            self.constant_lines.append(f"{' ' * 6}{name} = arith.constant {value} : index")
        return self.constants[value]


def _memref_type(space: int, element: str, size: int, dynamic: bool) -> str:
    extent = "?" if dynamic else str(size)
    return f"memref<{extent}x{element}, {space} : i32>"


def _convert(e: _Emitter, value: str, source: str, target: str) -> str:
    """Converts `value` of type `source` to `target`."""
    if source == target:
        return value
    result = e.fresh()
    if is_float(source) and is_float(target):
        op = "arith.extf" if int(target[1:]) > int(source[1:]) else "arith.truncf"
        e.emit(f"{result} = {op} {value} : {source} to {target}")
    elif is_float(source):
        as_int = e.fresh()
        e.emit(f"{as_int} = arith.fptosi {value} : {source} to i32")
        return _convert(e, as_int, "i32", target)
    elif is_float(target):
        e.emit(f"{result} = arith.sitofp {value} : {source} to {target}")
    else:
        op = "arith.extsi" if int(target[1:]) > int(source[1:]) else "arith.trunci"
        e.emit(f"{result} = {op} {value} : {source} to {target}")
    return result


def _add(e: _Emitter, a: str, b: str, element: str) -> str:
    result = e.fresh()
    e.emit(f"{result} = {'arith.addf' if is_float(element) else 'arith.addi'} {a}, {b} : {element}")
    return result


def _emit_alloc(e: _Emitter, plan: _Plan, f: int, sizes: list[str]) -> None:
    space, element, size, dynamic = plan.funcs[f]
    operands = f"({sizes[f]})" if dynamic else "()"
    signature = "(index)" if dynamic else "()"
    e.emit(
        f'%f{f} = "gpu_alloc.alloc"{operands} <{{name = "f{f}"}}> : {signature} -> '
        f"{_memref_type(space, element, size, dynamic)}"
    )


def _emit_reads(
    e: _Emitter,
    plan: _Plan,
    index: str,
    sources: list[tuple[int, int, int]],
    sizes: list[str],
    target: str,
) -> list[str]:
    values: list[str] = []
    for g, multiplier, offset in sources:
        space, element, size, dynamic = plan.funcs[g]
        scaled = e.fresh()
        e.emit(f"{scaled} = arith.muli {index}, {e.const(multiplier)} : index")
        shifted = e.fresh()
        e.emit(f"{shifted} = arith.addi {scaled}, {e.const(offset)} : index")
        j = e.fresh()
        e.emit(f"{j} = arith.remui {shifted}, {sizes[g]} : index")
        loaded = e.fresh()
        e.emit(f"{loaded} = memref.load %f{g}[{j}] : {_memref_type(space, element, size, dynamic)}")
        values.append(_convert(e, loaded, element, target))
    return values


def _emit_write(
    e: _Emitter, plan: _Plan, write: _Write, sizes: list[str], iteration: str | None
) -> None:
    space, element, size, dynamic = plan.funcs[write.func]
    memref_type = _memref_type(space, element, size, dynamic)
    i = e.fresh()
    e.emit(f"scf.for {i} = %tid to {sizes[write.func]} step {e.const(e.n_threads)} {{")
    e.indent += 2
    if write.update:
        value = e.fresh()
        e.emit(f"{value} = memref.load %f{write.func}[{i}] : {memref_type}")
    else:
        scaled = e.fresh()
        e.emit(f"{scaled} = arith.addi %in_base, {i} : index")
        wrapped = e.fresh()
        e.emit(f"{wrapped} = arith.remui {scaled}, {e.const(INPUT_SIZE)} : index")
        loaded = e.fresh()
        e.emit(f"{loaded} = memref.load %in[{wrapped}] : memref<{INPUT_SIZE}xf32>")
        value = _convert(e, loaded, "f32", element)
    for read in _emit_reads(e, plan, i, write.sources, sizes, element):
        value = _add(e, value, read, element)
    if iteration is not None:
        as_int = e.fresh()
        e.emit(f"{as_int} = arith.index_cast {iteration} : index to i32")
        value = _add(e, value, _convert(e, as_int, "i32", element), element)
    e.emit(f"memref.store {value}, %f{write.func}[{i}] : {memref_type}")
    e.indent -= 2
    e.emit("}")


BARRIER = '"gpu.barrier"() : () -> ()'


def _emit_maybe_barrier(e: _Emitter, barrier: _MaybeBarrier) -> None:
    trips = f"%s{barrier.argument}"
    kind = barrier.kind
    e.emit(f"// {kind}")
    if kind.startswith("if"):
        cond = e.fresh()
        e.emit(f"{cond} = arith.cmpi ugt, {trips}, {e.const(0)} : index")
        then_branch = [BARRIER] if kind in ("if_then", "if_both") else []
        else_branch = [BARRIER] if kind in ("if_else", "if_both") else []
        e.emit(f"scf.if {cond} {{")
        e.emit_lines(then_branch)
        if else_branch:
            e.emit("} else {")
            e.emit_lines(else_branch)
        e.emit("}")
    elif kind.startswith("for"):
        bound = {"for_dynamic": trips, "for_zero": e.const(0), "for_one": e.const(1)}[kind]
        e.emit(f"scf.for {e.fresh()} = {e.const(0)} to {bound} step {e.const(1)} {{")
        e.emit_lines([BARRIER])
        e.emit("}")
    else:
        k, k2, more, result, step = (e.fresh() for _ in range(5))
        before = [BARRIER] if kind == "while_before" else []
        body = [BARRIER] if kind == "while_body" else []
        e.emit(f"{result} = scf.while ({k} = {e.const(0)}) : (index) -> index {{")
        e.emit_lines(
            [
                *before,
                f"{more} = arith.cmpi ult, {k}, {trips} : index",
                f"scf.condition({more}) {k} : index",
            ]
        )
        e.emit("} do {")
        e.emit(f"^bb0({k2}: index):")
        e.emit_lines(
            [*body, f"{step} = arith.addi {k2}, {e.const(1)} : index", f"scf.yield {step} : index"]
        )
        e.emit("}")


def _emit_stage(
    e: _Emitter, plan: _Plan, stage: _Stage, sizes: list[str], iteration: str | None
) -> None:
    e.emit(f"// stage {stage.index}")
    for f in stage.allocs_here:
        _emit_alloc(e, plan, f, sizes)
    for position in range(len(stage.writes) + 1):
        for barrier in stage.maybe_barriers:
            if barrier.position == position:
                _emit_maybe_barrier(e, barrier)
        if position < len(stage.writes):
            _emit_write(e, plan, stage.writes[position], sizes, iteration)
    e.emit(BARRIER)


OVERLAP_BACKING = "memref<256xi8, 3 : i32>"
OVERLAP_A = "memref<64xi32, 3 : i32>"
OVERLAP_B = "memref<60xi32, 3 : i32>"


def _emit_overlapping_aliases(e: _Emitter) -> None:
    """The backing `ov`: `ovA` over bytes [0, 256), `ovB` over [16, 256); every thread
    stores input values through `ovA` before the first barrier."""
    pointer = '"gpu_alloc.offset_pointer"(%ov, {}) : ({}, index) -> !gpu_alloc.ptr<3 : i32>'
    alias = '"gpu_alloc.alias"({}) <{{name = "{}"}}> : (!gpu_alloc.ptr<3 : i32>) -> {}'
    e.emit(
        '%ov = "gpu_alloc.alloc"() <{name = "ov", alignment = 16 : i64}> : () -> ' + OVERLAP_BACKING
    )
    e.emit("%ov_a = " + pointer.format(e.const(0), OVERLAP_BACKING))
    e.emit("%ovA = " + alias.format("%ov_a", "ovA", OVERLAP_A))
    e.emit("%ov_b = " + pointer.format(e.const(16), OVERLAP_BACKING))
    e.emit("%ovB = " + alias.format("%ov_b", "ovB", OVERLAP_B))
    i = e.fresh()
    e.emit(f"scf.for {i} = %tid to {e.const(64)} step {e.const(e.n_threads)} {{")
    e.indent += 2
    scaled, wrapped, loaded = e.fresh(), e.fresh(), e.fresh()
    e.emit(f"{scaled} = arith.addi %in_base, {i} : index")
    e.emit(f"{wrapped} = arith.remui {scaled}, {e.const(INPUT_SIZE)} : index")
    e.emit(f"{loaded} = memref.load %in[{wrapped}] : memref<{INPUT_SIZE}xf32>")
    value = _convert(e, loaded, "f32", "i32")
    e.emit(f"memref.store {value}, %ovA[{i}] : {OVERLAP_A}")
    e.indent -= 2
    e.emit("}")


def _read_overlap_b(e: _Emitter, index: str) -> str:
    j, loaded = e.fresh(), e.fresh()
    e.emit(f"{j} = arith.remui {index}, {e.const(60)} : index")
    e.emit(f"{loaded} = memref.load %ovB[{j}] : {OVERLAP_B}")
    return _convert(e, loaded, "i32", "f32")


def _emit(plan: _Plan, scalars: dict[int, int]) -> tuple[str, int]:
    e = _Emitter(plan)
    n_blocks = 1
    for d in plan.grid:
        n_blocks *= d
    out_size = n_blocks * OUTPUT_PER_BLOCK
    dynamic_funcs = [f for f in range(len(plan.funcs)) if plan.funcs[f][3]]
    arguments = [f"%in: memref<{INPUT_SIZE}xf32>", f"%out: memref<{out_size}xf32>"]
    arguments += [f"%n{f}: index" for f in dynamic_funcs]
    arguments += [f"%s{j}: index" for j in range(len(plan.trip_values))]
    argument_types = ", ".join(a.split(": ", 1)[1] for a in arguments)
    e.emit(f"^bb0({', '.join(arguments)}):")
    # Linear thread and block ids.
    names = "xyz"
    for d in range(3):
        e.emit(
            f'%t{names[d]} = "gpu.thread_id"() <{{dimension = #gpu<dim {names[d]}>}}> : () -> index'
        )
        e.emit(
            f'%b{names[d]} = "gpu.block_id"() <{{dimension = #gpu<dim {names[d]}>}}> : () -> index'
        )
    bx, by = (plan.block + (1, 1))[:2]
    gx, gy = (plan.grid + (1, 1))[:2]
    e.emit(f"%tyz = arith.muli %tz, {e.const(by)} : index")
    e.emit("%tyz1 = arith.addi %tyz, %ty : index")
    e.emit(f"%tyzx = arith.muli %tyz1, {e.const(bx)} : index")
    e.emit("%tid = arith.addi %tyzx, %tx : index")
    e.emit(f"%byz = arith.muli %bz, {e.const(gy)} : index")
    e.emit("%byz1 = arith.addi %byz, %by : index")
    e.emit(f"%byzx = arith.muli %byz1, {e.const(gx)} : index")
    e.emit("%bid = arith.addi %byzx, %bx : index")
    e.emit(f"%in_base = arith.muli %bid, {e.const(37)} : index")
    sizes = [
        f"%n{f}" if plan.funcs[f][3] else e.const(plan.funcs[f][2]) for f in range(len(plan.funcs))
    ]
    in_loop = {f for s in plan.stages for f in s.allocs_here}
    for f in range(len(plan.funcs)):
        if f not in in_loop:
            _emit_alloc(e, plan, f, sizes)
    if plan.overlap:
        _emit_overlapping_aliases(e)
    stage_index = 0
    while stage_index < len(plan.stages):
        stage = plan.stages[stage_index]
        if stage.loop is None:
            _emit_stage(e, plan, stage, sizes, None)
            stage_index += 1
            continue
        loop = plan.loops[stage.loop]
        r = e.fresh()
        trips = e.const(loop.trips) if loop.trip_argument is None else f"%s{loop.trip_argument}"
        e.emit(f"scf.for {r} = {e.const(0)} to {trips} step {e.const(1)} {{")
        e.indent += 2
        for s in loop.stages:
            _emit_stage(e, plan, plan.stages[s], sizes, r)
        e.indent -= 2
        e.emit("}")
        stage_index = loop.stages[-1] + 1
    # The output stage: out[bid * 64 + i] = in + sum of reads, for i < 64.
    e.emit("// output stage")
    i = e.fresh()
    e.emit(f"scf.for {i} = %tid to {e.const(OUTPUT_PER_BLOCK)} step {e.const(e.n_threads)} {{")
    e.indent += 2
    value = "%zero"
    e.emit("%zero = arith.constant 0.0 : f32")
    for read in _emit_reads(e, plan, i, plan.output_sources, sizes, "f32"):
        value = _add(e, value, read, "f32")
    if plan.overlap:
        value = _add(e, value, _read_overlap_b(e, i), "f32")
    base = e.fresh()
    e.emit(f"{base} = arith.muli %bid, {e.const(OUTPUT_PER_BLOCK)} : index")
    position = e.fresh()
    e.emit(f"{position} = arith.addi {base}, {i} : index")
    e.emit(f"memref.store {value}, %out[{position}] : memref<{out_size}xf32>")
    e.indent -= 2
    e.emit("}")
    e.emit('"gpu.return"() : () -> ()')
    body = "\n".join([e.lines[0], *e.constant_lines, *e.lines[1:]])
    text = (
        "builtin.module {\n"
        '  "gpu.module"() <{sym_name = "generated"}> ({\n'
        f'    "gpu.func"() <{{function_type = ({argument_types}) -> (), kernel}}> ({{\n'
        f"{body}\n"
        '    }) {sym_name = "generated_kernel"} : () -> ()\n'
        "  }) : () -> ()\n"
        "}\n"
    )
    del scalars
    return text, out_size


def _build(plan: _Plan) -> GeneratedKernel:
    scalars = {f: plan.funcs[f][2] for f in range(len(plan.funcs)) if plan.funcs[f][3]}
    text, _ = _emit(plan, scalars)
    intervals = _live_stages(plan)
    in_loop = {f for stage in plan.stages for f in stage.allocs_here}
    funcs = tuple(
        FuncSpec(
            name=f"f{f}",
            space=space,
            element=element,
            size=size,
            size_argument=f"n{f}" if dynamic else None,
            stages=intervals[f],
            allocated_in_loop=f in in_loop,
        )
        for f, (space, element, size, dynamic) in enumerate(plan.funcs)
    )
    extra = sum(2 if b.kind == "if_both" else 1 for s in plan.stages for b in s.maybe_barriers)
    return GeneratedKernel(
        text=text,
        kernel="generated_kernel",
        grid=plan.grid,
        block=plan.block,
        scalars=(*(scalars[f] for f in sorted(scalars)), *plan.trip_values),
        funcs=funcs,
        n_stages=len(plan.stages) + 1,
        extra_barriers=extra,
        trip_arguments=len(plan.trip_values),
        overlapping_aliases=plan.overlap,
    )


def kernels(
    *,
    dynamic_sizes: bool = True,
    loops: bool = True,
    heap: bool = True,
    max_funcs: int = 8,
    barrier_paths: bool = True,
    overlapping_aliases: bool = True,
) -> st.SearchStrategy[GeneratedKernel]:
    """Random valid kernels with their launch and per-Func metadata; the options turn
    off dynamic sizes, block-level loops (with them dynamic trip counts and barriers
    that may not run), heap Funcs, barriers that may not run alone, the hand-written
    overlapping aliases, and bound the count of random Funcs (a relay around a
    barrier construct adds three more)."""
    if max_funcs < 2:
        raise ValueError("kernels need at least two Funcs")
    options = KernelOptions(
        dynamic_sizes, loops, heap, max_funcs, barrier_paths, overlapping_aliases
    )
    return _plans(options).map(_build)


# ---- MLIR's forms -------------------------------------------------------------------------

MLIR_FORMS = ("alloc", "alloca", "attribution", "global")
"""How a shared Func of an MLIR-form kernel is written: `memref.alloc`, `memref.alloca`, a
workgroup attribution of the kernel, or a workgroup `memref.global` read with
`memref.get_global` (the last two only for a static Func at the kernel entry)."""

WORKGROUP_SPELLINGS = ("#gpu.address_space<workgroup>", "3 : i32", "3")
"""How a type spells workgroup memory (`3` is an i64 integer space)."""


@dataclass(frozen=True)
class MlirForms:
    """The form of each shared Func (by name) and the spelling of each shared type."""

    forms: dict[str, str]
    spellings: dict[str, str]
    """`memref<..., 3 : i32>` as the generator writes it -> the spelling it gets."""


@st.composite
def mlir_form_kernels(
    draw: st.DrawFn, *, heap: bool = False, overlapping_aliases: bool = False, **options: bool
) -> GeneratedKernel:
    """Random kernels of `kernels()` written the way MLIR writes them: each shared Func
    becomes a `memref.alloc`/`alloca` in workgroup memory, a workgroup attribution or a
    workgroup global (`MLIR_FORMS`), each shared memref type spelled one of
    `WORKGROUP_SPELLINGS` (consistently, so the kernel verifies). Heap Funcs and the
    hand-written overlapping aliases have no MLIR form: they are off by default (with
    them on, the kernel mixes both forms)."""
    kernel = draw(kernels(heap=heap, overlapping_aliases=overlapping_aliases, **options))
    forms: dict[str, str] = {}
    for func in kernel.funcs:
        if func.space != 3:
            continue
        entry_only = func.size_argument is None and not func.allocated_in_loop
        forms[func.name] = draw(st.sampled_from(MLIR_FORMS if entry_only else MLIR_FORMS[:2]))
    types = sorted(
        {
            _memref_type(3, f.element, f.size, f.size_argument is not None)
            for f in kernel.funcs
            if f.space == 3
        }
    )
    spellings = {t: draw(st.sampled_from(WORKGROUP_SPELLINGS)) for t in types}
    return as_mlir_forms(kernel, MlirForms(forms, spellings))


_ALLOC_LINE = re.compile(
    r'^(?P<indent> *)%(?P<name>f\d+) = "gpu_alloc\.alloc"(?P<operands>\([^)]*\)) '
    r'<\{name = "(?P=name)"\}> : \([^)]*\) -> (?P<type>memref<[^>]*>)$',
    re.MULTILINE,
)


def as_mlir_forms(kernel: GeneratedKernel, choice: MlirForms) -> GeneratedKernel:
    """`kernel` with its shared Funcs in the forms and spellings of `choice`."""
    attributions: list[str] = []
    globals_: list[str] = []

    def rewrite(match: re.Match[str]) -> str:
        name, memref_type = match["name"], match["type"]
        form = choice.forms.get(name)
        if form is None:
            return match[0]
        if form == "attribution":
            attributions.append(f"%{name}: {memref_type}")
            return ""
        if form == "global":
            globals_.append(
                f'    "memref.global"() <{{sym_name = "{name}", type = {memref_type}, '
                'initial_value, sym_visibility = "private"}> : () -> ()'
            )
            return f"{match['indent']}%{name} = memref.get_global @{name} : {memref_type}"
        return f"{match['indent']}%{name} = memref.{form}{match['operands']} : {memref_type}"

    text = _ALLOC_LINE.sub(rewrite, kernel.text)
    text = "\n".join(line for line in text.split("\n") if line.strip() or not line)
    if attributions:
        entry = re.search(r"\^bb0\((.*)\):", text)
        assert entry is not None
        text = text.replace(entry[0], f"^bb0({entry[1]}, {', '.join(attributions)}):", 1)
        text = text.replace(
            '{sym_name = "generated_kernel"}',
            f'{{sym_name = "generated_kernel", workgroup_attributions = {len(attributions)} : i64}}',
        )
    if globals_:
        text = text.replace('    "gpu.func"()', "\n".join([*globals_, '    "gpu.func"()']), 1)
    for old, spelling in choice.spellings.items():
        text = text.replace(old, old.replace("3 : i32", spelling))
    return replace(kernel, text=text)
