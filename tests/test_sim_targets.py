"""The simulator on a named target or chip (`--target`, `--chip`): its wave's lanes, its
shared memory per block and its bank model, all read from `gpu_alloc.targets`."""

from __future__ import annotations

import json

import numpy as np
import pytest
from gpu_alloc.sim import SimulationError, simulate
from gpu_alloc.tools.sim_cli import main
from lowering_support import parse

LANES = """
gpu.module @m {
  gpu.func @k(%out: memref<128xindex>) kernel {
    %t = gpu.thread_id x
    %l = gpu.lane_id
    memref.store %l, %out[%t] : memref<128xindex>
    gpu.return
  }
}
"""

BIG_SHARED = """
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>) kernel {
    %t = gpu.thread_id x
    %tile = gpu_alloc.alloc "tile" : memref<24576xf32, 3 : i32>
    %v = memref.load %out[%t] : memref<64xf32>
    memref.store %v, %tile[%t] : memref<24576xf32, 3 : i32>
    gpu.barrier
    %w = memref.load %tile[%t] : memref<24576xf32, 3 : i32>
    memref.store %w, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


def _lanes(**device: str) -> np.ndarray:
    result = simulate(parse(LANES), grid=[1], block=[128], **device)
    (out,) = result.arrays().values()
    return out


@pytest.mark.parametrize(
    ("device", "wave"),
    [({}, 32), ({"chip": "sm_90"}, 32), ({"chip": "gfx942"}, 64), ({"target": "amdgcn"}, 64)]
    + [({"chip": "gfx1100"}, 32), ({"chip": "gfx950"}, 64)],
)
def test_lane_id_counts_the_chips_wave(device: dict[str, str], wave: int):
    assert list(_lanes(**device)) == [t % wave for t in range(128)]


def test_a_target_without_a_fixed_wave_refuses_lane_ops_at_the_op():
    with pytest.raises(SimulationError, match="sub-group size") as error:
        _lanes(target="spirv")
    assert error.value.op is not None and error.value.op.name == "gpu.lane_id"


def test_shared_memory_is_what_one_block_of_the_chip_may_use():
    """96 KiB of shared memory: sm_90 gives a block 227 KiB, gfx942 64 KiB, gfx950 160 KiB,
    SPIR-V's generic OpenCL device 32 KiB."""
    for chip in ("sm_90", "gfx950"):
        assert not simulate(parse(BIG_SHARED), grid=[1], block=[64], chip=chip).races
    for chip, limit in (("gfx942", 65536), ("generic", 32768)):
        with pytest.raises(SimulationError, match=f"more than {chip} gives a block \\({limit}"):
            simulate(parse(BIG_SHARED), grid=[1], block=[64], chip=chip)
    with pytest.raises(SimulationError, match="unknown chip 'gfx1'"):
        simulate(parse(BIG_SHARED), grid=[1], block=[64], chip="gfx1")


COLUMN = """
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>) kernel {
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %tile = gpu_alloc.alloc "tile" : memref<64x64xf32, 3 : i32>
    %v = memref.load %out[%t] : memref<64xf32>
    memref.store %v, %tile[%t, %c0] : memref<64x64xf32, 3 : i32>
    gpu.barrier
    %w = memref.load %tile[%t, %c0] : memref<64x64xf32, 3 : i32>
    memref.store %w, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize(
    ("chip", "banks", "conflicts"),
    # 64 threads write then read a column, rows 256 bytes apart: every word falls in bank 0.
    # NVIDIA: 2 warps of 32 lanes, 31 conflicts each per access (2 accesses): 124; gfx950's
    # 64 banks serve all 64 lanes at once: 63 per access: 126.
    [("sm_90", 32, 2 * 2 * 31), ("gfx950", 64, 2 * 63)],
)
def test_the_profile_uses_the_chips_bank_model(tmp_path, capsys, chip, banks, conflicts):
    path = tmp_path / "column.mlir"
    path.write_text(COLUMN)
    report = tmp_path / "profile.json"
    with pytest.raises(SystemExit) as exit_info:
        main(
            [
                str(path),
                "--grid",
                "1",
                "--block",
                "64",
                "--chip",
                chip,
                "--profile-json",
                str(report),
            ]
        )
    assert exit_info.value.code == 0, capsys.readouterr().err
    profile = json.loads(report.read_text())
    assert profile["bank_model"]["banks"] == banks
    (tile,) = [f for f in profile["funcs"] if f["name"] == "tile"]
    assert tile["bank_conflicts"] == conflicts
