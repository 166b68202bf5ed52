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
