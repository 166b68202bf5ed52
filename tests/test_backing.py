"""The dialect's one rule for backings and its one definition of the heap contract."""

from __future__ import annotations

import pytest
from gpu_alloc.dialect import (
    HEAP_BYTES_PER_BLOCK,
    AllocOp,
    heap_bytes_per_block,
    is_backing,
    set_heap_bytes_per_block,
)
from gpu_alloc.tools.sim_loading import make_context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i32
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

KERNEL = """
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = ({args}) -> (), kernel}}> ({{
    ^bb0({block_args}):
      %c0 = arith.constant 0 : index
      %marked = gpu_alloc.alloc "marked" backing : memref<64xi8, 3 : i32>
      %legacy = gpu_alloc.alloc "legacy" : memref<64xi8, 3 : i32>
      %p = gpu_alloc.offset_pointer %legacy[%c0] : memref<64xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %plain = gpu_alloc.alloc "plain" : memref<64xi8, 3 : i32>
      %v = memref.view %plain[%c0][] : memref<64xi8, 3 : i32> to memref<16xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
}}
"""


def parse(args: str = "", block_args: str = "") -> ModuleOp:
    module = Parser(make_context(), KERNEL.format(args=args, block_args=block_args)).parse_module()
    module.verify()
    return module


def allocs(module: ModuleOp) -> dict[str, AllocOp]:
    return {op.alloc_name.data: op for op in module.walk() if isinstance(op, AllocOp)}


def kernel_of(module: ModuleOp) -> gpu.FuncOp:
    return next(op for op in module.walk() if isinstance(op, gpu.FuncOp))


def test_is_backing_asks_the_property_then_the_legacy_rule():
    found = allocs(parse())
    assert is_backing(found["marked"])  # the property, even without a pointer
    assert is_backing(found["legacy"])  # no property, but an offset_pointer uses it
    assert not is_backing(found["plain"])  # a view is not a pointer: a plain allocation


def test_heap_contract_round_trips_on_a_lowered_kernel():
    kernel = kernel_of(parse("memref<?xi8, 1 : i32>", "%heap: memref<?xi8, 1 : i32>"))
    assert heap_bytes_per_block(kernel) is None
    set_heap_bytes_per_block(kernel, 80)
    assert heap_bytes_per_block(kernel) == 80


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (IntegerAttr(80, i32), "must be a positive i64 integer"),
        (IntegerAttr(0, 64), "must be a positive i64 integer"),
        (StringAttr("80"), "must be a positive i64 integer"),
    ],
)
def test_malformed_heap_contract_is_refused(value, message: str):
    kernel = kernel_of(parse("memref<?xi8, 1 : i32>", "%heap: memref<?xi8, 1 : i32>"))
    kernel.attributes[HEAP_BYTES_PER_BLOCK] = value
    with pytest.raises(VerifyException, match=message):
        heap_bytes_per_block(kernel)


def test_heap_contract_needs_the_heap_argument():
    kernel = kernel_of(parse())
    set_heap_bytes_per_block(kernel, 64)
    with pytest.raises(VerifyException, match="last argument is not a heap buffer"):
        heap_bytes_per_block(kernel)
