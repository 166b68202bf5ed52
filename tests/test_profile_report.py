"""The profile's report (issue 23 item 5): each stage named by its barriers' source lines, and
where `pad-shared-allocs` would remove bank conflicts and at what cost."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from gpu_alloc.sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
STENCIL = ROOT / "examples" / "stencil_chain.mlir"
TRANSPOSE = ROOT / "tests" / "sim_kernels" / "transpose_tile.mlir"
BANKS = ROOT / "tests" / "sim_kernels" / "bank_patterns.mlir"


def _sim(capsys: pytest.CaptureFixture[str], *args: str) -> list[str]:
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--profile"])
    assert exit_info.value.code == 0
    return capsys.readouterr().out.splitlines()


def _barrier_lines(path: Path) -> list[int]:
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if "gpu.barrier" in line]


def test_stages_are_named_by_their_barriers_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    a, b, c = _barrier_lines(STENCIL)  # found in the file, independently of the tool
    out = _sim(capsys, str(STENCIL), "--grid", "8,8", "--block", "16,16", "--profile-json",
               str(tmp_path / "p.json"))  # fmt: skip
    start = out.index("stages:")
    assert out[start + 1 : start + 5] == [
        f"  0: from the kernel entry to the gpu.barrier @ line {a}",
        f"  1: from the gpu.barrier @ line {a} to the gpu.barrier @ line {b}",
        f"  2: from the gpu.barrier @ line {b} to the gpu.barrier @ line {c}",
        f"  3: from the gpu.barrier @ line {c} to the kernel's end",
    ]
    data = json.loads((tmp_path / "p.json").read_text())
    assert data["stages"] == [
        {"stage": 0, "barrier_lines": []},
        {"stage": 1, "barrier_lines": [a]},
        {"stage": 2, "barrier_lines": [b]},
        {"stage": 3, "barrier_lines": [c]},
    ]
    assert "padding" not in data  # no bank conflict: nothing to advise
    assert not any(line.startswith("padding") for line in out)


def test_padding_advice_is_measured(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    """The 32x32 f32 transpose by hand: each warp reads a column (stride 128 B: one bank),
    31 conflicts per read, 32 reads per block, 2 blocks: 1984. Padding to 32x33 adds a
    column (32 x 4 B = 128 B) and spreads the column over all banks: 0."""
    out = _sim(capsys, str(TRANSPOSE), "--grid", "2", "--block", "32", "--profile-json",
               str(tmp_path / "p.json"))  # fmt: skip
    assert out[-2:] == [
        "padding (pad-shared-allocs, before fuse-gpu-allocs; measured on a padded copy):",
        "  tile: pad 32x32xf32 -> 32x33xf32 (+128 B; shared 4096 -> 4224 B): bank conflicts "
        "1984 -> 0",
    ]
    padding = json.loads((tmp_path / "p.json").read_text())["padding"]
    assert padding["padded"] == [
        {
            "func": "tile",
            "shape": "32x32xf32",
            "padded_shape": "32x33xf32",
            "extra_bytes": 128,
            "conflicts": 1984,
            "conflicts_after": 0,
            "shared_bytes": 4096,
            "padded_shared_bytes": 4224,
        }
    ]


def test_fused_ir_is_told_to_pad_before_fusing(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    from gpu_alloc.tools.opt import main as opt

    fused = tmp_path / "fused.mlir"
    opt([str(BANKS), "-p", "fuse-gpu-allocs", "-o", str(fused)])  # returns on success
    capsys.readouterr()
    out = _sim(capsys, str(fused), "--grid", "2", "--block", "32")
    assert out[-2:] == [
        "padding (pad-shared-allocs, before fuse-gpu-allocs):",
        "  col: pad-shared-allocs leaves it as it is: pad-shared-allocs: shared Func 'col' of "
        "kernel 'bank_patterns' needs padding but is already fused; run pad-shared-allocs "
        "before fuse-gpu-allocs",
    ]


def test_mlir_form_stages_are_named_too(capsys: pytest.CaptureFixture[str]):
    """MLIR's custom syntax (`gpu.barrier` with no quotes), after import and fusion."""
    path = ROOT / "examples" / "mlir_transpose.mlir"
    a, b, c = _barrier_lines(path)  # found in the file, independently of the tool
    out = _sim(capsys, str(path), "--grid", "2,2", "--block", "32,32")
    start = out.index("stages:")
    assert out[start + 1 : start + 5] == [
        f"  0: from the kernel entry to the gpu.barrier @ line {a}",
        f"  1: from the gpu.barrier @ line {a} to the gpu.barrier @ line {b}",
        f"  2: from the gpu.barrier @ line {b} to the gpu.barrier @ line {c}",
        f"  3: from the gpu.barrier @ line {c} to the kernel's end",
    ]
