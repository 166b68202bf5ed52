"""Start-up of every tool against the stock `xdsl-opt` (issue 31 §3).

    python bench/startup.py [--runs 5] [--file examples/stencil_chain.mlir]

The reference is `xdsl-opt FILE` (parse and print, with this project's plugin loaded, as any
user of the plugin has it). Against it: `gpu-alloc-opt FILE` (the same parse and print) and
`TOOL --version` for `gpu-alloc-sim`, `gpu-alloc-layout` and `gpu-alloc-pack` (everything a
tool imports before it reads its arguments). Each command runs `--runs` times, interleaved;
the figure is the fastest run's CPU time (user + system of the child, from
`getrusage(RUSAGE_CHILDREN)`), which other jobs on a shared machine stretch less than wall time.
The wall time of the fastest run is printed beside it. The target, printed met or not: every
tool within 1.2x of the reference.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET = 1.2
"""Each tool's start-up ÷ `xdsl-opt FILE`."""


def commands(file: str) -> dict[str, list[str]]:
    return {
        "xdsl-opt FILE": ["xdsl-opt", file],
        "gpu-alloc-opt FILE": ["gpu-alloc-opt", file],
        "gpu-alloc-sim --version": ["gpu-alloc-sim", "--version"],
        "gpu-alloc-layout --version": ["gpu-alloc-layout", "--version"],
        "gpu-alloc-pack --version": ["gpu-alloc-pack", "--version"],
    }


def _tool(name: str) -> str:
    """The tool in this interpreter's environment, else on PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else (shutil.which(name) or name)


def run_once(argv: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one run; the command must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [_tool(argv[0]), *argv[1:]],
        check=True,
        stdout=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "GPU_ALLOC_TRACEBACK": "1"},
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def measure(file: str, runs: int) -> dict[str, tuple[float, float]]:
    """The fastest (CPU, wall) of `runs` interleaved runs of each command."""
    table = commands(file)
    best: dict[str, tuple[float, float]] = {}
    for _ in range(runs):
        for label, argv in table.items():
            figure = run_once(argv)
            if label not in best or figure[0] < best[label][0]:
                best[label] = figure
    return best


def report(best: dict[str, tuple[float, float]]) -> tuple[str, bool]:
    reference = best["xdsl-opt FILE"][0]
    lines = ["| command | CPU s (min) | wall s | ÷ xdsl-opt |", "|---|---|---|---|"]
    met = True
    for label, (cpu, wall) in best.items():
        ratio = cpu / reference
        met &= ratio <= TARGET
        lines.append(f"| `{label}` | {cpu:.3f} | {wall:.3f} | {ratio:.2f}x |")
    verdict = "met" if met else "NOT met"
    lines.append("")
    lines.append(f"target: every tool within {TARGET}x of `xdsl-opt FILE`: {verdict}")
    return "\n".join(lines), met


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--file", default="examples/stencil_chain.mlir")
    args = parser.parse_args()
    text, _ = report(measure(args.file, args.runs))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
