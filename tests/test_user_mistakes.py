"""Issue 10 §6, §8, §9: every user mistake is one located line and exit code 1 in all three
tools (never "internal error"), and the simulator's limits."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from fuzz_cli import Outcome, run_tool
from gpu_alloc.sim.races import AccessLog

KERNEL = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, i32) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %s: i32):
      %c0 = arith.constant 0 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<64xi32, 3 : i32>
      memref.store %s, %f[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %v = memref.load %f[%t] : memref<64xi32, 3 : i32>
      memref.store %v, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
THREAD_ID = '      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
SIM = ("--grid", "1", "--block", "64", "--scalars", "3")


def use_before_def(text: str) -> str:
    moved = text.replace(THREAD_ID, "")
    return moved.replace("      %v = memref.load", THREAD_ID + "      %v = memref.load")


def use_inside_region_before_def(text: str) -> str:
    """%t is used in an scf.if's region above its definition."""
    moved = text.replace(THREAD_ID, "")
    body = "      %one = arith.constant true\n      scf.if %one {\n"
    body += "        memref.store %s, %out[%t] : memref<64xi32>\n      }\n"
    return moved.replace('      %f = "gpu_alloc', body + THREAD_ID + '      %f = "gpu_alloc')


# (name, source transform, expected "line:col: error: message" part of the first line)
IR_MISTAKES: list[tuple[str, Callable[[str], str], str]] = [
    (
        "constant out of range",
        lambda s: s.replace("%c0 = arith.constant 0 : index", "%c0 = arith.constant 4096 : i8"),
        ":5:7: error: Integer value 4096 is out of range for type i8",
    ),
    (
        "dimension above 2^63",
        lambda s: s.replace("64xi32, 3", "99999999999999999999xi32, 3"),
        ":7:7: error: memref<99999999999999999999xi32, 3 : i32>: a dimension is above 2^63 - 1",
    ),
    (
        "byte size above 2^63",
        lambda s: s.replace("64xi32, 3", "4611686018427387904xi32, 3"),
        "elements is more than 2^63 - 1 bytes",
    ),
    (
        "0-d memref indexed with one index",
        lambda s: s.replace("memref<64xi32, 3 : i32>", "memref<i32, 3 : i32>"),
        ":8:7: error: Expected an index for each dimension",
    ),
    (
        "use before def",
        use_before_def,
        ":7:7: error: operand #2 of 'memref.store' (%t) is used before it is defined",
    ),
    (
        "use before def inside a region",
        use_inside_region_before_def,
        ":8:9: error: operand #2 of 'memref.store' (%t) is used before it is defined",
    ),
    (
        "empty kernel name",
        lambda s: s.replace('{sym_name = "k"}', '{sym_name = ""}'),
        ":3:5: error: 'gpu.func' has an empty symbol name",
    ),
    ("non-UTF-8 input", lambda s: s.replace('"f"', '"\udcff"'), ":7:42: error: not UTF-8 text"),
]

CFG_USE_BEFORE_DEF = """\
func.func @f(%c: i1) -> i32 {
  cf.cond_br %c, ^a, ^b
^a:
  %x = arith.constant 1 : i32
  cf.br ^b
^b:
  func.return %x : i32
}
"""


def write(tmp_path: Path, text: str, name: str = "input.mlir") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode("utf-8", errors="surrogateescape"))
    return path


def assert_one_located_error(outcome: Outcome, prefix: str, expected: str) -> None:
    assert outcome.code == 1, outcome
    assert outcome.out == "", "no partial output"
    assert "internal error" not in outcome.err and "Traceback" not in outcome.err
    first = outcome.err.splitlines()[0]
    assert first.startswith(prefix), first
    assert expected in first, first


@pytest.mark.parametrize("tool", ["opt", "sim"])
@pytest.mark.parametrize("name, transform, expected", IR_MISTAKES, ids=[m[0] for m in IR_MISTAKES])
def test_bad_ir_is_one_located_error(tmp_path: Path, tool: str, name, transform, expected: str):
    path = write(tmp_path, transform(KERNEL))
    outcome = run_tool(tool, [str(path), *(SIM if tool == "sim" else ())])
    assert_one_located_error(outcome, f"{path}:", expected)


def test_use_before_def_across_cfg_blocks(tmp_path: Path):
    path = write(tmp_path, CFG_USE_BEFORE_DEF)
    outcome = run_tool("opt", [str(path)])
    assert_one_located_error(outcome, f"{path}:7:3:", "'func.return' (%x) is used before it is")


