"""Property test of fuse-gpu-allocs against an independent checker.

A generator writes random kernels stage by stage (random Funcs of random element
types and sizes in shared or heap memory, each used over a random range of stages,
optionally a block-level loop with barriers around some stages, and some stage
barriers replaced by barriers that may not run: under a uniform `scf.if` in one
branch, in an `scf.for` with a dynamic or zero trip count) and knows, in its own
terms, which Funcs may be live at the same time (a barrier that may not run
separates nothing). The checker reads the fused IR
(each alias's backing, constant offset and byte size) and confirms that:

- no two Funcs that may be live at the same time share a byte;
- every offset is a multiple of max(16, element size);
- every Func ends inside its backing (Halide's bug 7.4);
- the shared backing never exceeds Halide's slot grouping on the same Funcs.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect import AliasOp, AllocOp, GpuAlloc, OffsetPointerOp, is_backing
from gpu_alloc.packing import PackItem
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.fuse.halide_grouping import halide_grouping
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.context import Context
from xdsl.dialects import arith, builtin, gpu, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.parser import Parser

ELEMENT_TYPES = {"i8": 1, "i16": 2, "i32": 4, "f32": 4, "f64": 8, "i64": 8}
VALUES = {"i8": "1 : i8", "i16": "1 : i16", "i32": "1 : i32", "i64": "1 : i64"}
VALUES |= {"f32": "1.0 : f32", "f64": "1.0 : f64"}


@dataclass(frozen=True)
class GenFunc:
    name: str
    space: int
    element: str
    count: int
    first: int
    last: int

    @property
    def bytes(self) -> int:
        return ELEMENT_TYPES[self.element] * self.count

    @property
    def type(self) -> str:
        return f"memref<{self.count}x{self.element}, {self.space} : i32>"


WEAK_BARRIERS = {
    "if_then": ("%cond{s} = arith.cmpi ugt, %n, %c1 : index", "scf.if %cond{s} {{\n{b}\n}}"),
    "if_else": (
        "%cond{s} = arith.cmpi ugt, %n, %c1 : index",
        "scf.if %cond{s} {{\n}} else {{\n{b}\n}}",
    ),
    "for_dynamic": ("", "scf.for %j{s} = %c0 to %n step %c1 {{\n{b}\n}}"),
    "for_zero": ("", "scf.for %j{s} = %c0 to %c0 step %c1 {{\n{b}\n}}"),
}
"""Barriers that may not run: each separates no stages."""


@dataclass(frozen=True)
class GenKernel:
    funcs: tuple[GenFunc, ...]
    stages: int
    loop: tuple[int, int] | None
    """Stages [a, b] wrapped in a block-level loop, with a barrier on its back edge."""
    weak: tuple[tuple[int, str], ...] = ()
    """(s, kind): the barrier after stage s is one of `WEAK_BARRIERS` (outside the loop)."""

    def merged(self, stage: int) -> int:
        """The stage index once the boundaries of weak barriers are removed."""
        return stage - sum(1 for s, _ in self.weak if s < stage)

    def live_range(self, func: GenFunc) -> tuple[int, int]:
        """The stages during which `func` may be live, in the generator's terms."""
        first, last = func.first, func.last
        if self.loop is not None:
            a, b = self.loop
            if first <= b and a <= last:  # used inside the loop, allocated outside it
                first, last = min(first, a), max(last, b)
        return self.merged(first), self.merged(last)

    def text(self) -> str:
        lines = [
            "builtin.module {",
            '  "gpu.module"() <{sym_name = "m"}> ({',
            '    "gpu.func"() <{function_type = (index) -> (), kernel}> ({',
            "    ^bb0(%n: index):",
            "      %c0 = arith.constant 0 : index",
            "      %c1 = arith.constant 1 : index",
            "      %c2 = arith.constant 2 : index",
            '      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        ]
        for element, value in VALUES.items():
            lines.append(f"      %v_{element} = arith.constant {value}")
        for f in self.funcs:
            lines.append(
                f'      %{f.name} = "gpu_alloc.alloc"() <{{name = "{f.name}"}}> : () -> {f.type}'
            )
        for stage in range(self.stages):
            if self.loop is not None and stage == self.loop[0]:
                lines.append("      scf.for %i = %c0 to %c2 step %c1 {")
            for f in self.funcs:
                if stage == f.first:
                    lines.append(f"      memref.store %v_{f.element}, %{f.name}[%c0] : {f.type}")
                elif f.first < stage <= f.last:
                    lines.append(
                        f"      %r{stage}_{f.name} = memref.load %{f.name}[%c0] : {f.type}"
                    )
            weak = dict(self.weak).get(stage)
            if weak is None:
                lines.append('      "gpu.barrier"() : () -> ()')
            else:
                setup, construct = WEAK_BARRIERS[weak]
                text = construct.format(b='"gpu.barrier"() : () -> ()', s=stage)
                setup = setup.format(s=stage)
                lines += [f"      {line}" for line in [setup, *text.split("\n")] if line]
            if self.loop is not None and stage == self.loop[1]:
                lines.append("      }")
        lines += [
            '      "gpu.return"() : () -> ()',
            '    }) {sym_name = "k"} : () -> ()',
            "  }) : () -> ()",
            "}",
        ]
        return "\n".join(lines)


@st.composite
def kernels(draw: st.DrawFn) -> GenKernel:
    stages = draw(st.integers(1, 6))
    n = draw(st.integers(1, 8))
    funcs = []
    for k in range(n):
        first = draw(st.integers(0, stages - 1))
        last = draw(st.integers(first, stages - 1))
        funcs.append(
            GenFunc(
                name=f"f{k}",
                space=draw(st.sampled_from([3, 3, 3, 1])),
                element=draw(st.sampled_from(sorted(ELEMENT_TYPES))),
                count=draw(st.integers(1, 40)),
                first=first,
                last=last,
            )
        )
    loop = None
    if stages >= 2 and draw(st.booleans()):
        a = draw(st.integers(0, stages - 2))
        loop = (a, draw(st.integers(a + 1, stages - 1)))
    outside = [s for s in range(stages - 1) if loop is None or not loop[0] - 1 <= s <= loop[1]]
    chosen = draw(st.lists(st.sampled_from(outside), unique=True)) if outside else []
    weak = tuple((s, draw(st.sampled_from(sorted(WEAK_BARRIERS)))) for s in sorted(chosen))
    return GenKernel(tuple(funcs), stages, loop, weak)


def fuse(text: str) -> builtin.ModuleOp:
    ctx = Context()
    for dialect in (builtin.Builtin, gpu.GPU, arith.Arith, memref.MemRef, scf.Scf, GpuAlloc):
        ctx.load_dialect(dialect)
    module = Parser(ctx, text).parse_module()
    FuseGpuAllocsPass().apply(ctx, module)
    module.verify()
    return module


def constant_value(op) -> int:
    assert isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr)
    return op.value.value.data


