"""pad-shared-allocs: conflicts drop (to 0 on these patterns), outputs stay the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.sim import simulate
from gpu_alloc.sim.loading import load_module
from lowering_support import run_pipeline

KERNELS = Path(__file__).resolve().parent / "sim_kernels"

# kernel file, the padded Func, its conflicts before padding (by hand: per block, reads
# of a 32x32 f32 column x 31 conflicts; 2 blocks).
CASES = [
    ("bank_patterns.mlir", "col", 2 * 1 * 31),  # one column read
    ("transpose_tile.mlir", "tile", 2 * 32 * 31),  # transpose: 32 column reads
    ("row_stencil.mlir", "rows", 2 * 30 * 3 * 31),  # stencil: 3 reads x 30 points
]


def _simulate(module):
    result = simulate(module, grid=[2], block=[32], profile=True)
    assert not result.races and result.profile is not None
    return result.digests(), {f["name"]: f for f in result.profile.as_json()["funcs"]}


@pytest.mark.parametrize(("kernel", "func", "before"), CASES)
def test_padding_removes_conflicts_and_keeps_outputs(kernel, func, before):
    digests, funcs = _simulate(load_module(str(KERNELS / kernel)))
    assert funcs[func]["bank_conflicts"] == before
    for pipeline in (
        "pad-shared-allocs",
        "pad-shared-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
    ):
        padded_digests, padded = _simulate(
            run_pipeline(load_module(str(KERNELS / kernel)), pipeline)
        )
        assert padded_digests == digests, pipeline
        assert padded[func]["bank_conflicts"] == 0, pipeline
        assert padded.keys() == funcs.keys()
        for name, counts in funcs.items():
            for key in ("loads", "stores", "bytes_loaded", "bytes_stored"):
                assert padded[name][key] == counts[key], (pipeline, name, key)


def test_after_fuse_it_refuses_with_one_diagnostic():
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_alloc.tools.opt",
            str(KERNELS / "transpose_tile.mlir"),
            "-p",
            "fuse-gpu-allocs,pad-shared-allocs",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    # transpose_tile has one shared Func: fusion keeps it as it is, so it is padded.
    assert completed.returncode == 0, completed.stderr
    assert "memref<32x33xf32, 3 : i32>" in completed.stdout
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpu_alloc.tools.opt",
            str(KERNELS / "bank_patterns.mlir"),
            "-p",
            "fuse-gpu-allocs,pad-shared-allocs",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1
    assert completed.stdout == ""
    assert "error: pad-shared-allocs: shared Func 'col'" in completed.stderr
    assert "run pad-shared-allocs before fuse-gpu-allocs" in completed.stderr


LAUNCH_TRANSPOSE = """
func.func @host(%out: memref<32x32xf32>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c32, %sz = %c1) {
    %tile = memref.alloc() : memref<32x32xf32, #gpu.address_space<workgroup>>
    %v = memref.load %out[%ty, %tx] : memref<32x32xf32>
    memref.store %v, %tile[%ty, %tx] : memref<32x32xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %tile[%tx, %ty] : memref<32x32xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%ty, %tx] : memref<32x32xf32>
    gpu.terminator
  }
  return
}
"""


def test_a_launch_body_is_padded_too():
    """pad-shared-allocs pads what fuse fuses, gpu.launch bodies included (its thread id
    x is the body's argument 3): the transpose's column reads drop from 32 warps x 31
    conflicts to 0, with the same output (simulated after mlir-opt-22 outlines the
    launch: before as written, after the whole pipeline)."""
    import corpus

    padded = corpus.print_module(
        run_pipeline(
            corpus.parse(LAUNCH_TRANSPOSE),
            "import-gpu-allocs,pad-shared-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
        )
    )
    assert "memref<32x33xf32, #gpu.address_space<workgroup>>" in padded
    runs = []
    for text in (LAUNCH_TRANSPOSE, padded):
        result = simulate(corpus.outline(text), grid=[1], block=[32, 32], profile=True)
        assert not result.races and result.profile is not None
        runs.append((result.digests(), result.profile.as_json()["funcs"]))
    (before, before_funcs), (after, after_funcs) = runs
    assert before == after
    # (mlir-opt-22 prints the unimported buffer as %alloc; the lowered one keeps its record)
    assert [(f["name"], f["bank_conflicts"]) for f in before_funcs] == [("alloc", 32 * 31)]
    assert [(f["name"], f["bank_conflicts"]) for f in after_funcs] == [("tile", 0)]
