"""`gpu-alloc-pack`: output format, --output, pinned offsets, --capacity, progress, Ctrl-C,
and one-line errors on bad input."""

from __future__ import annotations

import csv
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from gpu_alloc.packing import validate
from gpu_alloc.tools.pack import main, read_instance

# MiniMalloc's examples/input.12.csv: optimum 12 (b1/b2 reuse bytes under b4's lifetime).
INPUT_12 = """id,lower,upper,size
b1,0,3,4
b2,3,9,4
b3,0,9,4
b4,9,21,4
b5,0,21,4
"""

LAST_LINE = re.compile(
    r"peak=(\d+) lower_bound=(\d+) ratio=(\d+\.\d+) time=(\d+\.\d+) work=(\d+)"
    r"( stopped_by=(?:time-limit|interrupt))?"
)
CHALLENGING = Path(__file__).resolve().parents[1] / "bench" / "data" / "challenging"
PACK = Path(sys.executable).parent / "gpu-alloc-pack"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exit:
        code = exit.code if isinstance(exit.code, int) else 1
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def toy(tmp_path: Path) -> Path:
    path = tmp_path / "input.12.csv"
    path.write_text(INPUT_12)
    return path


def test_last_line_reports_peak_bound_ratio_and_time(capsys, toy: Path):
    code, out, err = run(capsys, str(toy))
    assert code == 0 and err == ""
    match = LAST_LINE.fullmatch(out.strip().splitlines()[-1])
    assert match is not None, out
    assert match.group(1) == "12" and match.group(2) == "12" and match.group(3) == "1.0000"


def test_output_adds_a_valid_offset_column(capsys, toy: Path, tmp_path: Path):
    output = tmp_path / "out.csv"
    code, _, _ = run(capsys, str(toy), "--output", str(output), "--time-limit", "0.5")
    assert code == 0
    rows = list(csv.DictReader(output.open()))
    assert [row["id"] for row in rows] == ["b1", "b2", "b3", "b4", "b5"]
    assert list(rows[0]) == ["id", "lower", "upper", "size", "offset"]
    _, _, items = read_instance(toy)
    offsets = [int(row["offset"]) for row in rows]
    validate(items, offsets)
    assert max(o + i.size for o, i in zip(offsets, items, strict=True)) == 12


def test_alignment_column_is_honoured(capsys, tmp_path: Path):
    path = tmp_path / "aligned.csv"
    path.write_text("id,lower,upper,size,alignment\na,0,2,3,4\nb,0,2,8,8\nc,0,2,5,8\n")
    output = tmp_path / "out.csv"
    code, out, _ = run(capsys, str(path), "--output", str(output))
    assert code == 0
    offsets = {row["id"]: int(row["offset"]) for row in csv.DictReader(output.open())}
    assert offsets["a"] % 4 == 0 and offsets["b"] % 8 == 0 and offsets["c"] % 8 == 0
    # All three live together (max load 16). b and c need 8-aligned starts, so b and c take 0
    # and 8 in some order (the 5-byte one ends at 13 or 5) and a lands at 16: peak 19 at best.
    assert LAST_LINE.fullmatch(out.strip().splitlines()[-1]).group(1) == "19"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("id,lower,upper\nx,0,1\n", "missing column(s) size in the header"),
        ("id,lower,upper,size\nx,0,one,4\n", ":2: column 'upper' is 'one', not an integer"),
        ("id,lower,upper,size\nx,5,1,4\n", ":2: buffer 'x': lifetime [5, 1) ends before it starts"),
        ("id,lower,upper,size\nx,0,1,-4\n", ":2: buffer 'x': size -4 is negative"),
        (
            "id,lower,upper,size,alignment\nx,0,1,4,3\n",
            "alignment 3 is not a positive power of two",
        ),
        ("", "missing column(s) id, lower, upper, size"),
    ],
)
def test_bad_input_is_one_line_exit_1(capsys, tmp_path: Path, content: str, message: str):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    code, out, err = run(capsys, str(path))
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("gpu-alloc-pack: error: ")
    assert message in err


def test_budget_gives_the_same_output_every_time(capsys, tmp_path: Path):
    # B is not solved within 300 units: the search stops on its budget, never on the clock.
    instance = CHALLENGING / "B.1048576.csv"
    outputs = []
    for run_index in range(2):
        output = tmp_path / f"out{run_index}.csv"
        code, out, _ = run(capsys, str(instance), "--budget", "300", "--output", str(output))
        assert code == 0
        match = LAST_LINE.fullmatch(out.strip().splitlines()[-1])
        assert match is not None, out
        assert match.group(6) is None  # no wall-clock cap, so it cannot fire
        outputs.append((output.read_bytes(), match.group(1), match.group(5)))
    assert outputs[0] == outputs[1]
    assert int(outputs[0][2]) <= 300 + 170  # the budget plus the greedy orders' charge


