"""Differential tests: every pass, and their composition, keeps every kernel's results
(same digest of every memref argument) and adds no race.

Kernels: every file in examples/, every kernel in tests/sim_kernels/, and random
kernels from tests/kernelgen.py. A pass that is still a stub is left out and reported
as a PassNotImplementedWarning (see tests/differential.py). The planted-bug tests at
the end prove the check bites: hand-written wrong fusions must fail it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from differential import (
    GPU_ALLOC_PASSES,
    OTHER_PASSES,
    Launch,
    apply_pipeline,
    assert_same_behaviour,
    check_pipeline,
    pipelines,
    run,
)
from gpu_alloc.sim.errors import MemoryAccessError
from gpu_alloc.tools.sim_loading import parse_module
from handfused import fuse_heap, fuse_shared, lower_shared_backing
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, kernels

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TEST_KERNELS = Path(__file__).resolve().parent / "sim_kernels"

EXAMPLE_LAUNCHES = {
    # Block sizes from each example's header comment; the stencil runs 3x2 of its 8x8
    # blocks (every block computes the same way, and the full grid is tested in
    # test_sim_semantics.py), to keep the suite fast.
    "stencil_chain.mlir": Launch(grid=(3, 2), block=(16, 16)),
    "mixed_types.mlir": Launch(grid=(4,), block=(64,)),
    "heap_scratch.mlir": Launch(grid=(4,), block=(128,)),
}
MLIR_SYNTAX_EXAMPLES = {"mlir_transpose.mlir"}
"""Examples in MLIR's own form; test_mlir_import.py simulates them after import-gpu-allocs."""

XDSL_PIPELINES = [("canonicalize",), ("cse",), ("canonicalize", "cse", "dce")]
"""xDSL's own passes: they exist today, so they prove the harness runs real rewrites."""


def _launch_of_test_kernel(path: Path) -> Launch:
    header = re.search(r"^// sim-launch: (.*)$", path.read_text(), re.MULTILINE)
    assert header, f"{path.name} needs a '// sim-launch: --grid X --block X' line"
    options = dict(re.findall(r"--(\w+) (\S+)", header[1]))
    sizes = lambda text: tuple(int(v) for v in text.split(","))  # noqa: E731
    scalars = tuple(float(v) for v in options.get("scalars", "").split(",") if v)
    return Launch(grid=sizes(options["grid"]), block=sizes(options["block"]), scalars=scalars)


def _all_kernels() -> list[tuple[str, Path, Launch]]:
    cases = [
        (f"examples/{p.name}", p, EXAMPLE_LAUNCHES[p.name])
        for p in sorted(EXAMPLES.glob("*.mlir"))
        if p.name in EXAMPLE_LAUNCHES
    ]
    cases += [
        (f"sim_kernels/{p.name}", p, _launch_of_test_kernel(p))
        for p in sorted(TEST_KERNELS.glob("*.mlir"))
    ]
    return cases


KERNELS = _all_kernels()


def test_every_example_has_a_launch():
    missing = sorted(
        p.name
        for p in EXAMPLES.glob("*.mlir")
        if p.name not in EXAMPLE_LAUNCHES and p.name not in MLIR_SYNTAX_EXAMPLES
    )
    assert not missing, f"add the grid/block of {missing} to EXAMPLE_LAUNCHES"


@pytest.mark.parametrize(("label", "path", "launch"), KERNELS, ids=[k[0] for k in KERNELS])
def test_kernel_is_race_free_to_begin_with(label: str, path: Path, launch: Launch):
    result = run(parse_module(path.read_text()), launch)
    assert result.races == [], result.races[0].describe()


@pytest.mark.parametrize("pipeline", [*pipelines(), *XDSL_PIPELINES], ids=lambda p: ",".join(p))
@pytest.mark.parametrize(("label", "path", "launch"), KERNELS, ids=[k[0] for k in KERNELS])
def test_pipeline_keeps_results(label: str, path: Path, launch: Launch, pipeline: tuple[str, ...]):
    check_pipeline(path.read_text(), launch, pipeline)


