"""Smoke run of the benchmark harness (`make bench` runs the full version)."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.tools.pack import read_instance
from gpu_alloc.transforms.packing import PackItem

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from compare import Outcome, independent_check, suite_table  # noqa: E402


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
    assert "input.12: peak 12, optimal True" in text
    assert "| A | 154 | 1048576 | 1048576 | 1374208 (1.311x) |" in text  # peers.md: 1.311
    assert "| chain 8 | 8 |" in text
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