def placed_bytes(module: builtin.ModuleOp) -> dict[str, tuple[str, int, int]]:
    """Func name -> (backing name, offset within the backing, byte size)."""
    placed: dict[str, tuple[str, int, int]] = {}
    for op in module.walk():
        if isinstance(op, AliasOp):
            pointer = op.pointer.owner
            assert isinstance(pointer, OffsetPointerOp)
            backing = pointer.backing.owner
            assert isinstance(backing, AllocOp)
            assert is_backing(backing) and backing.backing is not None
            offset_op = pointer.offset.owner
            memref_type = op.memref.type
            assert isinstance(memref_type, MemRefType)
            size = ELEMENT_TYPES[str(memref_type.element_type)] * memref_type.get_shape()[0]
            placed[op.alias_name.data] = (backing.alloc_name.data, constant_value(offset_op), size)
    return placed


@settings(max_examples=120, deadline=None)
@given(kernels())
def test_fused_layout_is_sound(kernel: GenKernel):
    module = fuse(kernel.text())
    placed = placed_bytes(module)
    backing_sizes = {
        op.alloc_name.data: op.memref.type.get_shape()[0]
        for op in module.walk()
        if isinstance(op, AllocOp) and isinstance(op.memref.type, MemRefType)
    }
    shared = [f for f in kernel.funcs if f.space == 3]
    for f in kernel.funcs:
        if len([g for g in kernel.funcs if g.space == f.space]) == 1:
            assert f.name not in placed  # a lone Func of its space keeps its allocation
            continue
        backing, offset, size = placed[f.name]
        assert size == f.bytes
        limit = backing_sizes[backing]  # per-block storage in both spaces
        # at the alignment option (16), unless that would be larger than unfused: then at
        # the Func's own alignment, the backing no larger than the Funcs one after another
        unfused = sum(g.bytes for g in kernel.funcs if g.space == f.space)
        element = ELEMENT_TYPES[f.element]
        assert offset % max(16, element) == 0 or (offset % element == 0 and limit <= unfused), (
            f,
            offset,
        )
        assert offset + size <= limit, (f, offset, limit)
    for a in kernel.funcs:
        for b in kernel.funcs:
            if a.name >= b.name or a.space != b.space or a.name not in placed:
                continue
            ra, rb = kernel.live_range(a), kernel.live_range(b)
            if ra[0] <= rb[1] and rb[0] <= ra[1]:
                _, oa, sa = placed[a.name]
                _, ob, sb = placed[b.name]
                assert oa + sa <= ob or ob + sb <= oa, (kernel.text(), a, b, placed)
    if len(shared) > 1:
        items = [
            PackItem(
                kernel.live_range(f)[0],
                kernel.live_range(f)[1] + 1,
                f.bytes,
                max(16, ELEMENT_TYPES[f.element]),
            )
            for f in shared
        ]
        halide = max(o + i.size for o, i in zip(halide_grouping(items), items, strict=True))
        assert backing_sizes["shared_alloc"] <= halide