@pytest.mark.parametrize(
    "options, expected",
    [
        (
            ("-p", "fuse-gpu-allocs{report=maybe}"),
            "option 'report' of pass 'fuse-gpu-allocs' needs true or false, got 'maybe'",
        ),
        (
            ("-p", "fuse-gpu-allocs{max_shared_byte=1}"),
            "pass 'fuse-gpu-allocs' has no option 'max-shared-byte' (did you mean "
            "'max-shared-bytes'?) (its options: alignment, report, chip, max-shared-bytes, "
            "budget, time-limit, insert-barriers)",
        ),
        (("-p", "no-such-pass"), "unknown pass 'no-such-pass'"),
        (
            ("-p", "fuse-gpu-alloc"),
            "unknown pass 'fuse-gpu-alloc' (did you mean 'fuse-gpu-allocs'?)",
        ),
        (("-p", "fuse-gpu-allocs{"), "Expected argument name here"),
        (
            ("-p", "fuse-gpu-allocs{chip=sm_90 chip=sm_80}"),
            "option 'chip' of pass 'fuse-gpu-allocs' is given twice",
        ),
        (
            ("-p", "flatten-aliases,fuse-gpu-allocs{max-shared-bytes=1 max_shared_bytes=2}"),
            "option 'max-shared-bytes' of pass 'fuse-gpu-allocs' is given twice",
        ),
        (("-t", "ptx{chip=sm_80 chip=sm_90}"), "option 'chip' of target 'ptx' is given twice"),
        (("-t", "ptx{chip"), "-t 'ptx{chip': Error parsing pass pipeline specification"),
        (("-f", "mlir{"), "-f 'mlir{': Error parsing pass pipeline specification"),
        (("-t", "nope"), "argument -t/--target: invalid choice: 'nope'"),
        (("--no-such-flag",), "unrecognized arguments: --no-such-flag"),
    ],
)
def test_bad_options_are_one_line(tmp_path: Path, options: tuple[str, ...], expected: str):
    outcome = run_tool("opt", [str(write(tmp_path, KERNEL)), *options])
    assert_one_located_error(outcome, "gpu-alloc-opt: error: ", expected)
    assert len(outcome.err.splitlines()) == 1


def test_integer_for_a_float_option_is_accepted(tmp_path: Path):
    path = str(write(tmp_path, KERNEL))
    outcome = run_tool("opt", [path, "-p", "fuse-gpu-allocs{time-limit=2}"])
    assert outcome.code == 0, outcome.err
    assert outcome == run_tool("opt", [path, "-p", "fuse-gpu-allocs{time-limit=2.0}"])


@pytest.mark.parametrize("tool", ["opt", "sim", "pack"])
def test_file_problems_are_one_line(tmp_path: Path, tool: str):
    args = SIM if tool == "sim" else ()
    missing = run_tool(tool, [str(tmp_path / "missing.mlir"), *args])
    assert_one_located_error(missing, str(tmp_path / "missing.mlir"), "cannot read: No such file")
    directory = run_tool(tool, [str(tmp_path), *args])
    assert_one_located_error(directory, str(tmp_path), "is a directory")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"id,lower,upper,size\n0,0,1,\xff\n")
    not_text = run_tool(tool, [str(binary), *args])
    assert "binary.csv:2:7: error: not UTF-8 text (byte 0xff)" in not_text.err.splitlines()[0]
    assert not_text.code == 1 and "internal error" not in not_text.err


def test_input_that_is_not_named_mlir_is_refused_or_read_with_f_mlir(tmp_path: Path):
    """Any extension but .mlir is one line (it used to be xDSL's "internal error");
    `-f mlir` reads it, and the output is what the .mlir file gives."""
    for name in ("kernel.out", "kernel.txt"):
        path = tmp_path / name
        path.write_text(KERNEL)
        refused = run_tool("opt", [str(path)])
        assert_one_located_error(refused, str(path), "gpu-alloc-opt reads MLIR input only")
        assert "-f mlir" in refused.err
        forced = run_tool("opt", ["-f", "mlir", str(path)])
        assert forced.code == 0, forced.err
        assert forced.out == run_tool("opt", [str(write(tmp_path, KERNEL))]).out


def test_unwritable_outputs_are_one_line(tmp_path: Path):
    kernel = str(write(tmp_path, KERNEL))
    csv = tmp_path / "a.csv"
    csv.write_text("id,lower,upper,size\n0,0,1,4\n")
    nowhere = str(tmp_path / "no" / "such" / "dir" / "out")
    for tool, args in [
        ("opt", [kernel, "-o", nowhere]),
        ("sim", [kernel, *SIM, "--out", str(csv)]),
        ("pack", [str(csv), "--output", nowhere]),
    ]:
        outcome = run_tool(tool, args)
        assert outcome.code == 1 and outcome.out == "", (tool, outcome)
        assert "cannot write" in outcome.err and "internal error" not in outcome.err, tool


