"""The 24 Halide-style kernels: stencil chains, mixed element types, camera-pipe-like DAGs
and chains with a Func in the heap, written in the IR contract (one `gpu_alloc.alloc` per
Func tile, block-level stages separated by `gpu.barrier`).

Each kernel computes one 8x8 output tile per block of 16x16 threads. A Func is a tile
whose value at (y, x) is a sum of taps `coefficient * source(y + dy, x + dx)` (dy, dx in
{0, 1, 2}), converted to the Func's element type first; the first Func loads the input,
the last one is stored to the output. Tiles are sized backwards from the output so that
every tap stays in bounds (as Halide's bounds inference would size them). Float
coefficients are powers of two and the sums run in a fixed order, so the simulator, PoCL
and Oclgrind compute bit-identical results.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from differential import Launch

TILE = 8
BLOCK = (16, 16)
GRID = (2, 1)


@dataclass(frozen=True)
class Tap:
    source: str
    dy: int
    dx: int
    coefficient: int = 1


@dataclass(frozen=True)
class Func:
    name: str
    element: str
    taps: tuple[Tap, ...]
    space: int = 3


@dataclass(frozen=True)
class Pipeline:
    name: str
    input_element: str
    funcs: tuple[Func, ...]  # in stage order; funcs[0] reads the input ("in")
    output_element: str
    notes: tuple[str, ...] = field(default=())


def _is_float(element: str) -> bool:
    return element.startswith("f")


def _sizes(pipeline: Pipeline) -> dict[str, int]:
    """Each Func's square tile side: the output tile, grown by the consumers' taps."""
    sizes = {pipeline.funcs[-1].name: TILE}
    for func in reversed(pipeline.funcs):
        side = sizes.setdefault(func.name, TILE)
        for tap in func.taps:
            need = side + max(tap.dy, tap.dx)
            sizes[tap.source] = max(sizes.get(tap.source, 0), need)
    return sizes


class _Text:
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"

    def add(self, line: str) -> None:
        self.lines.append("      " + line)


def _convert(t: _Text, value: str, source: str, target: str) -> str:
    if source == target:
        return value
    result = t.fresh("cv")
    if _is_float(source) and _is_float(target):
        op = "arith.extf" if int(target[1:]) > int(source[1:]) else "arith.truncf"
    elif _is_float(target):
        op = "arith.sitofp"
    elif _is_float(source):
        op = "arith.fptosi"
    else:
        op = "arith.extsi" if int(target[1:]) > int(source[1:]) else "arith.trunci"
    t.add(f"{result} = {op} {value} : {source} to {target}")
    return result


def _constant(t: _Text, value: int, element: str) -> str:
    result = t.fresh("k")
    literal = f"{float(value) / 4:e}" if _is_float(element) else str(value)
    t.add(f"{result} = arith.constant {literal} : {element}")
    return result


def _memref(side: int, element: str, space: int) -> str:
    return f"memref<{side}x{side}x{element}, {space} : i32>"


def kernel_text(pipeline: Pipeline) -> str:
    """The MLIR of `pipeline` as one kernel (generic syntax, as examples/stencil_chain.mlir)."""
    sizes = _sizes(pipeline)
    apron = sizes[pipeline.funcs[0].name] - TILE
    in_type = f"memref<{GRID[1] * TILE + apron}x{GRID[0] * TILE + apron}x{pipeline.input_element}>"
    out_type = f"memref<{GRID[1] * TILE}x{GRID[0] * TILE}x{pipeline.output_element}>"
    t = _Text()
    elements = {"in": pipeline.input_element, **{f.name: f.element for f in pipeline.funcs}}
    types = {f.name: _memref(sizes[f.name], f.element, f.space) for f in pipeline.funcs}
    t.add("%c0 = arith.constant 0 : index")
    for offset in (1, 2):
        t.add(f"%c{offset} = arith.constant {offset} : index")
    t.add(f"%c{TILE} = arith.constant {TILE} : index")
    t.add('%tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index')
    t.add('%ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index')
    t.add('%bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index')
    t.add('%by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index')
    t.add(f"%x0 = arith.muli %bx, %c{TILE} : index")
    t.add(f"%y0 = arith.muli %by, %c{TILE} : index")
    t.add("%gx = arith.addi %x0, %tx : index")
    t.add("%gy = arith.addi %y0, %ty : index")
    for dy in (1, 2):
        t.add(f"%ty{dy} = arith.addi %ty, %c{dy} : index")
        t.add(f"%tx{dy} = arith.addi %tx, %c{dy} : index")
        t.add(f"%gy{dy} = arith.addi %gy, %c{dy} : index")
        t.add(f"%gx{dy} = arith.addi %gx, %c{dy} : index")
    for func in pipeline.funcs:
        t.add(
            f'%{func.name} = "gpu_alloc.alloc"() <{{name = "{func.name}"}}> : () -> {types[func.name]}'
        )
    for stage, func in enumerate(pipeline.funcs):
        last = stage == len(pipeline.funcs) - 1
        side = TILE if last else sizes[func.name]
        t.add(f"// stage {stage}: {func.name}")
        bound = t.fresh("n")
        t.add(f"{bound} = arith.constant {side} : index")
        inx, iny, inside = t.fresh("inx"), t.fresh("iny"), t.fresh("in")
        t.add(f"{inx} = arith.cmpi ult, %tx, {bound} : index")
        t.add(f"{iny} = arith.cmpi ult, %ty, {bound} : index")
        t.add(f"{inside} = arith.andi {inx}, {iny} : i1")
        t.add(f"scf.if {inside} {{")
        total = None
        for tap in func.taps:
            loaded = t.fresh("ld")
            if tap.source == "in":
                y = "%gy" if tap.dy == 0 else f"%gy{tap.dy}"
                x = "%gx" if tap.dx == 0 else f"%gx{tap.dx}"
                t.add(f"  {loaded} = memref.load %in[{y}, {x}] : {in_type}")
            else:
                y = "%ty" if tap.dy == 0 else f"%ty{tap.dy}"
                x = "%tx" if tap.dx == 0 else f"%tx{tap.dx}"
                t.add(f"  {loaded} = memref.load %{tap.source}[{y}, {x}] : {types[tap.source]}")
            value = _convert(t, loaded, elements[tap.source], func.element)
            if tap.coefficient != 1:
                k = _constant(t, tap.coefficient, func.element)
                scaled = t.fresh("m")
                op = "arith.mulf" if _is_float(func.element) else "arith.muli"
                t.add(f"{scaled} = {op} {value}, {k} : {func.element}")
                value = scaled
            if total is None:
                total = value
            else:
                summed = t.fresh("s")
                op = "arith.addf" if _is_float(func.element) else "arith.addi"
                t.add(f"{summed} = {op} {total}, {value} : {func.element}")
                total = summed
        assert total is not None
        t.add(f"  memref.store {total}, %{func.name}[%ty, %tx] : {types[func.name]}")
        if last:
            stored = _convert(t, total, func.element, pipeline.output_element)
            t.add(f"  memref.store {stored}, %out[%gy, %gx] : {out_type}")
        t.add("}")
        if not last:
            t.add('"gpu.barrier"() : () -> ()')
    body = "\n".join(t.lines)
    return "\n".join(
        [
            f"// Halide-style kernel {pipeline.name} (tests/halide_style.py).",
            "builtin.module {",
            f'  "gpu.module"() <{{sym_name = "{pipeline.name}"}}> ({{',
            f'    "gpu.func"() <{{function_type = ({in_type}, {out_type}) -> (), kernel}}> ({{',
            f"    ^bb0(%in: {in_type}, %out: {out_type}):",
            body,
            '      "gpu.return"() : () -> ()',
            f'    }}) {{sym_name = "{pipeline.name}"}} : () -> ()',
            "  }) : () -> ()",
            "}",
            "",
        ]
    )


def _chain(name: str, length: int, element: str, input_element: str | None = None) -> Pipeline:
    source = input_element or element
    funcs = [Func("f0", element, (Tap("in", 0, 0),))]
    for k in range(1, length + 1):
        funcs.append(Func(f"f{k}", element, (Tap(f"f{k - 1}", 0, 0), Tap(f"f{k - 1}", 1, 1, 2))))
    return Pipeline(name, source, tuple(funcs), element)


def _mixed(name: str, elements: tuple[str, ...]) -> Pipeline:
    funcs = [Func("f0", elements[1], (Tap("in", 0, 0),))]
    for k, element in enumerate(elements[2:], start=1):
        funcs.append(Func(f"f{k}", element, (Tap(f"f{k - 1}", 0, 1), Tap(f"f{k - 1}", 1, 0))))
    return Pipeline(name, elements[0], tuple(funcs), elements[-1])


def _camera(name: str, element: str) -> Pipeline:
    """Camera-pipe-like: denoise, two demosaic branches, a combine that also reads the
    denoised tile (long-lived), a colour correction."""
    return Pipeline(
        name,
        element,
        (
            Func("raw", element, (Tap("in", 0, 0),)),
            Func("denoised", element, (Tap("raw", 0, 0), Tap("raw", 1, 1))),
            Func("green", element, (Tap("denoised", 0, 1), Tap("denoised", 1, 0, 2))),
            Func("red", element, (Tap("denoised", 0, 0), Tap("denoised", 1, 1, 3))),
            Func("rgb", element, (Tap("green", 0, 0), Tap("red", 0, 0), Tap("denoised", 1, 1))),
            Func("corrected", element, (Tap("rgb", 0, 0, 2), Tap("rgb", 1, 1))),
        ),
        element,
    )


def _unsharp(name: str, element: str) -> Pipeline:
    return Pipeline(
        name,
        element,
        (
            Func("input", element, (Tap("in", 0, 0),)),
            Func(
                "blur_x", element, (Tap("input", 0, 0), Tap("input", 0, 1, 2), Tap("input", 0, 2))
            ),
            Func(
                "blur_y",
                element,
                (Tap("blur_x", 0, 0), Tap("blur_x", 1, 0, 2), Tap("blur_x", 2, 0)),
            ),
            Func("sharp", element, (Tap("input", 1, 1, 3), Tap("blur_y", 0, 0))),
        ),
        element,
    )


def _heap_chain(name: str, length: int, element: str) -> Pipeline:
    chain = _chain(name, length, element)
    funcs = tuple(
        Func(f.name, f.element, f.taps, space=1 if k == 1 else 3) for k, f in enumerate(chain.funcs)
    )
    return Pipeline(name, chain.input_element, funcs, chain.output_element)


PIPELINES: tuple[Pipeline, ...] = (
    *(
        _chain(f"chain{length}_{element}", length, element)
        for length in (2, 3, 4, 5)
        for element in ("i32", "f32", "i16")
    ),
    _mixed("mixed_i8_i32", ("i8", "i16", "i32", "i32")),
    _mixed("mixed_i16_f32", ("i16", "i32", "f32", "f32")),
    _mixed("mixed_i32_f64", ("i32", "f32", "f64", "f64")),
    _mixed("mixed_i8_f32", ("i8", "i16", "i32", "f32", "f32")),
    _camera("camera_i32", "i32"),
    _camera("camera_f32", "f32"),
    _unsharp("unsharp_f32", "f32"),
    _unsharp("unsharp_i16", "i16"),
    _heap_chain("heap_chain3_i32", 3, "i32"),
    _heap_chain("heap_chain4_f32", 4, "f32"),
    _heap_chain("heap_chain3_f64", 3, "f64"),
    _heap_chain("heap_chain5_i16", 5, "i16"),
)
assert len(PIPELINES) == 24

LAUNCH = Launch(grid=GRID, block=BLOCK)


def halide_kernels() -> list[tuple[str, str]]:
    """(name, MLIR text) of each of the 24 kernels."""
    return [(p.name, kernel_text(p)) for p in PIPELINES]
