"""`make bench`: packing quality and speed, and the pass-speed scaling, into bench/results.md.

    python bench/run.py [--smoke] [--output PATH] [--time-limit SECONDS]

Reads MiniMalloc-format instances from bench/data (vendored; see bench/data/README.md). Every packing
reported here is checked with `gpu_alloc.packing.validate`, the validator the tests
use. `--smoke` runs tiny instances only (used by the test suite).
"""

from __future__ import annotations

import argparse
import datetime
import io
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "bench"))

from compare import (  # noqa: E402
    BEFORE,
    Outcome,  # noqa: E402
    before_packer,
    long_runs,
    minimalloc_measured,
    run_before,
    suite_table,
    warm_up,
)
from gen_kernels import chain_items, chain_kernel  # noqa: E402
from gpu_alloc import packing  # noqa: E402
from gpu_alloc.packing import (  # noqa: E402
    SEARCH_MAX_ITEMS,
    PackItem,
    best_fit,
    lower_bound,
    pack,
    validate,
)
from gpu_alloc.tools.pack import read_instance  # noqa: E402
from pack_rows import determinism, greedy_scaling  # noqa: E402
from xdsl.dialects.builtin import ModuleOp  # noqa: E402
from xdsl.parser import Parser  # noqa: E402
from xdsl.xdsl_opt_main import xDSLOptMain  # noqa: E402

T = TypeVar("T")

DSA = REPO / "bench" / "data"

# Best-known peaks of MiniMalloc's challenging suite: bench/data/README.md (MiniMalloc,
# exact, at capacity 2^20 with --validate); also reference/peers.md section 6.2.
CHALLENGING_BEST = {
    "A": (1048576, True),
    "B": (1048576, True),
    "C": (1039360, True),
    "D": (1024000, False),
    "E": (1048576, True),
    "F": (1048576, True),
    "G": (1048576, True),
    "H": (1048576, True),
    "I": (1048576, True),
    "J": (1038336, False),
    "K": (1048576, True),
}
TRACES = ["G_1", "resnet50", "pangu_2.6B", "S_1", "Y_1"]
PASS_SIZES = (250, 1000, 4000)
KERNEL_SIZES = (8, 16, 32, 64)
GREEDY_SIZES = ((50_000, 1.0), (200_000, 2.0))
CHALLENGING_TIME_LIMIT = 10.0
"""Wall-clock limit per challenging instance: issue 15's condition for the MiniMalloc comparison."""
LONG_TIME_LIMIT = 60.0
"""Wall-clock limit of the D and J runs (issue 22: D at or below 1,024,000 within 60 s)."""


class BenchError(Exception):
    pass


def data_dir() -> Path:
    if not (DSA / "challenging").is_dir():
        raise BenchError(
            f"benchmark data not found: expected MiniMalloc CSVs under {DSA} (bench/data/README.md)"
        )
    return DSA


def peak_of(items: Sequence[PackItem], offsets: Sequence[int]) -> int:
    return max((o + i.size for i, o in zip(items, offsets, strict=True)), default=0)


def timed(function: Callable[[], T]) -> tuple[T, float]:
    started = time.perf_counter()
    result = function()
    return result, time.perf_counter() - started


@dataclass
class Row:
    name: str
    items: int
    bound: int
    reference: str
    best_fit: int
    best_fit_time: float
    peak: int
    optimal: bool
    time: float
    cpu: float
    """CPU seconds of `pack` (about its wall time on an idle machine)."""
    lower_bound_proven: int = 0
    """`Packing.lower_bound`: the max load raised by alignment and by the search."""


def measure(
    name: str,
    items: list[PackItem],
    time_limit: float | None,
    reference: str,
    budget: int | None = None,
) -> Row:
    baseline, baseline_time = timed(partial(best_fit, items))
    validate(items, baseline)
    cpu_started = time.process_time()
    packing, elapsed = timed(partial(pack, items, time_limit, budget))
    cpu = time.process_time() - cpu_started
    validate(items, packing.offsets)
    # Above SEARCH_MAX_ITEMS best-fit runs only within the limit, so it may be out of reach.
    if packing.peak > peak_of(items, baseline) and len(items) <= SEARCH_MAX_ITEMS:
        raise BenchError(f"{name}: pack ({packing.peak}) is worse than best-fit")
    row = Row(
        name,
        len(items),
        lower_bound(items),
        reference,
        peak_of(items, baseline),
        baseline_time,
        packing.peak,
        packing.optimal,
        elapsed,
        cpu,
        packing.lower_bound,
    )
    print(f"  {name}: peak {row.peak} (best-fit {row.best_fit}) in {elapsed:.2f} s", flush=True)
    return row