def test_xdsl_passes_really_rewrite_the_kernels():
    """Guards the harness against comparing a kernel with itself."""
    text = (TEST_KERNELS / "dynamic_private.mlir").read_text()
    after = apply_pipeline(text, ("canonicalize", "cse"))
    assert after.applied == ("canonicalize", "cse")
    assert str(after.module) != str(parse_module(text))
    check_pipeline(
        text, _launch_of_test_kernel(TEST_KERNELS / "dynamic_private.mlir"), ("canonicalize", "cse")
    )


def test_between_fuse_and_flatten_xdsl_cleanups_keep_results():
    text = (EXAMPLES / "stencil_chain.mlir").read_text()
    check_pipeline(
        text,
        EXAMPLE_LAUNCHES["stencil_chain.mlir"],
        ("fuse-gpu-allocs", "canonicalize", "cse", "licm", "dce", "flatten-aliases"),
    )


# ---- random kernels ------------------------------------------------------------------


def _launch_of(kernel: GeneratedKernel) -> Launch:
    return Launch(grid=kernel.grid, block=kernel.block, scalars=tuple(map(float, kernel.scalars)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_generated_kernels_keep_results_through_every_pass(kernel: GeneratedKernel):
    launch = _launch_of(kernel)
    for pipeline in [
        GPU_ALLOC_PASSES,
        *[(p,) for p in (*GPU_ALLOC_PASSES, *OTHER_PASSES)],
        ("canonicalize", "cse"),
    ]:
        check_pipeline(kernel.text, launch, pipeline)


# ---- planted bugs: the check must catch wrong fusions -----------------------------------

STENCIL = (EXAMPLES / "stencil_chain.mlir").read_text()
STENCIL_LAUNCH = EXAMPLE_LAUNCHES["stencil_chain.mlir"]


def _same(original: str, fused: str, launch: Launch) -> None:
    assert_same_behaviour(parse_module(original), parse_module(fused), launch, "hand fusion")


@pytest.mark.parametrize("flatten", [False, True], ids=["aliases", "views"])
def test_right_stencil_fusion_passes(flatten: bool):
    """f1 [0,1] and f3 [2,3] share bytes 400..; f2 [1,2] overlaps neither (884 bytes)."""
    fused = fuse_shared(STENCIL, {"f2": 0, "f1": 400, "f3": 400}, 884, flatten=flatten)
    _same(STENCIL, fused, STENCIL_LAUNCH)


@pytest.mark.parametrize("flatten", [False, True], ids=["aliases", "views"])
def test_wrong_stencil_fusion_is_caught_as_a_race(flatten: bool):
    """f1 and f2 are both live in stage 1: at one offset, stage 1 reads f1 while
    other threads overwrite it through f2."""
    fused = fuse_shared(STENCIL, {"f1": 0, "f2": 0, "f3": 484}, 808, flatten=flatten)
    with pytest.raises(
        AssertionError, match="hand fusion (changed the kernel's results|introduced a race)"
    ):
        _same(STENCIL, fused, STENCIL_LAUNCH)
    result = run(parse_module(fused), STENCIL_LAUNCH)
    names = {frozenset(r.funcs) for r in result.races}
    if not flatten:
        assert frozenset({"f1", "f2"}) in names


def test_wrong_mixed_types_fusion_is_caught():
    """w (f32 x 20) written in stage 1 on top of b (i16 x 18), which stage 1 reads."""
    text = (EXAMPLES / "mixed_types.mlir").read_text()
    launch = EXAMPLE_LAUNCHES["mixed_types.mlir"]
    _same(text, fuse_shared(text, {"b": 0, "w": 48, "a": 128, "c": 128}, 176), launch)
    wrong = fuse_shared(text, {"b": 0, "w": 0, "a": 128, "c": 128}, 176)
    with pytest.raises(AssertionError, match="changed the kernel's results: 'out' differs"):
        _same(text, wrong, launch)
    races = run(parse_module(wrong), launch).races
    assert frozenset({"b", "w"}) in {frozenset(r.funcs) for r in races}


def test_loop_liveness_bug_is_caught_as_a_wrong_digest():
    """Halide's bug: p is read in every iteration, s is written later in the same body.
    Barriers separate every access, so there is no race, only wrong values."""
    path = TEST_KERNELS / "loop_reuse.mlir"
    text = path.read_text()
    launch = _launch_of_test_kernel(path)
    _same(text, fuse_shared(text, {"p": 0, "q": 256, "s": 512}, 768), launch)
    wrong = fuse_shared(text, {"p": 0, "q": 256, "s": 0}, 512)
    with pytest.raises(AssertionError, match="changed the kernel's results: 'out' differs"):
        _same(text, wrong, launch)
    assert run(parse_module(wrong), launch).races == []


def test_heap_fusion_right_and_wrong():
    """h1 [0,1] and h2 [1,2] overlap: h2 must not take h1's bytes. (Blocks sharing
    heap bytes, a lowering bug, is tested on the lowered form in test_sim_races.)"""
    text = (EXAMPLES / "heap_scratch.mlir").read_text()
    launch = EXAMPLE_LAUNCHES["heap_scratch.mlir"]
    _same(text, fuse_heap(text, {"h1": 0, "h2": 512}, 1024), launch)
    with pytest.raises(AssertionError, match="introduced a race: .*'h1'.*'h2'|'h2'.*'h1'"):
        _same(text, fuse_heap(text, {"h1": 0, "h2": 0}, 512), launch)


def test_lowered_shared_backing_keeps_results_and_races():
    """The form lower-gpu-allocs emits (a space-3 memref.global per kernel, one copy
    per block): a right fusion keeps the results, a wrong one still races."""
    right = lower_shared_backing(
        fuse_shared(STENCIL, {"f2": 0, "f1": 400, "f3": 400}, 884, flatten=True), 884
    )
    assert "memref.get_global @kernel__shared_alloc" in right
    _same(STENCIL, right, STENCIL_LAUNCH)
    wrong = lower_shared_backing(
        fuse_shared(STENCIL, {"f1": 0, "f2": 0, "f3": 484}, 808, flatten=True), 808
    )
    assert run(parse_module(wrong), STENCIL_LAUNCH).races


def _with_alignment(text: str, alignment: int) -> str:
    """Puts `{alignment = N}` on every load and store through f1, f2 and f3."""
    return re.sub(
        r"(memref\.(?:load|store) [^\n]*%f[123]\[[^\]]*\]) :",
        rf"\1 {{alignment = {alignment} : i64}} :",
        text,
    )


def test_alignment_claims_are_checked():
    """After flatten-aliases every access carries an alignment; f1 sits at byte 400
    (16-aligned) but its i32 elements only promise 4."""
    fused = fuse_shared(STENCIL, {"f2": 0, "f1": 400, "f3": 400}, 884, flatten=True)
    right = _with_alignment(fused, 4)
    assert right.count("{alignment = 4 : i64}") == 9
    _same(STENCIL, right, STENCIL_LAUNCH)
    with pytest.raises(
        MemoryAccessError,
        match=r"store to 'f1' claims alignment 8, but thread \(1, 0, 0\) accesses byte 404 of 'shared_alloc'",
    ):
        run(parse_module(_with_alignment(fused, 8)), STENCIL_LAUNCH)
    with pytest.raises(
        MemoryAccessError, match="claims alignment 32, but 'shared_alloc' is only aligned to 16"
    ):
        run(parse_module(_with_alignment(fused, 32)), STENCIL_LAUNCH)
