"""The `gpu-alloc-sim` command line: output, files, exit codes and diagnostics."""

from __future__ import annotations

import hashlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gpu_alloc.sim.cli import main

ROOT = Path(__file__).resolve().parent.parent
MIXED = str(ROOT / "examples" / "mixed_types.mlir")


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    captured = capsys.readouterr()
    code = exit_info.value.code
    return (code if isinstance(code, int) else 1), captured.out, captured.err


def test_prints_a_digest_line_per_memref_argument_and_saves_them(tmp_path: Path, capsys):
    code, out, err = run_cli(
        [MIXED, "--grid", "4", "--block", "64", "--out", str(tmp_path)], capsys
    )
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert [line.split()[:2] for line in lines] == [
        ["in8", "148xi8"],
        ["in16", "72xi16"],
        ["out", "68xi16"],
    ]
    for line in lines:
        name, _, digest = line.split()
        array = np.load(tmp_path / f"{name}.npy")
        assert digest == "sha256=" + hashlib.sha256(array.tobytes()).hexdigest()
    assert np.load(tmp_path / "in8.npy").dtype == np.int8


def test_seed_changes_the_inputs(capsys):
    _, first, _ = run_cli([MIXED, "--grid", "4", "--block", "64", "--seed", "1"], capsys)
    _, second, _ = run_cli([MIXED, "--grid", "4", "--block", "64", "--seed", "2"], capsys)
    assert first.splitlines()[0] != second.splitlines()[0]


RACY = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<8xi32>):
      %c0 = arith.constant 0 : index
      %c7 = arith.constant 7 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ti = arith.index_cast %t : index to i32
      %f1 = "gpu_alloc.alloc"() <{name = "f1"}> : () -> memref<8xi32, 3 : i32>
      memref.store %ti, %f1[%t] : memref<8xi32, 3 : i32>
      %r = arith.subi %c7, %t : index
      %v = memref.load %f1[%r] : memref<8xi32, 3 : i32>
      memref.store %v, %out[%t] : memref<8xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "racy"} : () -> ()
  }) : () -> ()
}
"""


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    return str(path)


def test_race_exits_3_naming_the_funcs(tmp_path: Path, capsys):
    code, out, err = run_cli([write(tmp_path, RACY), "--grid", "1", "--block", "8"], capsys)
    assert code == 3
    assert out.startswith("out 8xi32 sha256=")
    assert re.search(
        r"race on shared memory 'f1' byte \d+ \(block \(0, 0, 0\), barrier interval 0\): "
        r"thread \(\d, 0, 0\) writes 'f1' and thread \(\d, 0, 0\) reads 'f1'",
        err,
    )


def test_divergent_barrier_exits_4(tmp_path: Path, capsys):
    text = RACY.replace(
        "      %r = arith.subi",
        "      %low = arith.cmpi ult, %t, %c7 : index\n"
        '      scf.if %low {\n        "gpu.barrier"() : () -> ()\n      }\n      %r = arith.subi',
    )
    path = write(tmp_path, text)
    code, out, err = run_cli([path, "--grid", "1", "--block", "8"], capsys)
    assert (code, out) == (4, "")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if '"gpu.barrier"' in t)
    assert err.splitlines()[0] == (
        f"{path}:{line}:9: error: gpu.barrier reached by 7 of 8 threads of block (0, 0, 0) "
        "(thread (7, 0, 0) does not reach it): a deadlock on a GPU"
    )


def test_out_of_bounds_exits_5(tmp_path: Path, capsys):
    code, _, err = run_cli([write(tmp_path, RACY), "--grid", "1", "--block", "9"], capsys)
    assert code == 5
    assert "out-of-bounds store to 'f1' (8xi32) at index (8,) by thread (8, 0, 0)" in err


def test_parse_error_is_one_diagnostic_with_location(tmp_path: Path, capsys):
    path = write(tmp_path, RACY.replace("arith.subi %c7, %t", "arith.subi %c7 %t"))
    code, out, err = run_cli([path, "--grid", "1", "--block", "8"], capsys)
    assert (code, out) == (1, "")
    assert re.match(rf"{re.escape(path)}:12:\d+: error: ", err)
    assert "Traceback" not in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scalars", "3"], "1 more --scalars than scalar kernel arguments"),
        (["--kernel", "nope"], "no kernel named 'nope' (kernels: racy)"),
    ],
)
def test_bad_arguments_are_one_line_errors(tmp_path: Path, capsys, args: list[str], message: str):
    code, _, err = run_cli([write(tmp_path, RACY), "--grid", "1", "--block", "8", *args], capsys)
    assert code == 1
    assert err.strip() == f"gpu-alloc-sim: error: {message}"


def test_missing_scalar_is_named(capsys):
    path = str(ROOT / "tests" / "sim_kernels" / "dynamic_private.mlir")
    code, _, err = run_cli([path, "--grid", "3", "--block", "32"], capsys)
    assert code == 1
    assert "kernel argument %n : index needs a value: pass it with --scalars" in err


def test_bad_grid_is_a_one_line_usage_error(capsys):
    code, _, err = run_cli([MIXED, "--grid", "4,x", "--block", "64"], capsys)
    assert code == 1
    assert err.splitlines() == [
        "gpu-alloc-sim: error: argument --grid: expected X[,Y,Z] positive integers, got '4,x' "
        "(see --help)"
    ]


def test_installed_script_runs():
    script = Path(sys.executable).parent / "gpu-alloc-sim"
    result = subprocess.run(
        [str(script), MIXED, "--grid", "4", "--block", "64"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()) == 3
