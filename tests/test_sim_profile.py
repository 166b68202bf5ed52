"""`gpu-alloc-sim --profile`: per-Func counts and bank conflicts, checked by hand."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from differential import Launch
from gpu_alloc.banks import bank_conflicts
from gpu_alloc.dialect import AliasOp, AllocOp
from gpu_alloc.dialect.layout import layout_of
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.sim import simulate
from gpu_alloc.tools.sim_cli import main
from gpu_alloc.tools.sim_loading import load_module, parse_module
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, kernels
from lowering_support import run_pipeline
from test_differential import KERNELS
from xdsl.dialects.builtin import MemRefType

ROOT = Path(__file__).resolve().parent.parent
BANKS = ROOT / "tests" / "sim_kernels" / "bank_patterns.mlir"
STENCIL = ROOT / "examples" / "stencil_chain.mlir"
HEAP = ROOT / "examples" / "heap_scratch.mlir"

COLUMN = np.arange(32) * 32 * 4  # thread t reads word 32t: every word in bank 0


@pytest.mark.parametrize(
    ("addresses", "itemsize", "lanes", "expected"),
    [
        (COLUMN, 4, np.arange(32), 31),  # a 32x32 f32 tile read down a column
        (np.arange(32) * 4, 4, np.arange(32), 0),  # a contiguous row
        (np.zeros(32, np.int64), 4, np.arange(32), 0),  # every thread one word
        (np.arange(32) * 33 * 4, 4, np.arange(32), 0),  # the column of a 32x33 tile
        (np.arange(32) * 2 * 4, 4, np.arange(32), 1),  # stride 2: 2 words per bank
        (np.arange(32) * 32 * 8, 8, np.arange(32), 30),  # f64 column: 32 wavefronts, 2 ideal
        (np.arange(32) * 33 * 8, 8, np.arange(32), 0),  # f64 column of a 32x33 tile
        (np.arange(32) * 2, 2, np.arange(32), 0),  # 64 contiguous bytes of f16
        (np.tile(COLUMN, 2), 4, np.arange(64), 62),  # two warps, one column each
        (COLUMN[:8], 4, np.arange(8), 7),  # 8 active threads
    ],
)
def test_bank_model(addresses, itemsize, lanes, expected):
    assert bank_conflicts(np.asarray(addresses, np.int64), itemsize, lanes) == expected


def _funcs(profile_json: dict) -> dict[str, dict]:
    return {f["name"]: f for f in profile_json["funcs"]}


def _profile(module, grid, block) -> dict:
    result = simulate(module, grid=grid, block=block, profile=True)
    assert result.profile is not None and not result.races
    return result.profile.as_json()


def test_bank_patterns_by_hand():
    # One 32-thread warp per block, 2 blocks (see the kernel's comment).
    funcs = _funcs(_profile(load_module(str(BANKS)), [2], [32]))
    col = funcs["col"]
    assert (col["space"], col["stores"], col["bytes_stored"]) == ("shared", 2 * 32 * 32, 8192)
    assert (col["loads"], col["bytes_loaded"], col["bank_conflicts"]) == (64, 256, 2 * 31)
    assert [(s["stage"], s["bank_conflicts"]) for s in col["stages"]] == [(0, 0), (1, 62)]
    for name in ("row", "bcast"):
        assert (funcs[name]["loads"], funcs[name]["stores"]) == (64, 64)
        assert funcs[name]["bank_conflicts"] == 0
    heap, private = funcs["h"], funcs["p"]
    assert (heap["space"], heap["loads"], heap["stores"], heap["bytes_loaded"]) == (
        "heap",
        64,
        64,
        256,
    )
    assert heap["bank_conflicts"] is None  # no bank model outside shared memory
    assert (private["space"], private["loads"], private["stores"]) == ("private", 64, 64)
    assert [s["stage"] for s in private["stages"]] == [1]


def test_reused_bytes_are_attributed_by_stage():
    # Fused, f1 and f3 share bytes 400..724 (f1 in stages 0-1, f3 in 2-3). By hand, per
    # block (16x16 threads, 64 blocks): f1 stores 11x11, f2 stores 10x10, f3 stores 9x9;
    # each Func is read twice by the threads of the next, smaller tile.
    module = run_pipeline(load_module(str(STENCIL)), "fuse-gpu-allocs,flatten-aliases")
    funcs = _funcs(_profile(module, [8, 8], [16, 16]))
    assert {n: (f["stores"], f["loads"]) for n, f in funcs.items()} == {
        "f1": (121 * 64, 2 * 100 * 64),
        "f2": (100 * 64, 2 * 81 * 64),
        "f3": (81 * 64, 2 * 64 * 64),
    }
    assert [s["stage"] for s in funcs["f3"]["stages"]] == [2, 3]


PIPELINES = (
    "fuse-gpu-allocs",
    "fuse-gpu-allocs,flatten-aliases",
    "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
)


def _moved_off_the_bank_word(module) -> set[str]:
    """The Funcs of fused `module` whose bank pattern may differ from unfused: those a
    backing places off a bank word (`bank_bytes`, 4: a whole-word shift only renumbers
    the banks a warp hits). The simulator gives each unfused allocation a 16-aligned base;
    fused, a Func's offset is a multiple of its element size only where fusion fell back
    to the Funcs' natural alignment (`fuse.plan`), and a dynamic Func follows the run-time
    sizes before it."""
    moved: set[str] = set()
    for op in module.walk():
        if isinstance(op, AllocOp) and op.backing is not None:
            moved |= {s.name for s in layout_of(op) or () if s.offset % 4}
        if isinstance(op, AliasOp) and op.dynamic_sizes and _element_bytes(op) < 4:
            moved.add(op.alias_name.data)
    return moved


def _element_bytes(alias: AliasOp) -> int:
    memref_type = alias.memref.type
    assert isinstance(memref_type, MemRefType)
    return element_bytes(memref_type.element_type) or 0


def _without_bank_conflicts(profile: dict, names: set[str]) -> dict:
    """`profile` with the bank conflicts of the Funcs `names` taken out (of the Funcs, their
    stages and the total)."""
    profile = copy.deepcopy(profile)
    for func in profile["funcs"]:
        if func["name"] in names:
            profile["total"]["bank_conflicts"] -= func["bank_conflicts"] or 0
            func["bank_conflicts"] = None
            for stage in func["stages"]:
                stage["bank_conflicts"] = None
    return profile


def _same_profile_through_the_pipeline(text: str, launch: Launch) -> None:
    """Every Func keeps its loads, stores and bytes through fusion, flattening and
    lowering, and its bank conflicts wherever its bytes keep their bank word."""

    def profile(module) -> dict:
        result = simulate(
            module,
            grid=list(launch.grid),
            block=list(launch.block),
            scalars=list(launch.scalars),
            profile=True,
        )
        assert result.profile is not None
        return result.profile.as_json()

    expected = profile(parse_module(text))
    assert expected["funcs"]
    moved = _moved_off_the_bank_word(run_pipeline(parse_module(text), "fuse-gpu-allocs"))
    for pipeline in PIPELINES:
        got = profile(run_pipeline(parse_module(text), pipeline))
        assert _without_bank_conflicts(got, moved) == _without_bank_conflicts(expected, moved), (
            pipeline
        )


@pytest.mark.parametrize(("label", "path", "launch"), KERNELS, ids=[k[0] for k in KERNELS])
def test_profile_names_the_same_funcs_through_the_pipeline(label, path: Path, launch):
    _same_profile_through_the_pipeline(path.read_text(), launch)


@settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(kernels())
def test_generated_kernels_keep_their_profile(kernel: GeneratedKernel):
    launch = Launch(kernel.grid, kernel.block, tuple(map(float, kernel.scalars)))
    _same_profile_through_the_pipeline(kernel.text, launch)


def test_cli_prints_the_table_and_writes_json(tmp_path: Path, capsys):
    out_json = tmp_path / "profile.json"
    args = [str(BANKS), "--grid", "2", "--block", "32", "--profile", "--profile-json"]
    with pytest.raises(SystemExit) as exit_info:
        main([*args, str(out_json)])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("out 64xf32 sha256=")
    assert out[1].startswith("profile of kernel 'bank_patterns'")
    col_total = next(line.split() for line in out if line.startswith("col") and " all " in line)
    assert col_total == ["col", "shared", "all", "64", "2048", "256", "8192", "62"]
    data = json.loads(out_json.read_text())
    assert set(data) == {
        "kernel", "grid", "block", "bank_model", "stages", "funcs", "total", "padding",
    }  # fmt: skip
    for func in data["funcs"]:
        assert {"loads", "stores", "bytes_loaded", "bytes_stored", "bank_conflicts"} <= set(func)
    assert data["total"]["bank_conflicts"] == 62


def test_cli_unwritable_json_is_one_line_and_no_output(tmp_path: Path, capsys):
    bad = tmp_path / "missing" / "profile.json"
    with pytest.raises(SystemExit) as exit_info:
        main([str(BANKS), "--grid", "2", "--block", "32", "--profile-json", str(bad)])
    captured = capsys.readouterr()
    assert exit_info.value.code == 1
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) == 1
    assert "cannot write the profile" in captured.err
