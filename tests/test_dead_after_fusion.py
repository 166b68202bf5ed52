"""Issue 19 §6: `remove-dead-allocs` between fusion and flattening, the seed's scenario.

Fusion lets two Funcs share bytes only when their stage intervals are disjoint, and
records those intervals (`gpu_alloc.layout`). A dead Func that shares bytes only with
such Funcs goes, as it would before fusion; one that a co-live or hand-written alias
over its bytes reads stays. The backing then shrinks when the removed bytes were its top.
"""

from __future__ import annotations

from differential import Launch, check_pipeline
from gpu_alloc.dialect import LAYOUT_ATTR, AliasOp, AllocOp, FuncSlice, is_backing, layout_attr
from gpu_alloc.dialect.layout import layout_of
from gpu_alloc.sim.loading import make_context, parse_module
from gpu_alloc.transforms import (
    FlattenAliasesPass,
    FuseGpuAllocsPass,
    PartitionLoopsPass,
    RemoveDeadAllocsPass,
)
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, kernels
from xdsl.dialects.builtin import MemRefType, ModuleOp

SEED = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %w = "gpu_alloc.alloc"() <{name = "w"}> : () -> memref<64xi32, 3 : i32>
    %g = "gpu_alloc.alloc"() <{name = "g"}> : () -> memref<64xi32, 3 : i32>
    memref.store %ti, %w[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    memref.store %ti, %g[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %x = memref.load %g[%r] : memref<64xi32, 3 : i32>
    memref.store %x, %out[%t] : memref<64xi32>
    gpu.return
  }
}
"""
"""`w` is only stored; `g`, written after a barrier and then read, gets `w`'s bytes."""

LAUNCH = Launch(grid=(2,), block=(64,))


def _names(module: ModuleOp) -> set[str]:
    return {
        op.alloc_name.data if isinstance(op, AllocOp) else op.alias_name.data
        for op in module.walk()
        if (isinstance(op, AllocOp) and not is_backing(op)) or isinstance(op, AliasOp)
    }


def _backing(module: ModuleOp) -> AllocOp:
    return next(o for o in module.walk() if isinstance(o, AllocOp) and is_backing(o))


def _backing_bytes(module: ModuleOp) -> int:
    memref_type = _backing(module).memref.type
    assert isinstance(memref_type, MemRefType)
    return memref_type.get_shape()[0]


def _fused(text: str) -> ModuleOp:
    module = parse_module(text)
    FuseGpuAllocsPass().apply(make_context(), module)
    return module


def test_fusion_records_why_the_two_share_bytes():
    record = layout_of(_backing(_fused(SEED)))
    assert record == [FuncSlice("w", 0, 256, 0, 0), FuncSlice("g", 0, 256, 1, 2)]


def test_the_write_only_func_goes_after_fusion_as_before():
    module = _fused(SEED)
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"g"}
    assert layout_of(_backing(module)) == [FuncSlice("g", 0, 256, 1, 2)]
    unfused = parse_module(SEED)
    RemoveDeadAllocsPass().apply(make_context(), unfused)
    assert _names(unfused) == {"g"}
    for pipeline in [
        ("fuse-gpu-allocs", "remove-dead-allocs"),
        ("fuse-gpu-allocs", "remove-dead-allocs", "flatten-aliases", "lower-gpu-allocs"),
    ]:
        check_pipeline(SEED, LAUNCH, pipeline)


def test_a_co_live_reader_over_its_bytes_keeps_it():
    """Told (by an edited record) that `w` and `g` are live together, the pass keeps `w`."""
    module = _fused(SEED)
    _backing(module).attributes[LAYOUT_ATTR] = layout_attr(
        [FuncSlice("w", 0, 256, 0, 1), FuncSlice("g", 0, 256, 1, 2)]
    )
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"w", "g"}


def test_a_hand_written_alias_the_record_does_not_name_keeps_it():
    module = _fused(SEED)
    _backing(module).attributes[LAYOUT_ATTR] = layout_attr([FuncSlice("w", 0, 256, 0, 0)])
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"w", "g"}
    del _backing(module).attributes[LAYOUT_ATTR]  # no record: nothing is known to be apart
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"w", "g"}