def limits_label(time_limit: float | None, budget: int | None) -> str:
    flags = [] if budget is None else [f"--budget {budget}"]
    flags += [] if time_limit is None else [f"--time-limit {time_limit:g}"]
    return f"`{' '.join(flags)}`" if flags else "default work budget"


def challenging(
    folder: Path,
    limits: tuple[float | None, int | None],
    names: Sequence[str],
    results: dict[str, Row],
) -> list[str]:
    lines = [
        f"### MiniMalloc challenging suite ({limits_label(*limits)})",
        "",
        "Best known: MiniMalloc's exact solver (bench/data/README.md; D and J are best "
        "known, not proven). Ratios are to the best known peak. A work budget gives the same "
        "peaks under any load; CPU seconds are about the wall time on an idle machine.",
        "",
        "| instance | items | lower bound | best known | best-fit | this project | proven optimal "
        "| wall (s) | CPU (s) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    misses: list[str] = []
    optimal = 0
    for name in names:
        best, proven = CHALLENGING_BEST[name]
        _, _, items = read_instance(folder / f"{name}.1048576.csv")
        row = measure(name, items, limits[0], str(best), limits[1])
        results[name] = row
        if row.peak > 1.05 * best:
            misses.append(f"{name} {row.peak / best:.3f}x")
        optimal += proven and row.peak == best
        lines.append(
            f"| {name} | {row.items} | {row.bound} | {best}{'' if proven else ' (not proven)'} "
            f"| {row.best_fit} ({row.best_fit / best:.3f}x) | **{row.peak}** "
            f"({row.peak / best:.3f}x) | {'yes' if row.optimal else 'no'} | {row.time:.2f} "
            f"| {row.cpu:.2f} |"
        )
    provable = sum(CHALLENGING_BEST[name][1] for name in names)
    lines += [
        "",
        f"Within 1.05x of the best known: {len(names) - len(misses)} of {len(names)}"
        f"{' (above: ' + ', '.join(misses) + ')' if misses else ''}. Optimal on {optimal} of "
        f"the {provable} instances with a proven optimum.",
        "",
    ]
    return lines


def limit_flag(time_limit: float | None) -> str:
    return "default work budget" if time_limit is None else f"--time-limit {time_limit:g}"


def cli_rss(path: Path, time_limit: float | None) -> tuple[str, float, int]:
    """Run `gpu-alloc-pack` on `path`; its last line, wall time and peak RSS in KiB."""
    command = [sys.executable, "-m", "gpu_alloc.tools.pack", str(path)]
    if time_limit is not None:
        command += ["--time-limit", str(time_limit)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if done.returncode:
        raise BenchError(f"gpu-alloc-pack failed on {path}: {done.stderr.strip()}")
    last = done.stdout.strip().splitlines()[-1]
    return last, elapsed, max(rss, before)


def traces(folder: Path, time_limit: float | None, names: Sequence[str]) -> list[str]:
    lines = [
        f"### Real traces (idealloc's IOPDDL and MindSpore SOMAS sets, {limit_flag(time_limit)})",
        "",
        "No optimum is known; ratios are to the max-load lower bound (an upper bound on the gap). "
        "Time is `pack` alone (best-fit included), in-process.",
        "",
        "| instance | items | lower bound | best-fit | this project | time (s) | best-fit time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    loose: list[str] = []
    slow: list[str] = []
    for name in names:
        _, _, items = read_instance(folder / f"{name}.csv")
        row = measure(name, items, time_limit, "")
        if row.peak > 1.01 * row.bound:
            loose.append(f"{name} {row.peak / row.bound:.4f}x")
        if row.time > 30:
            slow.append(f"{name} {row.time:.1f} s")
        lines.append(
            f"| {name} | {row.items} | {row.bound} | {row.best_fit} "
            f"({row.best_fit / row.bound:.4f}x) | **{row.peak}** ({row.peak / row.bound:.4f}x) "
            f"| {row.time:.1f} | {row.best_fit_time:.1f} |"
        )
    if names:
        biggest = max(names, key=lambda n: (folder / f"{n}.csv").stat().st_size)
        last, elapsed, rss = cli_rss(folder / f"{biggest}.csv", time_limit)
        lines += [
            "",
            f"Memory: `gpu-alloc-pack {biggest}.csv` ({limit_flag(time_limit)}) as a separate "
            f"process: peak RSS {rss / 1024:.0f} MiB, wall {elapsed:.1f} s (`{last}`).",
            "",
            f"Within 1.01x of the lower bound: "
            f"{'all' if not loose else 'not ' + ', '.join(loose)}. At most 30 s each: "
            f"{'all' if not slow else 'not ' + ', '.join(slow)}. Peak RSS at most 1 GiB: "
            f"{'yes' if rss <= 1024 * 1024 else 'no'}.",
        ]
    lines.append("")
    return lines


def kernels(sizes: Sequence[int]) -> list[str]:
    lines = [
        "### Kernel-sized inputs (default work budget)",
        "",
        "Stencil chains from bench/gen_kernels.py (tile k live in barrier stages [k, k+2]) and "
        "the same chain with 16-byte alignment.",
        "",
        "| input | items | lower bound | best-fit | this project | proven optimal | time (s) |",
        "|---|---|---|---|---|---|---|",
    ]
    for count in sizes:
        for aligned in (False, True):
            items = chain_items(count)
            if aligned:
                items = [PackItem(i.start, i.end, i.size, 16) for i in items]
            name = f"chain {count}{' align 16' if aligned else ''}"
            row = measure(name, items, None, "")
            lines.append(
                f"| {name} | {row.items} | {row.bound} | {row.best_fit} | **{row.peak}** "
                f"| {'yes' if row.optimal else 'no'} | {row.time:.3f} |"
            )
    lines += ["", *random_kernels(seed=7, count=40)]
    return lines


def random_kernels(seed: int, count: int) -> list[str]:
    """Random kernel-like inputs: 16-64 tiles live for 1-4 of 16 barrier stages, 16 B to
    4 KiB in 16-byte steps, 16-byte aligned; packed with the default work budget."""
    generator = random.Random(seed)
    proven, at_bound, slowest, worst = 0, 0, 0.0, 1.0
    for _ in range(count):
        items = []
        for _ in range(generator.randint(16, 64)):
            start = generator.randrange(16)
            items.append(
                PackItem(
                    start,
                    start + generator.randint(1, 4),
                    16 * generator.randint(1, 256),
                    16,
                )
            )
        packing, elapsed = timed(partial(pack, items))
        validate(items, packing.offsets)
        proven += packing.optimal
        at_bound += packing.peak == packing.lower_bound
        worst = max(worst, packing.peak / packing.lower_bound)
        if packing.optimal:
            slowest = max(slowest, elapsed)
    return [
        f"Random kernel-like inputs (seed {seed}, {count} instances of 16-64 tiles, lifetimes of "
        "1-4 of 16 barrier stages, sizes 16 B to 4 KiB in 16 B steps, 16-byte aligned), "
        f"default budget: proven optimal on {proven} of {count} ({at_bound} at the lower "
        f"bound), the slowest proof taking {slowest:.3f} s; worst peak / lower bound {worst:.4f}.",
        "",
    ]


def time_passes(main: xDSLOptMain, path: Path) -> tuple[float, float, float, str | None]:
    """Seconds to parse `path`, print it, and run `main`'s pipeline on it (NaN if it fails)."""
    text = path.read_text()
    module, parse_time = timed(partial(Parser(main.ctx, text, str(path)).parse_module))
    assert isinstance(module, ModuleOp)
    _, print_time = timed(partial(main.output_resulting_program, module))
    try:
        _, passes_time = timed(partial(main.apply_passes, module))
    except Exception as error:  # the pass is a stub in this checkout, or it failed
        return parse_time, print_time, float("nan"), f"{type(error).__name__}: {error}"
    return parse_time, print_time, passes_time, None


def pass_speed(sizes: Sequence[int]) -> list[str]:
    spec = "fuse-gpu-allocs,flatten-aliases"
    lines = [
        "### Pass speed (`fuse-gpu-allocs,flatten-aliases` vs parsing and printing)",
        "",
        "One process per size: parse the generated kernel, print it, run the two passes, all "
        "timed with `time.perf_counter` in the same run. `pack` is the packer alone on the "
        "chain's lifetimes.",
        "",
        "| allocations | parse (s) | print (s) | passes (s) | passes / (parse + print) | "
        "pack alone (s) | pack peak / lower bound |",
        "|---|---|---|---|---|---|---|",
    ]
    pass_times: dict[int, float] = {}
    failure = None
    warm_up = xDSLOptMain(args=["-p", spec])  # load the dialects before timing anything
    Parser(warm_up.ctx, chain_kernel(2), "warm-up").parse_module()
    for count in sizes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"chain{count}.mlir"
            path.write_text(chain_kernel(count))
            parse_time, print_time, passes_time, error = time_passes(
                xDSLOptMain(args=[str(path), "-p", spec]), path
            )
            failure = failure or error
        items = chain_items(count)
        packing, pack_time = timed(partial(pack, items))
        validate(items, packing.offsets)
        ratio = packing.peak / packing.lower_bound
        pass_times[count] = passes_time
        shown = "n/a" if passes_time != passes_time else f"{passes_time:.2f}"
        relative = (
            "n/a"
            if passes_time != passes_time
            else f"{passes_time / (parse_time + print_time):.2f}"
        )
        lines.append(
            f"| {count} | {parse_time:.2f} | {print_time:.2f} | {shown} | {relative} "
            f"| {pack_time:.2f} | {ratio:.4f} |"
        )
        print(f"  {count} allocations: parse {parse_time:.2f} s, passes {shown}", flush=True)
    lines.append("")
    if failure is not None:
        lines.append(
            f"**The passes did not run in this checkout** ({failure}); rerun `make bench` once "
            "`fuse-gpu-allocs` is implemented."
        )
    elif len(sizes) >= 2 and sizes[-2] in pass_times:
        growth = pass_times[sizes[-1]] / pass_times[sizes[-2]]
        lines.append(
            f"Growth from {sizes[-2]} to {sizes[-1]} allocations: {growth:.2f}x (target <= 5x)."
        )
    lines.append("")
    return lines


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{cpu}, {os.cpu_count()} logical CPUs (load average {load:.1f} at the end), "
        f"Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def packer_comparison(folder: Path, args: argparse.Namespace, ours: dict[str, Row]) -> list[str]:
    """The challenging suite before and after (and MiniMalloc), D and J over a minute, and
    the kernel-sized packing time before and after, all from this run."""
    limits = (None, args.budget) if args.budget is not None else (args.time_limit, None)
    names = list(CHALLENGING_BEST)
    warm_up(packing)
    lines = challenging(folder, limits, names, ours)
    with tempfile.TemporaryDirectory() as scratch:
        before = run_before(before_packer(Path(scratch)), folder, names, limits)
    after = {name: as_outcome(row) for name, row in ours.items()}
    measured = minimalloc_measured(folder, names, args.time_limit)
    lines += suite_table(names, before, after, measured, limits_label(*limits))
    lines += long_runs(folder, args.long_time_limit, args.solutions)
    lines += kernel_ratio_section()
    return lines


def as_outcome(row: Row) -> Outcome:
    return Outcome(row.peak, row.optimal, row.time, row.lower_bound_proven)


def kernel_ratio_section() -> list[str]:
    """`bench/kernel_ratio.py BEFORE` in a fresh process (so that numba is not loaded)."""
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "kernel_ratio.py"), BEFORE],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise BenchError(f"kernel_ratio.py failed: {done.stderr.strip() or done.stdout.strip()}")
    return [
        "### Kernel-sized packing before and after",
        "",
        f"`python bench/kernel_ratio.py {BEFORE}`: {done.stdout.strip()}",
        "",
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Packing and pass-speed benchmarks.")
    parser.add_argument("--smoke", action="store_true", help="tiny instances only")
    parser.add_argument("--output", type=Path, default=REPO / "bench" / "results.md")
    parser.add_argument(
        "--budget",
        type=int,
        help="work units for the challenging instances instead of the time limit (the same "
        "peaks under any load)",
    )
    parser.add_argument(
        "--long-time-limit",
        type=float,
        default=LONG_TIME_LIMIT,
        help="wall-clock limit of the D and J runs (default 60)",
    )
    parser.add_argument(
        "--solutions", type=Path, help="write the D and J packings of the long runs here"
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        default=CHALLENGING_TIME_LIMIT,
        help="wall-clock limit for each challenging instance (default 10, issue 15's condition "
        "for the MiniMalloc comparison; peaks may then depend on load)",
    )
    args = parser.parse_args(argv)
    try:
        folder = data_dir()
        started = time.perf_counter()
        body: list[str] = []
        ours: dict[str, Row] = {}
        if args.smoke:
            _, _, toy = read_instance(folder / "examples" / "input.12.csv")
            row = measure("input.12", toy, 0.1, "12")
            body += [f"input.12: peak {row.peak}, optimal {row.optimal}", ""]
            body += challenging(folder / "challenging", (None, 50), ["A"], ours)
            body += kernels((8,))
            body += pass_speed((4, 8))
            body += determinism(folder / "challenging" / "A.1048576.csv", 1, [["--budget", "50"]])
        else:
            body += packer_comparison(folder / "challenging", args, ours)
            body += traces(folder / "traces", None, TRACES)
            body += kernels(KERNEL_SIZES)
            body += pass_speed(PASS_SIZES)
            hogs = os.cpu_count() or 2
            body += determinism(
                folder / "challenging" / "B.1048576.csv", hogs, [[], ["--time-limit", "0.5"]]
            )
            body += greedy_scaling(GREEDY_SIZES)
        total = time.perf_counter() - started
    except BenchError as error:
        print(f"bench: error: {error}", file=sys.stderr)
        sys.exit(1)
    header = [
        "# Benchmark results",
        "",
        f"Generated by `make bench` (bench/run.py{' --smoke' if args.smoke else ''}) on "
        f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, in {total:.0f} s.",
        "",
        f"Machine: {machine()}.",
        "",
    ]
    text = io.StringIO()
    text.write("\n".join(header + body))
    args.output.write_text(text.getvalue())
    print(f"wrote {args.output}")


if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    main()
