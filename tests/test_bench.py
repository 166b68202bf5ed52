"""Smoke run of the benchmark harness (`make bench` runs the full version).

Every figure the test asserts is derived here, independently of the program: item counts
and lower bounds from the instance files, MiniMalloc's peak from its committed results,
best-fit's ratio on A from peers.md (1.311), the stencil chain's peak by hand."""

from __future__ import annotations

import csv
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.packing import PackItem
from gpu_alloc.tools.pack import read_instance

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data"
sys.path.insert(0, str(REPO / "bench"))

from compare import Outcome, independent_check, suite_table  # noqa: E402


def _lifetimes(path: Path) -> list[tuple[int, int, int]]:
    with path.open() as stream:
        return [(int(r["lower"]), int(r["upper"]), int(r["size"])) for r in csv.DictReader(stream)]


def _max_load(items: list[tuple[int, int, int]]) -> int:
    """The most bytes live at one time: a lower bound of any packing's peak."""
    times = {start for start, _, _ in items}
    return max(sum(size for start, end, size in items if start <= t < end) for t in times)


def _row(text: str, first_cell: str) -> list[str]:
    rows = [line for line in text.splitlines() if line.startswith(f"| {first_cell} |")]
    assert rows, f"no row '{first_cell}'"
    return [cell.strip() for cell in rows[0].strip("|").split("|")]


def test_bench_smoke_writes_the_tables(tmp_path: Path):
    output = tmp_path / "results.md"
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "run.py"), "--smoke", "--output", str(output)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    text = output.read_text()

    # input.12: five buffers, 12 bytes live in [0, 3): a peak of 12 is optimal.
    tiny = _max_load(_lifetimes(DATA / "examples" / "input.12.csv"))
    assert tiny == 12
    assert f"input.12: peak {tiny}, optimal True" in text

    # A: its items and lower bound from the CSV, MiniMalloc's proven optimum from its
    # results file, best-fit 1.311x that optimum (peers.md, section 3), and this project's
    # peak between the optimum and best-fit's.
    items = _lifetimes(DATA / "challenging" / "A.1048576.csv")
    best_known = json.loads((REPO / "bench" / "minimalloc_results.json").read_text())
    optimum = best_known["measured"]["instances"]["A"]["peak"]
    assert best_known["measured"]["instances"]["A"]["proven"]
    name, count, lower, known, best_fit, ours, *_ = _row(text, "A")
    assert (int(count), int(lower), int(known)) == (len(items), _max_load(items), optimum)
    fit = re.fullmatch(r"(\d+) \((\d\.\d{3})x\)", best_fit)
    assert fit is not None and fit[2] == "1.311"
    assert round(int(fit[1]) / optimum, 3) == 1.311
    peak = int(ours.split()[0].strip("*"))
    assert optimum <= peak <= int(fit[1])

    # chain 8: tile k is 16 x (16 + k) i32 (64 (16 + k) bytes), live in stages [k, k + 2];
    # tiles 5, 6, 7 are live together: 64 x (21 + 22 + 23) = 4224 bytes, the lower bound
    # and, proven, the peak.
    chain = _row(text, "chain 8")
    assert chain[:3] == ["chain 8", "8", str(64 * (21 + 22 + 23))]
    assert chain[4:6] == ["**4224**", "yes"]

    assert "### Pass speed" in text
    # The work budget gives the same layout under load (the row compares the output bytes).
    rows = [line for line in text.splitlines() if line.startswith("| `--budget 50` |")]
    assert len(rows) == 1 and rows[0].endswith("| yes |"), rows


@pytest.mark.parametrize(("name", "peak"), [("D", 1_018_880), ("J", 1_029_120)])
def test_the_committed_packings_below_the_published_peaks_are_valid(name: str, peak: int):
    # bench/solutions/: gpu-alloc-pack's output for D and J, below MiniMalloc's best known
    # peaks (1,024,000 and 1,038,336). Checked pair by pair, without the packer's validator.
    _, rows, items = read_instance(REPO / "bench" / "data" / "challenging" / f"{name}.1048576.csv")
    solution = list(csv.DictReader((REPO / "bench" / "solutions" / f"{name}.{peak}.csv").open()))
    assert [(r["id"], r["lower"], r["upper"], r["size"]) for r in solution] == [
        (r["id"], r["lower"], r["upper"], r["size"]) for r in rows
    ]
    offsets = [int(row["offset"]) for row in solution]
    assert independent_check(items, offsets) == peak


def test_the_independent_check_catches_overlaps_and_misalignment():
    items = [PackItem(0, 2, 4), PackItem(1, 3, 4, 4), PackItem(2, 4, 4)]
    assert independent_check(items, [0, 4, 0]) == 8
    with pytest.raises(AssertionError, match="buffers 0 and 1 overlap"):
        independent_check(items, [0, 0, 8])
    with pytest.raises(AssertionError, match="alignment"):
        independent_check(items, [0, 6, 0])


def test_the_suite_table_sets_both_packers_beside_minimalloc():
    before = {"A": Outcome(1_328_128, False, 10.0), "C": Outcome(1_039_360, True, 0.1)}
    after = {"A": Outcome(1_048_576, True, 0.5, 1_048_576), "C": Outcome(1_039_360, True, 0.0)}
    lines = suite_table(["A", "C"], before, after, {}, "`--time-limit 10`")
    # MiniMalloc's figures come from bench/minimalloc_results.json (capacity 2^20: C stops
    # at 1,047,552, above its optimum).
    assert "| A | 1048576 | 1328128 | no | 10.00 | **1048576** | yes | 0.50 | 1048576 | yes |" in (
        "\n".join(lines)
    )
    assert any(line.startswith("| C | ") and "| 1047552 | no |" in line for line in lines)
    assert any(
        "before 1 of 2 proven in 10.1 s, after 2 of 2 proven in 0.5 s" in line for line in lines
    )
