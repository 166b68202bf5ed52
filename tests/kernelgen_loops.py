"""Random kernels for issue 19 §3 and §4, beside `kernelgen` (kept apart so that the
streams adding to `kernelgen` merge cleanly):

- `loop_local_kernels()`: shared and heap Funcs made *inside* a block-level loop body
  (`scf.for` with a constant or dynamic trip count, or `scf.while`, maybe inside another
  loop), written from the input and read back into a per-thread accumulator. Three ways
  a body may treat them: `cross` reads other threads' elements after a barrier and nothing
  closes the back edge (hoisting needs a barrier at the end of the body), `closed` is the
  same with that barrier written, and `own` reads only what the same thread wrote, with no
  barrier in the loop (hoisting needs none). Race-free and in bounds by construction.
- `helper_kernels()`: a kernel calling workgroup `func.func` helpers (two shared Funcs
  that one barrier lets share bytes), each call uniform, under a uniform branch, or
  under a branch on the thread id; thread t stores t + k + 1 to `%out[t]` through both
  Funcs of `h<k>`, so the output says which helper ran last. Launched with one block of
  `HELPER_BLOCK` threads and the scalar `%n` (0 or 2: the uniform branch is `%n > 1`).
- `mlir_form_loop_local_kernels()`: `loop_local_kernels()` written as MLIR writes them:
  each shared Func a `memref.alloc`/`memref.alloca` inside the loop, each shared type
  spelled one of `kernelgen.WORKGROUP_SPELLINGS`; heap Funcs, which have no MLIR form,
  stay `gpu_alloc.alloc`.
- `with_private_scratch(text)`: a kernelgen kernel with a private Func in its output loop.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from hypothesis import strategies as st
from kernelgen import (
    ELEMENT_TYPES,
    INPUT_SIZE,
    OUTPUT_PER_BLOCK,
    WORKGROUP_SPELLINGS,
    element_bytes,
    is_float,
)

BARRIER = '"gpu.barrier"() : () -> ()'
MODES = ("cross", "closed", "own")


@dataclass(frozen=True)
class LoopLocalKernel:
    text: str
    kernel: str
    grid: tuple[int, ...]
    block: tuple[int, ...]
    scalars: tuple[int, ...]
    mode: str
    """`cross`, `closed` or `own` (see the module docstring)."""

    @property
    def needs_barrier(self) -> bool:
        """Hoisting its Funcs needs a barrier the kernel does not have."""
        return self.mode == "cross"


@dataclass(frozen=True)
class _LoopFunc:
    space: int
    element: str
    size: int
    multiplier: int
    offset: int

    def type(self) -> str:
        return f"memref<{self.size}x{self.element}, {self.space} : i32>"


def _convert(value: str, source: str, target: str, fresh: list[int]) -> tuple[list[str], str]:
    """Lines converting `value` from `source` to `target`, and the result."""
    if source == target:
        return [], value
    fresh[0] += 1
    out = f"%cv{fresh[0]}"
    if is_float(source) and is_float(target):
        op = "arith.extf" if int(target[1:]) > int(source[1:]) else "arith.truncf"
        return [f"{out} = {op} {value} : {source} to {target}"], out
    if is_float(source):
        lines, mid = [f"{out} = arith.fptosi {value} : {source} to i32"], out
        more, final = _convert(mid, "i32", target, fresh)
        return lines + more, final
    if is_float(target):
        return [f"{out} = arith.sitofp {value} : {source} to {target}"], out
    op = "arith.extsi" if int(target[1:]) > int(source[1:]) else "arith.trunci"
    return [f"{out} = {op} {value} : {source} to {target}"], out


def _threads(block: tuple[int, ...]) -> int:
    count = 1
    for d in block:
        count *= d
    return count


def _prologue(block: tuple[int, ...], grid: tuple[int, ...]) -> list[str]:
    """Linear thread id %tid and block id %bid, as kernelgen computes them."""
    bx, by = (block + (1, 1))[:2]
    gx, gy = (grid + (1, 1))[:2]
    lines = []
    for d in "xyz":
        lines.append(f'%t{d} = "gpu.thread_id"() <{{dimension = #gpu<dim {d}>}}> : () -> index')
        lines.append(f'%b{d} = "gpu.block_id"() <{{dimension = #gpu<dim {d}>}}> : () -> index')
    lines += [
        f"%tyz = arith.muli %tz, %c{by} : index",
        "%tyz1 = arith.addi %tyz, %ty : index",
        f"%tyzx = arith.muli %tyz1, %c{bx} : index",
        "%tid = arith.addi %tyzx, %tx : index",
        f"%byz = arith.muli %bz, %c{gy} : index",
        "%byz1 = arith.addi %byz, %by : index",
        f"%byzx = arith.muli %byz1, %c{gx} : index",
        "%bid = arith.addi %byzx, %bx : index",
        "%in_base = arith.muli %bid, %c37 : index",
    ]
    return lines


def _loop_body(funcs: list[_LoopFunc], mode: str, step: str, iteration: str) -> list[str]:
    fresh = [0]
    lines: list[str] = []
    for k, f in enumerate(funcs):
        lines.append(f'%L{k} = "gpu_alloc.alloc"() <{{name = "l{k}"}}> : () -> {f.type()}')
    for k, f in enumerate(funcs):
        lines += [
            f"scf.for %w{k} = %tid to %c{f.size} step {step} {{",
            f"  %ws{k} = arith.addi %in_base, %w{k} : index",
            f"  %wr{k} = arith.addi %ws{k}, {iteration} : index",
            f"  %wi{k} = arith.remui %wr{k}, %c{INPUT_SIZE} : index",
            f"  %wv{k} = memref.load %in[%wi{k}] : memref<{INPUT_SIZE}xf32>",
        ]
        converted, value = _convert(f"%wv{k}", "f32", f.element, fresh)
        lines += [f"  {line}" for line in converted]
        lines.append(f"  memref.store {value}, %L{k}[%w{k}] : {f.type()}")
        if mode == "own":  # read back what this thread wrote, into its own accumulator slot
            lines.append(f"  %ow{k} = memref.load %L{k}[%w{k}] : {f.type()}")
            back, as_f32 = _convert(f"%ow{k}", f.element, "f32", fresh)
            lines += [f"  {line}" for line in back]
            lines += [
                f"  %oa{k} = arith.remui %w{k}, %c{OUTPUT_PER_BLOCK} : index",
                f"  %oc{k} = arith.cmpi ult, %w{k}, %c{OUTPUT_PER_BLOCK} : index",
                f"  scf.if %oc{k} {{",
                f"    %oo{k} = memref.load %acc[%oa{k}] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>",
                f"    %os{k} = arith.addf %oo{k}, {as_f32} : f32",
                f"    memref.store %os{k}, %acc[%oa{k}] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>",
                "  }",
            ]
        lines.append("}")
    if mode == "own":
        return lines
    lines.append(BARRIER)
    lines.append(f"scf.for %q = %tid to %c{OUTPUT_PER_BLOCK} step {step} {{")
    lines.append(f"  %qa = memref.load %acc[%q] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>")
    total = "%qa"
    for k, f in enumerate(funcs):
        lines += [
            f"  %qm{k} = arith.muli %q, %c{f.multiplier} : index",
            f"  %qo{k} = arith.addi %qm{k}, %c{f.offset} : index",
            f"  %qi{k} = arith.remui %qo{k}, %c{f.size} : index",
            f"  %qv{k} = memref.load %L{k}[%qi{k}] : {f.type()}",
        ]
        back, as_f32 = _convert(f"%qv{k}", f.element, "f32", fresh)
        lines += [f"  {line}" for line in back]
        lines.append(f"  %qt{k} = arith.addf {total}, {as_f32} : f32")
        total = f"%qt{k}"
    lines.append(f"  memref.store {total}, %acc[%q] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>")
    lines.append("}")
    if mode == "closed":
        lines.append(BARRIER)
    return lines


def _indent(lines: list[str], by: int = 2) -> list[str]:
    return [" " * by + line for line in lines]


def _wrap_loop(body: list[str], kind: str, trips: str) -> list[str]:
    """The body in an `scf.for` (its variable %r) or an `scf.while` (its counter %r)."""
    if kind == "for":
        return [f"scf.for %r = %c0 to {trips} step %c1 {{", *_indent(body), "}"]
    return [
        "%rend = scf.while (%rk = %c0) : (index) -> index {",
        f"  %rmore = arith.cmpi ult, %rk, {trips} : index",
        "  scf.condition(%rmore) %rk : index",
        "} do {",
        "^bb0(%r: index):",
        *_indent(body),
        "  %rnext = arith.addi %r, %c1 : index",
        "  scf.yield %rnext : index",
        "}",
    ]


@st.composite
def loop_local_kernels(draw: st.DrawFn) -> LoopLocalKernel:
    """Random kernels whose shared and heap Funcs are made in a loop body (module docstring)."""
    block = draw(st.sampled_from([(32,), (64,), (48,), (16, 4), (8, 2, 2)]))
    grid = draw(st.sampled_from([(1,), (2,), (2, 2)]))
    mode = draw(st.sampled_from(MODES))
    funcs = [
        _LoopFunc(
            draw(st.sampled_from([3, 3, 1])),
            draw(st.sampled_from(ELEMENT_TYPES)),
            draw(st.integers(1, OUTPUT_PER_BLOCK if mode == "own" else 100)),
            draw(st.sampled_from([1, 3, 5])),
            draw(st.integers(0, 7)),
        )
        for _ in range(draw(st.integers(1, 3)))
    ]
    trips_value = draw(st.integers(0, 3))
    dynamic = draw(st.booleans())
    trips = "%trips" if dynamic else f"%c{trips_value}"
    kind = draw(st.sampled_from(["for", "for", "while"]))
    n = _threads(block)
    body = _loop_body(funcs, mode, f"%c{n}", "%r")
    loop = _wrap_loop(body, kind, trips)
    if draw(st.booleans()):  # inside an outer loop with a barrier of its own
        loop = ["scf.for %outer = %c0 to %c2 step %c1 {", *_indent(loop), f"  {BARRIER}", "}"]
    constants = {0, 1, 2, 37, n, INPUT_SIZE, OUTPUT_PER_BLOCK, *block, *grid}
    constants |= {trips_value} | {f.size for f in funcs} | {f.multiplier for f in funcs}
    constants |= {f.offset for f in funcs}
    out_size = OUTPUT_PER_BLOCK * _threads(grid)
    lines = [f"%c{c} = arith.constant {c} : index" for c in sorted(constants)]
    lines += [*_prologue(block, grid)]
    lines += [
        f'%acc = "gpu_alloc.alloc"() <{{name = "acc"}}> : () -> memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>',
        "%zero = arith.constant 0.0 : f32",
        f"scf.for %z = %tid to %c{OUTPUT_PER_BLOCK} step %c{n} {{",
        f"  memref.store %zero, %acc[%z] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>",
        "}",
        BARRIER,
        *loop,
        BARRIER,
        f"scf.for %y = %tid to %c{OUTPUT_PER_BLOCK} step %c{n} {{",
        f"  %yv = memref.load %acc[%y] : memref<{OUTPUT_PER_BLOCK}xf32, 3 : i32>",
        f"  %yb = arith.muli %bid, %c{OUTPUT_PER_BLOCK} : index",
        "  %yp = arith.addi %yb, %y : index",
        f"  memref.store %yv, %out[%yp] : memref<{out_size}xf32>",
        "}",
        '"gpu.return"() : () -> ()',
    ]
    signature = f"(memref<{INPUT_SIZE}xf32>, memref<{out_size}xf32>, index) -> ()"
    text = "\n".join(
        [
            "builtin.module {",
            '  "gpu.module"() <{sym_name = "generated"}> ({',
            f'    "gpu.func"() <{{function_type = {signature}, kernel}}> ({{',
            f"    ^bb0(%in: memref<{INPUT_SIZE}xf32>, %out: memref<{out_size}xf32>, %trips: index):",
            *_indent(lines, 6),
            '    }) {sym_name = "loop_kernel"} : () -> ()',
            "  }) : () -> ()",
            "}",
            "",
        ]
    )
    return LoopLocalKernel(text, "loop_kernel", grid, block, (trips_value,), mode)


_SHARED_ALLOC = re.compile(
    r'"gpu_alloc\.alloc"\(\) <\{name = "l\d+"\}> : \(\) -> (?P<type>memref<[^>]*, 3 : i32>)'
)


@st.composite
def mlir_form_loop_local_kernels(draw: st.DrawFn) -> LoopLocalKernel:
    """`loop_local_kernels()` in MLIR's forms (module docstring)."""
    kernel = draw(loop_local_kernels())
    types = sorted(set(_SHARED_ALLOC.findall(kernel.text)))
    if not types:
        return kernel
    form = lambda: draw(st.sampled_from(["alloc", "alloca"]))  # noqa: E731
    text = _SHARED_ALLOC.sub(lambda m: f"memref.{form()}() : {m['type']}", kernel.text)
    for memref_type in types:
        spelling = draw(st.sampled_from(WORKGROUP_SPELLINGS))
        text = text.replace(memref_type, memref_type.replace("3 : i32>", f"{spelling}>"))
    return replace(kernel, text=text)


