"""stripe-lane-allocs: same results per thread, one stripe per lane, heap/shared kept.

The kernels' threads do not communicate, so they are run one after the other with
xDSL's interpreter (tests/interpret.py), before and after the pass.
"""

from __future__ import annotations

import pytest
from gpu_alloc.dialect.ops import AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms import StripeLaneAllocsPass
from interpret import parse, run_threads
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ModuleOp

LANES = {
    "remui": '%t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
    "      %lane = arith.remui %t, %c32 : index",
    "lane_id": '%t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
    '      %lane = "gpu.lane_id"() : () -> index',
}


def kernel(lane: str, size: str, space: int = 5) -> str:
    """Thread t writes r[lane + 32k] = 10t + k for k < 4, then reads back the stripe
    element k = (t + 1) % 4 and r[lane], and stores their sum to out[t]."""
    memref_type = "memref<128xi32, 5 : i32>" if size == "static" else "memref<?xi32, 5 : i32>"
    memref_type = memref_type.replace("5 : i32", f"{space} : i32")
    sizes = "" if size == "static" else "(%n)"
    return f"""
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<64xi32>, index) -> (), kernel}}> ({{
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      {LANES[lane]}
      %r = gpu_alloc.alloc "r"{sizes} : {memref_type}
      %ti = arith.index_cast %t : index to i32
      %ten = arith.constant 10 : i32
      %t10 = arith.muli %ti, %ten : i32
      scf.for %k = %c0 to %c4 step %c1 {{
        %m = arith.muli %k, %c32 : index
        %i = arith.addi %lane, %m : index
        %ki = arith.index_cast %k : index to i32
        %v = arith.addi %t10, %ki : i32
        memref.store %v, %r[%i] : {memref_type}
      }}
      %t1 = arith.addi %t, %c1 : index
      %k1 = arith.remui %t1, %c4 : index
      %m1 = arith.muli %c32, %k1 : index
      %j = arith.addi %m1, %lane : index
      %a = memref.load %r[%j] : {memref_type}
      %b = memref.load %r[%lane] : {memref_type}
      %s = arith.addi %a, %b : i32
      memref.store %s, %out[%t] : memref<64xi32>
      gpu_alloc.dealloc %r : {memref_type}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"}} : () -> ()
  }}) : () -> ()
}}
"""


def _alloc_shapes(module: ModuleOp) -> list[tuple[int, ...]]:
    shapes: list[tuple[int, ...]] = []
    for op in module.walk():
        if isinstance(op, AllocOp):
            assert isinstance(op.memref.type, MemRefType)
            shapes.append(op.memref.type.get_shape())
    return shapes


@pytest.mark.parametrize("size", ["static", "dynamic"])
@pytest.mark.parametrize("lane", sorted(LANES))
def test_striping_keeps_every_threads_result(lane: str, size: str):
    text = kernel(lane, size)
    before = run_threads(parse(text), [64], [128], threads=64)
    # Thread t: k = (t+1) % 4 gives 10t + k, r[lane] gives 10t.
    assert before[0] == [20 * t + (t + 1) % 4 for t in range(64)]
    module = parse(text)
    StripeLaneAllocsPass().apply(Context(), module)
    module.verify()
    assert _alloc_shapes(module) == [(4,) if size == "static" else (DYNAMIC_INDEX,)]
    assert run_threads(module, [64], [128], threads=64) == before


def test_dynamic_size_is_divided_by_the_warp_size():
    module = parse(kernel("remui", "dynamic"))
    StripeLaneAllocsPass().apply(Context(), module)
    (alloc,) = [op for op in module.walk() if isinstance(op, AllocOp)]
    (size,) = alloc.dynamic_sizes
    assert isinstance(size.owner, arith.CeilDivUIOp)


@pytest.mark.parametrize("space", [1, 3])
def test_heap_and_shared_allocations_are_never_striped(space: int):
    text = kernel("remui", "static", space)
    module = parse(text)
    StripeLaneAllocsPass().apply(Context(), module)
    assert str(module) == str(parse(text))


def test_warp_size_option_changes_the_stripe():
    text = kernel("remui", "static").replace("%c32", "%c16").replace("32 : index", "16 : index")
    module = parse(text)
    StripeLaneAllocsPass(warp_size=16).apply(Context(), module)
    assert _alloc_shapes(module) == [(8,)]
    assert run_threads(module, [64], [128], threads=16) == run_threads(
        parse(text), [64], [128], threads=16
    )


def test_cross_lane_read_is_a_diagnostic_at_the_load():
    text = kernel("lane_id", "static").replace(
        "%b = memref.load %r[%lane]", "%b = memref.load %r[%k1]"
    )
    module = parse(text)
    with pytest.raises(GpuAllocPassError, match="gpu.shuffle") as error:
        StripeLaneAllocsPass().apply(Context(), module)
    assert error.value.op is not None and error.value.op.name == "memref.load"


def test_the_chip_gives_the_wave_size():
    """gfx942 runs wave64: `lane + 64k` (lane = tid % 64) stripes 128 elements to 2 per
    lane, with the same results for a wave's 64 threads; RDNA's gfx1100 is wave32 like
    NVIDIA; SPIR-V leaves the sub-group size to the device."""
    text = kernel("remui", "static").replace("%c32", "%c64").replace("32 : index", "64 : index")
    text = text.replace("scf.for %k = %c0 to %c4", "scf.for %k = %c0 to %c2").replace(
        "%c4 = arith.constant 4 : index",
        "%c4 = arith.constant 2 : index\n      %c2 = arith.constant 2 : index",
    )
    module = parse(text)
    StripeLaneAllocsPass(chip="gfx942").apply(Context(), module)
    assert _alloc_shapes(module) == [(2,)]
    assert run_threads(module, [64], [128], threads=64) == run_threads(
        parse(text), [64], [128], threads=64
    )
    assert StripeLaneAllocsPass(chip="gfx1100").lanes() == 32
    assert StripeLaneAllocsPass(chip="sm_90").lanes() == StripeLaneAllocsPass().lanes() == 32
    with pytest.raises(GpuAllocPassError, match="leaves the sub-group size to the device"):
        StripeLaneAllocsPass(chip="generic").apply(Context(), parse(text))
    with pytest.raises(GpuAllocPassError, match="option chip: unknown chip 'gfx1'"):
        StripeLaneAllocsPass(chip="gfx1").apply(Context(), parse(text))
