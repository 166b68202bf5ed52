"""`barrier_ops`: every barrier-like op is a barrier where it is one (issue 30, item 5).

The loop rule used to count only `gpu.barrier` and `func.call`: a loop whose barrier
is `amdgpu.lds_barrier`, `nvvm.barrier0` or a SPIR-V control barrier had its
loop-local buffer hoisted without a back-edge barrier, even under `never`.
"""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.dialect import AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.barrier_ops import BarrierKind, barrier_kind, op_name
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp

SPIRV = (
    '"spirv.ControlBarrier"() {{execution_scope = #spirv.scope<{scope}>, '
    "memory_scope = #spirv.scope<Workgroup>, "
    "memory_semantics = #spirv.memory_semantics<WorkgroupMemory|AcquireRelease>}} : () -> ()"
)
BARRIERS = {
    "gpu.barrier": "gpu.barrier",
    "amdgpu.lds_barrier": "amdgpu.lds_barrier",
    "nvvm.barrier0": '"nvvm.barrier0"() : () -> ()',
    "spirv.ControlBarrier": SPIRV.format(scope="Workgroup"),
}
POSSIBLE = {
    "subgroup control barrier": SPIRV.format(scope="Subgroup"),
    "unknown op": '"test.opaque"() : () -> ()',
}

LOOP = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %ti, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      MIDDLE
      %a = memref.load %A[%r] : memref<64xi32, #gpu.address_space<workgroup>>
      memref.store %a, %out[%t] : memref<64xi32>
      END
    }
    gpu.return
  }
}
"""
"""A is written and read at another thread's index on each iteration with the barrier
between: every iteration's accesses are alike, but the loop holds a barrier, so the
next iteration's write may meet this one's read once A is hoisted."""


def _module(middle: str, end: str = "") -> ModuleOp:
    module = corpus.parse(LOOP.replace("MIDDLE", middle).replace("END", end))
    import_gpu_allocs(module)
    return module


def _ops(text: str) -> list:
    module = corpus.parse(LOOP.replace("MIDDLE", text).replace("END", ""))
    return (
        [op for op in module.walk() if op_name(op) == text.split('"')[1]]
        if '"' in text
        else [op for op in module.walk() if op.name == text]
    )


@pytest.mark.parametrize("name", sorted(BARRIERS))
def test_barriers_are_barriers(name: str):
    (op,) = _ops(BARRIERS[name])
    assert barrier_kind(op) is BarrierKind.BARRIER


@pytest.mark.parametrize("name", sorted(POSSIBLE))
def test_ops_the_model_cannot_see_into_are_possible_barriers(name: str):
    (op,) = _ops(POSSIBLE[name])
    assert barrier_kind(op) is BarrierKind.POSSIBLE


def test_ordinary_ops_are_not_barriers():
    module = _module("")
    kinds = {op.name: barrier_kind(op) for op in module.walk()}
    assert kinds["gpu.thread_id"] is BarrierKind.NONE
    assert kinds["memref.store"] is BarrierKind.NONE
    assert kinds["arith.remui"] is BarrierKind.NONE


@pytest.mark.parametrize("name", sorted(BARRIERS) + sorted(POSSIBLE))
def test_a_loop_holding_any_barrier_needs_its_back_edge_closed(name: str):
    middle = {**BARRIERS, **POSSIBLE}[name]
    with pytest.raises(GpuAllocPassError, match="no gpu.barrier closing the loop's back edge"):
        FuseGpuAllocsPass(insert_barriers="never").run(_module(middle))


@pytest.mark.parametrize("name", sorted(BARRIERS))
def test_a_barrier_of_any_kind_at_the_body_end_closes_the_back_edge(name: str):
    module = _module(BARRIERS[name], end=BARRIERS[name])
    before = sum(isinstance(op, gpu.BarrierOp) for op in module.walk())
    FuseGpuAllocsPass(insert_barriers="always").run(module)
    assert sum(isinstance(op, gpu.BarrierOp) for op in module.walk()) == before  # none added
    (loop,) = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert not any(isinstance(op, AllocOp) for op in loop.walk())  # A was hoisted


def test_a_possible_barrier_at_the_body_end_does_not_close_it():
    """`always` closes the back edge with a real barrier of its own."""
    opaque = POSSIBLE["unknown op"]
    module = _module(BARRIERS["gpu.barrier"], end=opaque)
    with pytest.raises(GpuAllocPassError, match="no gpu.barrier closing"):
        FuseGpuAllocsPass(insert_barriers="never").run(module)
    module = _module(BARRIERS["gpu.barrier"], end=opaque)
    FuseGpuAllocsPass(insert_barriers="always").run(module)
    assert sum(isinstance(op, gpu.BarrierOp) for op in module.walk()) == 2


REUSE = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %B = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %ti, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    BARRIER
    memref.store %a, %B[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %b = memref.load %B[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %b, %out[%t] : memref<64xi32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize(
    ("barrier", "stages"),
    [(BARRIERS[n], 2) for n in sorted(BARRIERS)] + [(POSSIBLE[n], 1) for n in sorted(POSSIBLE)],
)
def test_only_a_barrier_separates_stages(barrier: str, stages: int):
    module = corpus.parse(REUSE.replace("BARRIER", barrier))
    import_gpu_allocs(module)
    (report,) = FuseGpuAllocsPass(insert_barriers="never").run(module)
    assert report.stages == stages
    shared = [s for s in report.spaces if s.space == 3]
    assert sum(s.plan.static_bytes for s in shared) == 256 * (3 - stages)