def _hand_fused(dead_offset: int, live_offset: int) -> str:
    """A 512-byte backing: `dead` (stored only) and `live` (stored, read after a
    barrier), co-live, at the given offsets; recorded as fusion records."""
    record = (
        f'[{{name = "dead", offset = {dead_offset} : i64, bytes = 256 : i64, '
        f'stages = array<i64: 0, 0>}}, {{name = "live", offset = {live_offset} : i64, '
        f"bytes = 256 : i64, stages = array<i64: 0, 1>}}]"
    )
    return f"""
gpu.module @m {{
  gpu.func @k(%out: memref<64xi32>) kernel {{
    %dead_at = arith.constant {dead_offset} : index
    %live_at = arith.constant {live_offset} : index
    %b = gpu_alloc.alloc "shared_alloc" backing align 16 {{gpu_alloc.layout = {record}}} : memref<512xi8, 3 : i32>
    %pd = gpu_alloc.offset_pointer %b[%dead_at] : memref<512xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %dead = gpu_alloc.alias "dead" %pd : !gpu_alloc.ptr<3 : i32> -> memref<64xi32, 3 : i32>
    %pl = gpu_alloc.offset_pointer %b[%live_at] : memref<512xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
    %live = gpu_alloc.alias "live" %pl : !gpu_alloc.ptr<3 : i32> -> memref<64xi32, 3 : i32>
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    memref.store %ti, %dead[%t] : memref<64xi32, 3 : i32>
    memref.store %ti, %live[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    %c0 = arith.constant 0 : index
    %x = memref.load %live[%c0] : memref<64xi32, 3 : i32>
    memref.store %x, %out[%t] : memref<64xi32>
    gpu.return
  }}
}}
"""


def test_the_backing_shrinks_when_the_dead_func_was_its_top():
    text = _hand_fused(dead_offset=256, live_offset=0)
    module = parse_module(text)
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"live"}
    assert _backing_bytes(module) == 256
    assert layout_of(_backing(module)) == [FuncSlice("live", 0, 256, 0, 1)]
    module.verify()
    check_pipeline(text, LAUNCH, ("remove-dead-allocs", "flatten-aliases", "lower-gpu-allocs"))


def test_a_hole_below_a_live_func_stays():
    text = _hand_fused(dead_offset=0, live_offset=256)
    module = parse_module(text)
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _names(module) == {"live"}
    assert _backing_bytes(module) == 512
    assert layout_of(_backing(module)) == [FuncSlice("live", 256, 256, 0, 1)]
    check_pipeline(text, LAUNCH, ("remove-dead-allocs", "flatten-aliases"))


def _kept_after(text: str, fused: bool) -> set[str]:
    module = parse_module(text)
    if fused:
        FuseGpuAllocsPass().apply(make_context(), module)
    RemoveDeadAllocsPass().apply(make_context(), module)
    return _names(module)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(dynamic_sizes=False))
def test_fusion_hides_no_dead_func(kernel: GeneratedKernel):
    """On random kernels, the Funcs left after fusion are exactly those left without it
    (before issue 19, a dead Func on a live one's bytes stayed after fusion)."""
    assert _kept_after(kernel.text, fused=True) == _kept_after(kernel.text, fused=False)


PARTITIONED = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c8 = arith.constant 8 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<64xi32, 3 : i32>
    %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64xi32, 3 : i32>
    memref.store %ti, %a[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    %x = memref.load %a[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    scf.for %i = %c0 to %c8 step %c1 {
      %p = arith.cmpi ult, %i, %c2 : index
      scf.if %p {
        memref.store %x, %out[%t] : memref<64xi32>
      }
      gpu.barrier
    }
    memref.store %x, %b[%t] : memref<64xi32, 3 : i32>
    %y = memref.load %b[%t] : memref<64xi32, 3 : i32>
    memref.store %y, %out[%t] : memref<64xi32>
    gpu.return
  }
}
"""
"""`b` is used after a loop with a barrier, which partition-loops splits in two."""


def test_a_pass_that_renumbers_the_stages_drops_the_record_and_flatten_derives_it():
    module = _fused(PARTITIONED)
    assert layout_of(_backing(module)) == [
        FuncSlice("a", 0, 256, 0, 1),
        FuncSlice("b", 0, 256, 3, 3),
    ]
    PartitionLoopsPass().apply(make_context(), module)
    assert layout_of(_backing(module)) is None  # its stage numbers no longer hold
    FlattenAliasesPass().apply(make_context(), module)
    # Two copies of the loop's barrier now: b is in stage 4 (by hand: 0 | 1 | 2 | 3 | 4).
    assert layout_of(_backing(module)) == [
        FuncSlice("a", 0, 256, 0, 1),
        FuncSlice("b", 0, 256, 4, 4),
    ]
    check_pipeline(
        PARTITIONED,
        LAUNCH,
        ("fuse-gpu-allocs", "partition-loops", "remove-dead-allocs", "flatten-aliases"),
    )