def test_dev_stdin_is_read_as_mlir(tmp_path: Path):
    script = Path(sys.executable).parent / "gpu-alloc-opt"
    for args in (["/dev/stdin"], ["-"], []):
        result = subprocess.run(
            [str(script), *args], input=KERNEL, capture_output=True, text=True, check=False
        )
        assert result.returncode == 0, (args, result.stderr)
        assert '"gpu_alloc.alloc"' in result.stdout or "gpu_alloc.alloc" in result.stdout


# ---- gpu-alloc-sim ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, expected",
    [
        (
            ("--scalars", "3000000000"),
            "kernel argument %s : i32: 3000000000 is out of range [-2147483648, 2147483647]",
        ),
        (("--scalars", "nan"), "kernel argument %s : i32 needs an integer, got nan"),
        (("--seed", "-1"), "argument --seed: expected a non-negative integer, got '-1'"),
        (("--block", "2048"), "at most 1024 threads per block"),
        (("--scalars", "3", "--max-steps", "100"), "stopped after 100 thread-steps (--max-steps)"),
    ],
)
def test_sim_bad_arguments(tmp_path: Path, args: tuple[str, ...], expected: str):
    outcome = run_tool("sim", [str(write(tmp_path, KERNEL)), "--grid", "1", "--block", "64", *args])
    assert_one_located_error(outcome, "gpu-alloc-sim: error: ", expected)


def test_sim_refuses_shared_memory_above_any_device_before_allocating(tmp_path: Path):
    text = KERNEL.replace("64xi32, 3", "100000000xi32, 3")
    path = write(tmp_path, text)
    outcome = run_tool("sim", [str(path), *SIM])
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "100000000xi32" in t)
    assert_one_located_error(
        outcome, f"{path}:{line}:", "shared allocation 'f' needs 400000000 bytes"
    )


def test_sim_argument_too_large_to_allocate(tmp_path: Path):
    text = KERNEL.replace("memref<64xi32>", "memref<100000000000000xi32>")
    outcome = run_tool("sim", [str(write(tmp_path, text)), *SIM])
    assert_one_located_error(outcome, "gpu-alloc-sim: error: ", "out of memory")


def test_race_log_grows_with_the_bytes_touched():
    log = AccessLog(200 * 1024, ["f"])
    log.record(np.arange(8, dtype=np.int64), np.zeros(8, np.int64), True, 0)
    assert log.writer.size < 1024


def nested_ifs(depth: int) -> str:
    opened = "      %one = arith.constant true\n" + "      scf.if %one {\n" * depth
    closed = "      }\n" * depth
    start = KERNEL.index('      %f = "gpu_alloc')
    end = KERNEL.index('      "gpu.return"')
    return KERNEL[:start] + opened + KERNEL[start:end] + closed + KERNEL[end:]


def test_deep_nesting_is_handled(tmp_path: Path):
    path = str(write(tmp_path, nested_ifs(250)))
    flat = run_tool("sim", [str(write(tmp_path, KERNEL, "flat.mlir")), *SIM])
    deep = run_tool("sim", [path, *SIM])
    assert deep.code == 0 and deep.out == flat.out, deep.err
    fused = run_tool("opt", [path, "-p", "fuse-gpu-allocs,flatten-aliases"])
    assert fused.code == 0, fused.err
    again = run_tool("sim", [str(write(tmp_path, fused.out, "fused.mlir")), *SIM])
    assert again.code == 0 and again.out == flat.out, again.err


# ---- gpu-alloc-pack -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "rows, expected",
    [
        (
            "0,0,2,99999999999999999999\n",
            "input.csv:2: column 'size' is 99999999999999999999, above 2^62",
        ),
        (
            "0,0,2,4611686018427387904\n1,1,3,4611686018427387904\n",
            "the buffers' sizes add up to 9223372036854775810, more than 2^62 bytes",
        ),
    ],
)
def test_pack_sizes_that_overflow(tmp_path: Path, rows: str, expected: str):
    path = tmp_path / "input.csv"
    path.write_text("id,lower,upper,size\n" + rows)
    outcome = run_tool("pack", [str(path)])
    assert_one_located_error(outcome, "gpu-alloc-pack: error: ", expected)