def test_time_limit_names_itself_when_it_fires(capsys):
    code, out, _ = run(capsys, str(CHALLENGING / "B.1048576.csv"), "--time-limit", "0")
    assert code == 0
    match = LAST_LINE.fullmatch(out.strip().splitlines()[-1])
    assert match is not None and match.group(6) == " stopped_by=time-limit", out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--budget", "-1"), "--budget must be a non-negative number of work units"),
        (("--time-limit", "-2"), "--time-limit must be a non-negative number of seconds"),
        (("--time-limit", "nan"), "--time-limit must be a non-negative number of seconds"),
        (("--capacity", "-1"), "--capacity must be a number of bytes between 0 and 2^62"),
    ],
)
def test_bad_limits_are_one_line_exit_1(capsys, toy: Path, args: tuple[str, ...], message: str):
    code, out, err = run(capsys, str(toy), *args)
    assert code == 1 and out == ""
    assert err == f"gpu-alloc-pack: error: {message} (see --help)\n"


def test_missing_file_is_one_line_exit_1(capsys, tmp_path: Path):
    code, _, err = run(capsys, str(tmp_path / "nope.csv"))
    assert code == 1
    assert err.strip().endswith("nope.csv: error: cannot read: No such file or directory")
    assert err.count("\n") == 1


def test_unwritable_output_is_one_line_exit_1(capsys, toy: Path, tmp_path: Path):
    code, _, err = run(capsys, str(toy), "--output", str(tmp_path / "no" / "dir" / "x.csv"))
    assert code == 1 and "cannot write" in err and err.count("\n") == 1


def test_offset_column_pins_buffers(capsys, tmp_path: Path):
    # b is pinned at 8; a, b and c are live together in [1, 2) (max load 12), so a and c share
    # bytes 0-8 and the optimum is 12. An empty offset leaves a buffer free.
    path = tmp_path / "pinned.csv"
    path.write_text("id,lower,upper,size,offset\na,0,2,4,\nb,0,2,4,8\nc,1,3,4,\n")
    output = tmp_path / "out.csv"
    code, out, _ = run(capsys, str(path), "--output", str(output))
    assert code == 0 and out.startswith("buffers=3 optimal\n")
    offsets = {row["id"]: int(row["offset"]) for row in csv.DictReader(output.open())}
    assert offsets["b"] == 8 and {offsets["a"], offsets["c"]} == {0, 4}
    assert list(csv.DictReader(output.open()))[0].keys() == {
        "id",
        "lower",
        "upper",
        "size",
        "offset",
    }


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "id,lower,upper,size,offset\na,0,2,4,0\nb,1,3,4,2\n",
            ":3: buffer 'b' pinned at offset 2 overlaps buffer 'a' (line 2, pinned at 0) while "
            "both are live",
        ),
        ("id,lower,upper,size,alignment,offset\na,0,2,4,4,2\n", ":2: buffer 'a': pinned offset 2"),
        ("id,lower,upper,size,offset\na,0,2,4,x\n", ":2: column 'offset' is 'x', not an integer"),
    ],
)
def test_bad_pins_are_one_located_line(capsys, tmp_path: Path, content: str, message: str):
    path = tmp_path / "pins.csv"
    path.write_text(content)
    code, out, err = run(capsys, str(path))
    assert code == 1 and out == "" and err.count("\n") == 1
    assert err.startswith(f"gpu-alloc-pack: error: {path}") and message in err


@pytest.mark.parametrize(("ending", "written"), [("\r\n", "\r\n"), ("\n", "\n"), ("\r", "\n")])
def test_either_line_ending_is_read_and_kept(capsys, tmp_path: Path, ending: str, written: str):
    path = tmp_path / "input.csv"
    path.write_bytes(INPUT_12.replace("\n", ending).encode())
    output = tmp_path / "out.csv"
    code, out, _ = run(capsys, str(path), "--output", str(output))
    assert code == 0 and LAST_LINE.fullmatch(out.strip().splitlines()[-1]).group(1) == "12"  # type: ignore[union-attr]
    text = output.read_bytes().decode()
    assert text.count(written) == 6 and text.endswith(written)
    if written == "\n":
        assert "\r" not in text


def test_capacity_asks_for_a_packing_within_it_or_a_proof(capsys, toy: Path):
    code, out, _ = run(capsys, str(toy), "--capacity", "12")
    assert code == 0 and out.startswith("buffers=5 fits in capacity 12\n")
    code, out, _ = run(capsys, str(toy), "--capacity", "11")
    assert code == 0 and out.startswith("buffers=5 no packing fits in capacity 11 (proven)\n")
    instance = str(CHALLENGING / "B.1048576.csv")
    code, out, _ = run(capsys, instance, "--capacity", "1048576", "--budget", "0")
    assert code == 0 and "no packing within capacity 1048576 found" in out
    code, out, _ = run(capsys, instance, "--capacity", "1048576", "--budget", "200000")
    assert code == 0 and out.startswith("buffers=170 fits in capacity 1048576\n")


