"""Fuse's generated kernels through the simulator at every stage (`form_stages.STAGES`:
the original, import, fuse, fuse + remove-dead-allocs, fuse{insert-barriers=always},
flatten, lower, the pipeline for sm_90): the same digests, no new race, no barrier that
part of a block reaches (the simulator's exit 4).

Kernels: `kernelgen_loops.helper_kernels` (workgroup `func.func` helpers called by the
whole block, under a uniform branch, or under `tid > 8`: a barrier fuse put into a helper
called under the thread branch is caught here by the oracle, not only by the IR check of
`test_barrier_uniformity`), `loop_local_kernels` in the project's generic form and
`mlir_form_loop_local_kernels` in MLIR's (`memref.alloc`/`alloca` in the loop body).
"""

from __future__ import annotations

import re

import corpus
from form_stages import RACE, Case, outcome, outcomes
from gpu_alloc.sim.errors import BarrierDivergenceError
from gpu_alloc.sim.launch import simulate
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kernelgen_loops import (
    HELPER_BLOCK,
    HelperKernel,
    LoopLocalKernel,
    helper_kernels,
    loop_local_kernels,
    mlir_form_loop_local_kernels,
)
from xdsl.dialects.builtin import ModuleOp

RANDOM = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _helper_case(kernel: HelperKernel, n: int) -> Case:
    def run(module: ModuleOp):
        return simulate(module, grid=(1,), block=HELPER_BLOCK, scalars=(float(n),))

    return Case(f"helpers n={n}", kernel.text, run)


def _loop_case(kernel: LoopLocalKernel) -> Case:
    scalars = tuple(map(float, kernel.scalars))

    def run(module: ModuleOp):
        return simulate(module, grid=kernel.grid, block=kernel.block, scalars=scalars)

    return Case(f"loop-local {kernel.mode}", kernel.text, run)


def _assert_every_stage_agrees(case: Case) -> None:
    results = outcomes(case)
    original = results["original"]
    assert original.exit_code == 0, (original, case.text)  # race-free by construction
    for stage, result in results.items():
        assert result.agrees_with(original), (stage, result.cell(), original.cell(), case.text)


@RANDOM
@given(helper_kernels(), st.sampled_from([0, 2]))
def test_helper_call_kernels_compute_the_same_at_every_stage(kernel: HelperKernel, n: int):
    _assert_every_stage_agrees(_helper_case(kernel, n))


@RANDOM
@given(loop_local_kernels())
def test_loop_local_kernels_compute_the_same_at_every_stage(kernel: LoopLocalKernel):
    _assert_every_stage_agrees(_loop_case(kernel))


@RANDOM
@given(mlir_form_loop_local_kernels())
def test_mlir_form_loop_local_kernels_compute_the_same_at_every_stage(kernel: LoopLocalKernel):
    # every shared loop-local Func is in MLIR's form (heap ones have none)
    assert not re.search(r'name = "l\d+"\}> : \(\) -> memref<[^>]*, [^1]', kernel.text)
    _assert_every_stage_agrees(_loop_case(kernel))


THREAD_BRANCH_HELPER = HelperKernel(
    """
gpu.module @m {
  func.func @h0(%out: memref<64xf32>, %i: index) {
    %ii = arith.index_cast %i : index to i32
    %fi = arith.sitofp %ii : i32 to f32
    %ck = arith.constant 1.0 : f32
    %v = arith.addf %fi, %ck : f32
    %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%i] : memref<64xf32>
    return
  }
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {
    %c8 = arith.constant 8 : index
    %t = gpu.thread_id x
    %p = arith.cmpi ugt, %t, %c8 : index
    scf.if %p {
      func.call @h0(%out, %t) : (memref<64xf32>, index) -> ()
    }
    gpu.return
  }
}
""",
    (("thread_branch",),),
)


def test_a_barrier_in_a_helper_called_under_the_thread_branch_is_caught_by_the_oracle():
    """The planted bug: the barrier `insert-barriers=always` puts into a helper every
    thread calls, here in one only threads 9..63 call. The simulator stops on it (exit 4),
    so the stage disagrees with the original; fuse itself inserts none."""
    case = _helper_case(THREAD_BRANCH_HELPER, 2)
    results = outcomes(case)
    assert all(r.agrees_with(results["original"]) for r in results.values())
    planted = THREAD_BRANCH_HELPER.text.replace(
        "    memref.store %x, %b[%i]", "    gpu.barrier\n    memref.store %x, %b[%i]", 1
    )
    assert planted != THREAD_BRANCH_HELPER.text
    bad = outcome(case, corpus.parse(planted))
    assert bad.exit_code == BarrierDivergenceError.exit_code != RACE
    assert not bad.agrees_with(results["original"])
