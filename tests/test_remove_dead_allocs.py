"""remove-dead-allocs: what is read stays, what is only written goes, to a fixed point."""

from __future__ import annotations

import pytest
from gpu_alloc.dialect.ops import AliasOp, AllocOp
from gpu_alloc.transforms import RemoveDeadAllocsPass
from interpret import parse, run_threads
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


def chain(length: int, read_last: bool, fused: bool) -> str:
    """f0 = t; f[i] = f[i-1] + 1; out[t] = f[last] (if read_last) else 7.

    With `fused`, every Func is an alias into one private backing `buf`.
    """
    lines: list[str] = []
    if fused:
        lines.append(f'%buf = gpu_alloc.alloc "buf" : memref<{64 * length}xi8, 5 : i32>')
    for i in range(length):
        if fused:
            lines.append(f"%off{i} = arith.constant {64 * i} : index")
            lines.append(
                f"%p{i} = gpu_alloc.offset_pointer %buf[%off{i}] : "
                f"memref<{64 * length}xi8, 5 : i32> -> !gpu_alloc.ptr<5 : i32>"
            )
            lines.append(
                f'%f{i} = gpu_alloc.alias "f{i}" %p{i} : !gpu_alloc.ptr<5 : i32> -> '
                "memref<16xi32, 5 : i32>"
            )
        else:
            lines.append(f'%f{i} = gpu_alloc.alloc "f{i}" : memref<16xi32, 5 : i32>')
    lines.append("memref.store %ti, %f0[%c0] : memref<16xi32, 5 : i32>")
    for i in range(1, length):
        lines.append(f"%v{i} = memref.load %f{i - 1}[%c0] : memref<16xi32, 5 : i32>")
        lines.append(f"%w{i} = arith.addi %v{i}, %one : i32")
        lines.append(f"memref.store %w{i}, %f{i}[%c0] : memref<16xi32, 5 : i32>")
    if read_last:
        lines.append(f"%r = memref.load %f{length - 1}[%c0] : memref<16xi32, 5 : i32>")
    else:
        lines.append("%r = arith.constant 7 : i32")
    lines.append("memref.store %r, %out[%t] : memref<64xi32>")
    body = "\n      ".join(lines)
    return f"""
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<64xi32>) -> (), kernel}}> ({{
    ^bb0(%out: memref<64xi32>):
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i32
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %ti = arith.index_cast %t : index to i32
      {body}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
}}
"""


def _storage_names(module: ModuleOp) -> list[str]:
    names: list[str] = []
    for op in module.walk():
        if isinstance(op, AllocOp):
            names.append(op.alloc_name.data)
        elif isinstance(op, AliasOp):
            names.append(op.alias_name.data)
    return names


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("length", [1, 2, 5])
def test_a_write_only_chain_is_removed_entirely(length: int, fused: bool):
    module = parse(chain(length, read_last=False, fused=fused))
    RemoveDeadAllocsPass().apply(Context(), module)
    module.verify()
    assert _storage_names(module) == []
    assert not any(op.name.startswith(("gpu_alloc.", "memref.load")) for op in module.walk())
    assert run_threads(module, [64], [], threads=4)[0][:4] == [7] * 4


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("length", [1, 2, 5])
def test_a_read_chain_is_kept_with_its_backing(length: int, fused: bool):
    text = chain(length, read_last=True, fused=fused)
    module = parse(text)
    RemoveDeadAllocsPass().apply(Context(), module)
    assert str(module) == str(parse(text))
    # Thread t computes t + (length - 1).
    assert run_threads(module, [64], [], threads=4)[0][:4] == [t + length - 1 for t in range(4)]


def test_the_pass_is_idempotent():
    module = parse(chain(3, read_last=False, fused=True))
    RemoveDeadAllocsPass().apply(Context(), module)
    once = str(module)
    RemoveDeadAllocsPass().apply(Context(), module)
    assert str(module) == once


# Issue 30's reproducer, fused by hand: a (256 B), the write-only d (48 B) and b (256 B),
# all live in stage 0, with d between them; fuse recorded 560 B as proven optimal (the
# 16-byte alignment of b). Once d is gone, a and b need 512 B: the 48 B hole stays (b is
# not moved), so 560 B is neither optimal nor "saves -48 B".
HOLE = """
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c256 = arith.constant 256 : index
    %c304 = arith.constant 304 : index
    %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 {gpu_alloc.proven_optimal, gpu_alloc.layout = [{name = "a", offset = 0 : i64, bytes = 256 : i64, stages = array<i64: 0, 1>}, {name = "b", offset = 304 : i64, bytes = 256 : i64, stages = array<i64: 0, 1>}, {name = "d", offset = 256 : i64, bytes = 48 : i64, stages = array<i64: 0, 0>}]} : memref<560xi8, 3 : i32>
    %0 = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<560xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %a = gpu_alloc.alias "a" %0 : !gpu_alloc.ptr<3 : i32> -> memref<64xf32, 3 : i32>
    %1 = gpu_alloc.offset_pointer %shared_alloc[%c256] : memref<560xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %d = gpu_alloc.alias "d" %1 : !gpu_alloc.ptr<3 : i32> -> memref<12xf32, 3 : i32>
    %2 = gpu_alloc.offset_pointer %shared_alloc[%c304] : memref<560xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %b = gpu_alloc.alias "b" %2 : !gpu_alloc.ptr<3 : i32> -> memref<64xf32, 3 : i32>
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    memref.store %one, %a[%t] : memref<64xf32, 3 : i32>
    memref.store %one, %d[%c0] : memref<12xf32, 3 : i32>
    memref.store %two, %b[%t] : memref<64xf32, 3 : i32>
    gpu.barrier
    %v = memref.load %a[%t] : memref<64xf32, 3 : i32>
    %w = memref.load %b[%t] : memref<64xf32, 3 : i32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


def test_a_hole_left_behind_drops_the_proven_optimal_claim():
    import gpu_alloc.api as ga
    from gpu_alloc.dialect import LOWER_BOUND_ATTR, PROVEN_OPTIMAL_ATTR
    from gpu_alloc.tools.layout import fused_layouts
    from gpu_alloc.tools.layout_svg import _heading

    module = ga.parse(HOLE)
    before = ga.fusion_result(module).kernels[0].spaces[0]
    assert (before.fused_bytes, before.lower_bound, before.proven) == (560, 560, True)
    RemoveDeadAllocsPass().apply(Context(), module)
    module.verify()
    assert _storage_names(module) == ["shared_alloc", "a", "b"]
    backing = next(op for op in module.walk() if isinstance(op, AllocOp))
    assert PROVEN_OPTIMAL_ATTR not in backing.attributes
    assert LOWER_BOUND_ATTR not in backing.attributes
    after = ga.fusion_result(module).kernels[0].spaces[0]
    # By hand: a + b = 512 B live at once is the bound; the 560-byte backing stays.
    assert (after.unfused_bytes, after.fused_bytes, after.lower_bound, after.proven) == (
        512,
        560,
        512,
        False,
    )
    out = ga.simulate(module, grid=[1], block=[64]).arrays()["out"]
    assert out.tolist() == [3.0] * 64
    heading = _heading(fused_layouts(module)[0])[1]
    assert "saves -" not in heading and "(48 B more than unfused)" in heading
    assert heading.endswith("lower bound 512 B (not proven optimal)")
