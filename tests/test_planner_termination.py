"""The barrier planner is a what-if that ends by construction (issue 30, "never terminates").

`reuse_barriers.plan_back_edges` closes each loop at most once and inserts nothing
until every plan is final; these tests bound its work by counting the stage maps it
computes and the barriers it inserts, never by wall time.
"""

from __future__ import annotations

import corpus
import pytest
from differential import Launch, assert_same_behaviour, run
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.fuse import reuse_barriers
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import fuse_module, fusion_units
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from gpu_alloc.transforms.lifetimes import stage_map
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp

HANG = """
gpu.module @m {
  gpu.func @k(%n: index, %out: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %x = arith.constant 1.0 : f32
    %t = gpu.thread_id x
    scf.for %i = %c0 to %c4 step %c1 {
      %f4 = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
      memref.store %x, %f4[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      %m = arith.addi %n, %t : index
      scf.for %j = %c0 to %m step %c1 {
        gpu.barrier
        %y = memref.load %f4[%i] : memref<64xf32, #gpu.address_space<workgroup>>
        memref.store %y, %f4[%t] : memref<64xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
    }
    gpu.return
  }
}
"""
"""The hang's shape: a loop-local Func in a constant-trip `scf.for` whose body ends with
a barrier and holds an inner `scf.for` with a dynamic trip count and its own barrier.
The inner trip count depends on the thread, so the stage structure does not hold and
no barrier closes the outer back edge: the planner used to insert one, find the loop
open again, and insert another, forever."""

CHAIN = """
gpu.module @m {
  gpu.func @k(%n: index, %out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %C = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %ti, %C[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      %c = memref.load %C[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      scf.for %j = %c0 to %n step %c1 {
        %B = memref.alloc() : memref<128xi32, #gpu.address_space<workgroup>>
        %jj = arith.index_cast %j : index to i32
        %v = arith.addi %c, %jj : i32
        %tj = arith.addi %t, %j : index
        memref.store %v, %B[%tj] : memref<128xi32, #gpu.address_space<workgroup>>
        %w = memref.load %B[%tj] : memref<128xi32, #gpu.address_space<workgroup>>
        %o = memref.load %out[%t] : memref<64xi32>
        %s = arith.addi %o, %w : i32
        memref.store %s, %out[%t] : memref<64xi32>
      }
    }
    gpu.return
  }
}
"""
"""Closing one loop opens another: B's inner loop needs a back-edge barrier (each
iteration touches other bytes, `loop_allocs` rule 2 fails); once it is planned, the outer loop holds a barrier and C
(made in the outer body) needs one too. Two rounds that open a loop, one that finds
none: three stage maps, two barriers."""


def _count_stage_maps(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls = [0]

    def counting(*args, **kwargs):
        calls[0] += 1
        assert calls[0] <= 50, "the planner does not terminate"  # fail, do not hang
        return stage_map(*args, **kwargs)

    monkeypatch.setattr(reuse_barriers, "stage_map", counting)
    return calls


def _imported(text: str) -> ModuleOp:
    module = corpus.parse(text)
    import_gpu_allocs(module)
    return module


@pytest.mark.parametrize("mode", ["over-limit", "always"])
def test_the_hanging_kernel_is_refused_after_one_round_per_loop(
    mode: str, monkeypatch: pytest.MonkeyPatch
):
    module = _imported(HANG)
    before = str(module)
    calls = _count_stage_maps(monkeypatch)
    options = FuseGpuAllocsPass(insert_barriers=mode, max_shared_bytes=16)
    with pytest.raises(GpuAllocPassError, match="whose back edge a gpu.barrier does not close"):
        options.run(module)
    loops = sum(isinstance(op, scf.ForOp) for op in module.walk())
    assert 1 <= calls[0] <= loops + 1
    assert str(module) == before  # nothing was inserted, not even for a moment's measure


def test_the_refusal_is_located_at_the_allocation():
    module = _imported(HANG)
    with pytest.raises(GpuAllocPassError) as error:
        FuseGpuAllocsPass(insert_barriers="always").run(module)
    assert error.value.op is not None
    assert error.value.op.alloc_name.data == "f4"
    assert "thread-dependent control flow" in str(error.value)


def test_a_barrier_that_opens_the_next_loop_is_planned_in_bounded_rounds(
    monkeypatch: pytest.MonkeyPatch,
):
    module = _imported(CHAIN)
    calls = _count_stage_maps(monkeypatch)
    (unit,) = fusion_units(module).units
    edges = reuse_barriers.plan_back_edges(unit, fusion_units(module).graph)
    assert calls[0] == 3
    assert [(e.loop.body.block.parent_op() is e.loop, e.funcs) for e in edges] == [
        (True, ("B",)),
        (True, ("C",)),
    ]
    assert not any(isinstance(op, gpu.BarrierOp) for op in module.walk())  # planned only


def test_the_planned_back_edges_are_inserted_once_and_keep_the_behaviour():
    module = _imported(CHAIN)
    options = FuseGpuAllocsPass(insert_barriers="over-limit")
    options.run(module)
    barriers = [op for op in module.walk() if isinstance(op, gpu.BarrierOp)]
    assert len(barriers) == 2
    for barrier in barriers:  # each at the end of a loop body
        assert isinstance(barrier.next_op, scf.YieldOp)
    launch = Launch(grid=(1,), block=(64,), scalars=(3,))
    assert run(module, launch).races == []
    assert_same_behaviour(corpus.parse(CHAIN), module, launch, "insert-barriers=over-limit")


def test_never_refuses_the_chain_instead_of_planning():
    module = _imported(CHAIN)
    with pytest.raises(GpuAllocPassError, match="no gpu.barrier closing the loop's back edge"):
        fuse_module(module, FuseGpuAllocsPass(insert_barriers="never"))