# ---- helpers called from uniform and thread-dependent code -------------------------------

CALL_SITES = ("uniform", "uniform_branch", "thread_branch")


HELPER_BLOCK = (64,)
"""The block a helper kernel is launched with (its `%out` holds one element a thread)."""


@dataclass(frozen=True)
class HelperKernel:
    text: str
    call_sites: tuple[tuple[str, ...], ...]
    """Per helper `h<k>`, how each of its calls is made (`CALL_SITES`)."""

    def uniform(self, helper: int) -> bool:
        """Every call of `h<helper>` is made by the whole block, and there is one."""
        sites = self.call_sites[helper]
        return bool(sites) and "thread_branch" not in sites


def _helper(k: int, size: int) -> str:
    memref_type = f"memref<{size}xf32, #gpu.address_space<workgroup>>"
    return f"""
  func.func @h{k}(%out: memref<64xf32>, %i: index) {{
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %ck = arith.constant {k + 1}.0 : f32
    %v = arith.addf %fi, %ck : f32
    %a = memref.alloc() : {memref_type}
    %b = memref.alloc() : {memref_type}
    memref.store %v, %a[%i] : {memref_type}
    %x = memref.load %a[%i] : {memref_type}
    memref.store %x, %b[%i] : {memref_type}
    %y = memref.load %b[%i] : {memref_type}
    memref.store %y, %out[%i] : memref<64xf32>
    return
  }}"""


