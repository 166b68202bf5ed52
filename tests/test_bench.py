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

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "bench" / "data"


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
    optimum = best_known["instances"]["A"]["peak"]
    name, count, lower, known, best_fit, ours, *_ = _row(text, "A")
    assert (int(count), int(lower), int(known)) == (len(items), _max_load(items), optimum)
    fit = re.fullmatch(r"(\d+) \((\d\.\d{3})x\)", best_fit)
    assert fit is not None and fit[2] == "1.311"
    assert round(int(fit[1]) / optimum, 3) == 1.311
    peak = int(ours.split()[0].strip("*"))
    assert optimum <= peak <= int(fit[1])
    assert f"| A | {optimum} | yes | {peak} |" in text  # MiniMalloc side by side

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