def test_progress_goes_to_stderr_and_quiet_silences_it(tmp_path: Path):
    # D runs for the whole limit: past a second the tool reports the best peak once a second.
    instance = str(CHALLENGING / "D.1048576.csv")
    output = tmp_path / "out.csv"
    loud = subprocess.run(
        [str(PACK), instance, "--time-limit", "3", "--output", str(output)],
        capture_output=True,
        text=True,
    )
    assert loud.returncode == 0
    progress = [line for line in loud.stderr.splitlines() if "best peak" in line]
    assert progress, loud.stderr
    assert all(re.fullmatch(PROGRESS, line) for line in progress), progress
    assert "best peak" not in loud.stdout and "best peak" not in output.read_text()
    quiet = subprocess.run(
        [str(PACK), instance, "--time-limit", "1.5", "--quiet"], capture_output=True, text=True
    )
    assert quiet.returncode == 0 and quiet.stderr == ""


PROGRESS = (
    r"gpu-alloc-pack: \d+\.\d s: best peak \d+, lower bound 986112 \(\d+\.\d\d % above\), "
    r"\d+ work units"
)


def test_the_first_compile_announces_itself():
    from gpu_alloc.packing import Meter
    from gpu_alloc.tools.progress import ProgressPrinter

    lines: list[str] = []

    class Sink:
        def write(self, text: str) -> None:
            lines.append(text)

        def flush(self) -> None:
            pass

    printer = ProgressPrinter("gpu-alloc-pack", Sink())  # type: ignore[arg-type]
    printer("compile", Meter())
    printer("tick", Meter())  # within the first second: nothing
    text = "".join(lines)
    assert re.fullmatch(
        r"gpu-alloc-pack: (compiling the search loop with numba \(first use; some seconds, "
        r"cached afterwards\)|loading the compiled search loop from numba's cache)\n",
        text,
    ), text


def test_the_first_flat_search_of_a_process_says_so_once(tmp_path: Path):
    run = subprocess.run(
        [str(PACK), str(CHALLENGING / "C.1048576.csv"), "--budget", "3000"],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0
    announced = [line for line in run.stderr.splitlines() if "search loop" in line]
    assert len(announced) == 1, run.stderr
    assert "search loop" not in run.stdout


@pytest.mark.parametrize(
    ("env", "engine"),
    [
        ({"GPU_ALLOC_NO_JIT": "1"}, "plain Python (GPU_ALLOC_NO_JIT is set)"),
        ({"GPU_ALLOC_NO_JIT": "0"}, None),  # compiled where numba is installed
    ],
)
def test_the_tool_says_which_engine_searches(env: dict[str, str], engine: str | None):
    """Issue 30: without numba the search was several times slower and said nothing."""
    run = subprocess.run(
        [str(PACK), str(CHALLENGING / "C.1048576.csv"), "--budget", "200"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert run.returncode == 0, run.stderr
    lines = [line for line in run.stderr.splitlines() if "exact search of 65+ buffers" in line]
    assert len(lines) == 1, run.stderr
    if engine is None:
        import importlib.util

        has_numba = importlib.util.find_spec("numba") is not None
        engine = "compiled by numba" if has_numba else "plain Python, several times slower"
    assert lines[0].startswith(f"gpu-alloc-pack: exact search of 65+ buffers: {engine}")
    assert "search of 65+" not in run.stdout
    quiet = subprocess.run(
        [str(PACK), str(CHALLENGING / "C.1048576.csv"), "--budget", "200", "--quiet"],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_ctrl_c_keeps_the_best_packing_so_far(tmp_path: Path):
    output = tmp_path / "out.csv"
    process = subprocess.Popen(
        [str(PACK), str(CHALLENGING / "D.1048576.csv"), "--time-limit", "120"]
        + ["--output", str(output)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    started = time.monotonic()
    for line in process.stderr:  # wait until the search is under way
        if "best peak" in line:
            break
    os.kill(process.pid, signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert process.returncode == 0
    assert time.monotonic() - started < 60  # it stopped well before its limit
    match = LAST_LINE.fullmatch(out.strip().splitlines()[-1])
    assert match is not None and match.group(6) == " stopped_by=interrupt", out
    _, _, items = read_instance(CHALLENGING / "D.1048576.csv")
    offsets = [int(row["offset"]) for row in csv.DictReader(output.open())]
    validate(items, offsets)
    assert max(o + i.size for o, i in zip(offsets, items, strict=True)) == int(match.group(1))
