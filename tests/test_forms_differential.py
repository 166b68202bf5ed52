"""The per-form differential (issue 19, item 2): every kernel written in MLIR's forms that
the simulator runs computes the same at every stage of the pipeline (`form_stages`).

Kernels: `examples/mlir_transpose.mlir`, `tests/mlir_kernels/` (every form in one kernel,
calls, dynamic shared memory laid out by the kernel, an 80 KiB kernel fused for sm_90),
the simulated kernels of `tests/external/`, and random kernels of
`kernelgen.mlir_form_kernels`. The reference outputs of the hand-written kernels are
checked against numpy, so the "original" column is right and not only self-consistent.
"""

from __future__ import annotations

import hashlib
import subprocess

import numpy as np
import pytest
from form_stages import (
    MLIR_KERNELS,
    RACE,
    STAGES,
    Case,
    Outcome,
    all_cases,
    outcomes,
    printed,
    stage_modules,
)
from gpu_alloc.dialect import DYNAMIC_SHARED_BYTES, dynamic_shared_bytes
from gpu_alloc.sim.launch import simulate
from gpu_alloc.transforms.block_level_code import gpu_kernels
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, mlir_form_kernels
from xdsl.dialects.builtin import ModuleOp

CASES = all_cases()
RACY_AS_FOUND = {"external/llvm/xevm-pipeline-workgroup-attributions.mlir @kernels::@kernel"}
"""Kernels that race as written: every thread stores to `scratch[0]`."""


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_every_stage_computes_what_the_original_does(case: Case):
    results = outcomes(case)
    original = results["original"]
    assert (original.exit_code == RACE) == (case.label in RACY_AS_FOUND), original
    for stage, outcome in results.items():
        assert outcome.agrees_with(original), (stage, outcome, original)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label)
def test_mlir_opt_reads_every_stage(case: Case):
    """mlir-opt-22, the reference for what MLIR accepts, reads every stage (printed in
    generic form; `gpu_alloc` ops are unregistered to it until lower-gpu-allocs)."""
    stages = [printed(module) for module in stage_modules(case).values()]
    done = subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "--split-input-file", "-o", "/dev/null"],
        input="// -----\n".join(stages),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    lowered = printed(stage_modules(case)["lower"])
    assert "gpu_alloc.alloc" not in lowered and "gpu_alloc.alias" not in lowered


def test_the_cases_cover_every_form():
    """A form dropped from the kernels (or a kernel the simulator stops running) fails
    here, not silently."""
    text = "\n".join(c.text for c in CASES)
    for form in (
        "memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>",  # alloc, MLIR's spelling
        "memref.alloca() : memref<64xf32, 3 : i32>",  # alloca, the contract's
        "workgroup(%a: memref<64xf32, 3>)",  # attribution, an i64 space
        "private(%p: memref<1xf32, #gpu.address_space<private>>)",
        'memref.global "private" @g : memref<64xf32, #gpu.address_space<workgroup>>',
        "gpu.dynamic_shared_memory",
        "dynamic_shared_memory_size",
        "func.call @clamp",  # a call under a thread-dependent branch
        "gpu.launch",  # launch bodies (corpus), outlined to simulate
    ):
        assert form in text, form
    assert len(STAGES) == 8
    assert len(CASES) >= 12


def test_a_backing_above_48_kib_is_simulated_after_lowering_for_sm_90():
    (case,) = [c for c in CASES if c.label == "mlir_kernels/big_tiles.mlir"]
    lowered = stage_modules(case)["lower{sm_90}"]
    (kernel,) = gpu_kernels(lowered)
    assert dynamic_shared_bytes(kernel) == 2 * 40960  # two co-live 40 KiB tiles
    assert DYNAMIC_SHARED_BYTES in kernel.attributes


def _by_name(module: ModuleOp, seed: int, grid, block) -> dict[str, np.ndarray]:
    result = simulate(module, grid=grid, block=block, seed=seed)
    return {a.name: a.array for a in result.arguments}


def test_the_originals_match_numpy():
    """Each hand-written kernel's header says what it computes; numpy agrees."""
    import corpus

    rng = lambda seed: np.random.default_rng([seed, 0])  # noqa: E731 (argument 0: %in)
    x = rng(1).uniform(-8, 8, (64, 64)).astype(np.float32)
    transpose = _by_name(corpus.parse(CASES[0].text), 1, (2, 2), (32, 32))
    np.testing.assert_array_equal(transpose["out"], x.T + x.T)
    assert hashlib.sha256(transpose["out"].tobytes()).hexdigest().startswith("b4c9e14e")

    x = rng(0).uniform(-8, 8, 128).astype(np.float32)
    every = _by_name(corpus.parse((MLIR_KERNELS / "every_form.mlir").read_text()), 0, [2], [64])
    calls = _by_name(corpus.parse((MLIR_KERNELS / "calls.mlir").read_text()), 0, [2], [64])
    dyn = _by_name(corpus.parse((MLIR_KERNELS / "dynamic_shared.mlir").read_text()), 0, [2], [64])
    spell = _by_name(corpus.parse((MLIR_KERNELS / "spellings.mlir").read_text()), 0, [2], [64])
    np.testing.assert_array_equal(spell["out"], 3 * x)
    reversed_ = x.reshape(2, 64)[:, ::-1].reshape(-1)
    np.testing.assert_array_equal(every["out"], 2 * np.trunc(reversed_) + x)
    t = np.tile(np.arange(64), 2)
    np.testing.assert_array_equal(
        calls["out"], np.where(t < 32, np.maximum(reversed_, 0), reversed_)
    )
    np.testing.assert_array_equal(dyn["out"], reversed_)

    x = rng(0).uniform(-8, 8, 256).astype(np.float32)
    big = _by_name(corpus.parse((MLIR_KERNELS / "big_tiles.mlir").read_text()), 0, [2], [128])
    expected = np.empty(256, np.float32)
    for b in range(2):
        u = x[(np.arange(10240) + 37 * b) % 256]
        expected[128 * b : 128 * b + 128] = u[10239 - np.arange(128)] + 2 * u[80 * np.arange(128)]
    np.testing.assert_array_equal(big["out"], expected)


def test_a_changed_output_or_a_new_race_disagrees():
    """The comparison bites: another digest, a new race, another exit code."""
    original = Outcome(0, (("out", "a"),), 0)
    assert not Outcome(0, (("out", "b"),), 0).agrees_with(original)
    assert not Outcome(RACE, (("out", "a"),), 2).agrees_with(original)
    assert not Outcome(5, (), 0).agrees_with(original)
    racy = Outcome(RACE, (("out", "a"),), 4)
    assert Outcome(0, (("out", "a"),), 0).agrees_with(racy)  # a race removed
    assert not Outcome(RACE, (("out", "a"),), 5).agrees_with(racy)  # a race added


# ---- random kernels in MLIR's forms --------------------------------------------------------


def _generated_case(kernel: GeneratedKernel) -> Case:
    scalars = tuple(map(float, kernel.scalars))

    def run(module: ModuleOp):
        return simulate(module, grid=kernel.grid, block=kernel.block, scalars=scalars)

    return Case("generated", kernel.text, run)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mlir_form_kernels())
def test_generated_mlir_form_kernels_compute_the_same_at_every_stage(kernel: GeneratedKernel):
    results = outcomes(_generated_case(kernel))
    original = results["original"]
    assert original.exit_code == 0, original  # race-free by construction
    for stage, outcome in results.items():
        assert outcome.agrees_with(original), (stage, outcome, original, kernel.text)
