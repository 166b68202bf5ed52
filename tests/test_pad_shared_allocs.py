"""pad-shared-allocs: conflicts drop (to 0 on these patterns), outputs stay the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.sim import simulate
from gpu_alloc.tools.sim_loading import load_module
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


COLUMN_OF_BYTES = """
builtin.module {
  gpu.module @m {
    gpu.func @k(%out: memref<32xi8>) kernel {
      %t = gpu.thread_id x
      %c0 = arith.constant 0 : index
      %one = arith.constant 1 : i8
      %tile = gpu_alloc.alloc "tile" : memref<32x16xi8, 3 : i32>
      memref.store %one, %tile[%t, %c0] : memref<32x16xi8, 3 : i32>
      gpu.barrier
      %v = memref.load %tile[%t, %c0] : memref<32x16xi8, 3 : i32>
      memref.store %v, %out[%t] : memref<32xi8>
      gpu.return
    }
  }
}
"""


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


@pytest.mark.parametrize(
    ("chip", "padded"), [("", "32x20xi8"), ("sm_90", "32x20xi8"), ("gfx950", "32x18xi8")]
)
def test_the_pad_follows_the_chips_bank_model(chip: str, padded: str):
    """32 threads read a column of a 32x16 i8 tile (one byte each, 16 + pad bytes apart).
    By hand: with 32 banks of 4 bytes (NVIDIA) pitches 17, 18 and 19 put two rows' bytes in
    one bank (rows 1 and 16, 1 and 8, 0 and 27), pitch 20 (5 words, odd) does not: pad 4;
    with gfx950's 64 banks pitch 17 collides (rows 1 and 16) and pitch 18 does not: pad 2."""
    from lowering_support import parse

    module = parse(COLUMN_OF_BYTES)
    run_pipeline(module, f"pad-shared-allocs{{chip={chip}}}" if chip else "pad-shared-allocs")
    assert f"memref<{padded}, 3 : i32>" in str(module)


def test_a_chip_without_a_bank_model_is_refused():
    from gpu_alloc.errors import GpuAllocPassError
    from lowering_support import parse

    with pytest.raises(GpuAllocPassError, match="spirv generic has no bank model"):
        run_pipeline(parse(COLUMN_OF_BYTES), "pad-shared-allocs{chip=generic}")


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
