"""The kernel generator makes valid, race-free kernels whose metadata is right."""

from __future__ import annotations

import re
import subprocess

import pytest
from differential import Launch, assert_same_behaviour, run
from gpu_alloc.sim.loading import parse_module
from handfused import fuse_shared
from hypothesis import HealthCheck, Phase, find, given, settings
from kernelgen import MAYBE_BARRIERS, FuncSpec, GeneratedKernel, kernels, mlir_form_kernels

SETTINGS = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def launch_of(kernel: GeneratedKernel) -> Launch:
    return Launch(grid=kernel.grid, block=kernel.block, scalars=tuple(map(float, kernel.scalars)))


@SETTINGS
@given(kernels())
def test_generated_kernels_run_race_free(kernel: GeneratedKernel):
    result = run(parse_module(kernel.text), launch_of(kernel))
    assert result.races == [], result.races[0].describe()
    assert result.thread_steps > 0


@SETTINGS
@given(kernels())
def test_metadata_matches_the_text(kernel: GeneratedKernel):
    barriers = kernel.n_stages - 1 + kernel.extra_barriers
    assert kernel.text.count('"gpu.barrier"()') == barriers
    sizes = sum(f.size_argument is not None for f in kernel.funcs)
    assert len(kernel.scalars) == sizes + kernel.trip_arguments
    for func in kernel.funcs:
        extent = "?" if func.size_argument else str(func.size)
        memref_type = f"memref<{extent}x{func.element}, {func.space} : i32>"
        alloc = re.search(
            rf'%{func.name} = "gpu_alloc.alloc"\(.*\) <{{name = "{func.name}"}}> : .* -> (.*)',
            kernel.text,
        )
        assert alloc is not None and alloc[1] == memref_type
        first, last = func.stages
        assert 0 <= first <= last < kernel.n_stages


def pack_by_metadata(funcs: list[FuncSpec]) -> tuple[dict[str, int], int]:
    """First fit: Funcs whose live stages overlap get disjoint bytes; others may share."""
    placed: list[tuple[FuncSpec, int]] = []
    for func in sorted(funcs, key=lambda f: -f.nbytes):
        offset = 0
        while clashes := [
            other_offset + other.nbytes
            for other, other_offset in placed
            if not (func.stages[1] < other.stages[0] or other.stages[1] < func.stages[0])
            and offset < other_offset + other.nbytes
            and other_offset < offset + func.nbytes
        ]:
            offset = (max(clashes) + 15) // 16 * 16
        placed.append((func, offset))
    size = max((o + f.nbytes for f, o in placed), default=0)
    return {f.name: o for f, o in placed}, size


@SETTINGS
@given(kernels())
def test_funcs_whose_stages_do_not_overlap_may_share_bytes(kernel: GeneratedKernel):
    """The stage intervals are right: a fusion that reuses bytes only between Funcs
    with disjoint intervals keeps the results and adds no race."""
    funcs = [
        f
        for f in kernel.funcs
        if f.space == 3 and f.size_argument is None and not f.allocated_in_loop
    ]
    offsets, size = pack_by_metadata(funcs)
    fused = fuse_shared(kernel.text, offsets, max(size, 1))
    assert_same_behaviour(
        parse_module(kernel.text), parse_module(fused), launch_of(kernel), "packing"
    )


@SETTINGS
@given(kernels(dynamic_sizes=False, loops=False, heap=False, max_funcs=3))
def test_options_restrict_the_kernels(kernel: GeneratedKernel):
    assert 2 <= len(kernel.funcs) <= 3
    assert all(f.space == 3 and f.size_argument is None for f in kernel.funcs)
    assert "scf.for %v" in kernel.text  # the strided per-thread loops remain
    assert kernel.scalars == ()
    assert kernel.extra_barriers == 0
    assert not any(f.allocated_in_loop for f in kernel.funcs)
    assert (
        " = %c0 to " not in kernel.text
    )  # block-level loops count from 0, per-thread ones from %tid


FEATURES = {
    **{kind: f"// {kind}\n" for kind in MAYBE_BARRIERS},
    "dynamic loop of stages": "to %s",
    "overlapping aliases": '"gpu_alloc.alias"(%ov_b)',
    "scf.while": "scf.while",
}


@pytest.mark.parametrize("feature", sorted(FEATURES))
def test_the_generator_makes_every_construct(feature: str):
    """Barriers under uniform ifs (one branch or both), loops with dynamic and zero
    trip counts, scf.while, and overlapping aliases all appear (issue 10)."""
    text = FEATURES[feature]
    kernel = find(
        kernels(),
        lambda k: text in k.text,
        settings=settings(
            database=None, max_examples=500, derandomize=True, phases=[Phase.generate]
        ),
    )
    assert text in kernel.text
    if feature == "overlapping aliases":
        assert kernel.overlapping_aliases


# ---- MLIR's forms -------------------------------------------------------------------------

MLIR_FORM_FEATURES = {
    "memref.alloc in workgroup memory": re.compile(r"memref\.alloc\(.*\) : memref<.*, (3|#gpu)"),
    "memref.alloca in workgroup memory": re.compile(r"memref\.alloca\(.*\) : memref<.*, (3|#gpu)"),
    "workgroup attribution": re.compile(r"workgroup_attributions = \d+ : i64"),
    "workgroup global": re.compile(r'"memref.global"\(\) <\{sym_name = "f\d+"'),
    "an allocation in a loop body": re.compile(r"^ {8,}%f\d+ = memref\.alloca?\(", re.MULTILINE),
    **{
        f"spelled {s}": re.compile(re.escape(f"x{{}}, {s}>").replace(r"\{\}", r"[a-z0-9]+"))
        for s in ("#gpu.address_space<workgroup>", "3 : i32", "3")
    },
}


@pytest.mark.parametrize("feature", sorted(MLIR_FORM_FEATURES))
def test_mlir_form_kernels_use_every_form(feature: str):
    pattern = MLIR_FORM_FEATURES[feature]
    kernel = find(
        mlir_form_kernels(),
        lambda k: pattern.search(k.text) is not None,
        settings=settings(
            database=None, max_examples=500, derandomize=True, phases=[Phase.generate]
        ),
    )
    assert pattern.search(kernel.text)


@SETTINGS
@given(mlir_form_kernels())
def test_mlir_form_kernels_are_mlir_and_have_no_gpu_alloc_op(kernel: GeneratedKernel):
    """mlir-opt-22 reads them (it is the reference for what MLIR accepts), and nothing of
    this project's dialect is left in them."""
    assert "gpu_alloc" not in kernel.text
    done = subprocess.run(
        ["mlir-opt-22", "-o", "/dev/null"], input=kernel.text, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result = run(parse_module(kernel.text), launch_of(kernel))
    assert result.races == [], result.races[0].describe()
