"""Smoke run of the benchmark harness (`make bench` runs the full version)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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
    # MiniMalloc's figures come from the committed results file, not from running it.
    assert "| A | 1048576 | yes | " in text  # MiniMalloc's peak, proven optimal
    # The work budget gives the same layout under load (the row compares the output bytes).
    rows = [line for line in text.splitlines() if line.startswith("| `--budget 50` |")]
    assert len(rows) == 1 and rows[0].endswith("| yes |"), rows