def _call(k: int, site: str, index: int) -> list[str]:
    call = f"func.call @h{k}(%out, %t) : (memref<64xf32>, index) -> ()"
    if site == "uniform":
        return [call]
    condition = "%n, %c1" if site == "uniform_branch" else f"%t, %c{index}"
    return [
        f"%p{k}_{index} = arith.cmpi ugt, {condition} : index",
        f"scf.if %p{k}_{index} {{",
        f"  {call}",
        "}",
    ]


@st.composite
def helper_kernels(draw: st.DrawFn) -> HelperKernel:
    """A kernel calling 1-3 workgroup helpers from uniform and thread-dependent code."""
    count = draw(st.integers(1, 3))
    sites = tuple(
        tuple(draw(st.lists(st.sampled_from(CALL_SITES), min_size=0, max_size=2)))
        for _ in range(count)
    )
    helpers = "".join(_helper(k, draw(st.integers(64, 96))) for k in range(count))
    calls: list[str] = []
    for k, helper_sites in enumerate(sites):
        for index, site in enumerate(helper_sites):
            calls += _call(k, site, 8 + index)
    body = "\n".join(f"    {line}" for line in calls)
    text = f"""
gpu.module @m {{{helpers}
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {{
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    %c9 = arith.constant 9 : index
    %t = gpu.thread_id x
{body}
    gpu.return
  }}
}}
"""
    return HelperKernel(text, sites)


# ---- a private Func in a kernelgen kernel -------------------------------------------------


def with_private_scratch(text: str) -> str:
    """`text` (a `kernelgen` kernel) with a private Func `scratch` made in its output loop:
    each thread stores the value it is about to write and loads it back."""
    anchor = "%zero = arith.constant 0.0 : f32"
    assert anchor in text
    scratch = (
        f"{anchor}\n"
        '        %scratch = "gpu_alloc.alloc"() <{name = "scratch"}> : () -> memref<2xf32, 5 : i32>\n'
        "        %scratch_i = arith.constant 1 : index\n"
        "        memref.store %zero, %scratch[%scratch_i] : memref<2xf32, 5 : i32>\n"
        "        %zero_back = memref.load %scratch[%scratch_i] : memref<2xf32, 5 : i32>"
    )
    return text.replace(anchor, scratch, 1)


__all__ = [
    "HELPER_BLOCK",
    "HelperKernel",
    "LoopLocalKernel",
    "element_bytes",
    "helper_kernels",
    "loop_local_kernels",
    "mlir_form_loop_local_kernels",
    "with_private_scratch",
]
