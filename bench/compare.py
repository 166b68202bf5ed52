"""Packer benchmark sections for `bench/run.py` that compare: the challenging suite before and
after issue 22 (the packer of `BEFORE` run in the same process), MiniMalloc's published and
measured figures beside them (and MiniMalloc itself when `MINIMALLOC` names its binary), and the
long runs on D and J with the time each best peak took.

Every packing reported is checked with `validate` and with `independent_check`, a plain pairwise
test that shares no code with the packer."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

from gpu_alloc.packing import Meter, PackItem, pack, validate
from gpu_alloc.tools.pack import read_instance
from kernel_ratio import old_packer

BEFORE = "d5ecc86"
"""The last commit of main before issue 22's packer work."""
MINIMALLOC_RESULTS = Path(__file__).resolve().parent / "minimalloc_results.json"
PROVABLE = ("A", "B", "C", "E", "F", "G", "H", "I", "K")
LONG_RUNS = {"D": (1_024_000, 1_024_000), "J": (1_038_336, 1_032_192)}
"""Instance -> (MiniMalloc's best known peak, the issue's target)."""


@dataclass
class Outcome:
    peak: int
    proven: bool
    seconds: float
    lower_bound: int = 0
    reached: list[tuple[float, int]] = field(default_factory=list)
    """(seconds, peak) each time the search found a better packing (this project only)."""


def independent_check(items: Sequence[PackItem], offsets: Sequence[int]) -> int:
    """The peak of `offsets`, after checking every pair of buffers live at the same time for
    overlapping bytes, and every offset for alignment and pins (O(n^2), no shared code)."""
    for index, (item, offset) in enumerate(zip(items, offsets, strict=True)):
        if offset < 0 or offset % item.alignment or item.offset not in (None, offset):
            raise AssertionError(f"buffer {index} at {offset} breaks its alignment or pin")
    for a, (x, ox) in enumerate(zip(items, offsets, strict=True)):
        for b in range(a + 1, len(items)):
            y, oy = items[b], offsets[b]
            live = x.start < y.end and y.start < x.end and x.size and y.size
            if live and ox < oy + y.size and oy < ox + x.size:
                raise AssertionError(f"buffers {a} and {b} overlap")
    return max((o + i.size for i, o in zip(items, offsets, strict=True)), default=0)


def instance(folder: Path, name: str) -> list[PackItem]:
    return read_instance(folder / f"{name}.1048576.csv")[2]


def before_packer(folder: Path) -> ModuleType:
    """The packer of `BEFORE`, its compiled loop warmed up (compiled into `folder`)."""
    packer = old_packer(BEFORE, folder)
    warm_up(packer)
    return packer


def warm_up(packer: ModuleType) -> None:
    """Compile (or load) a packer's flat search: 66 one-byte, 2-aligned buffers live together
    pack to 131 bytes, above their load, so the search (65 buffers and more: flat) runs."""
    packer.pack([packer.PackItem(0, 2, 1, 2) for _ in range(66)], None, 100)


def run_before(
    packer: ModuleType,
    folder: Path,
    names: Sequence[str],
    limits: tuple[float | None, int | None],
) -> dict:
    rows = {}
    for name in names:
        items = [packer.PackItem(i.start, i.end, i.size) for i in instance(folder, name)]
        started = time.perf_counter()
        packing = packer.pack(items, *limits)
        seconds = time.perf_counter() - started
        independent_check(instance(folder, name), packing.offsets)
        rows[name] = Outcome(packing.peak, packing.optimal, seconds, packing.lower_bound)
        print(f"  before {name}: {packing.peak} in {seconds:.2f} s", flush=True)
    return rows


def run_after(items: list[PackItem], limit: float) -> tuple[Outcome, tuple[int, ...]]:
    """This project's packer under a time limit, with the time of every better peak."""
    meter = Meter()
    reached: list[tuple[float, int]] = []
    started = time.perf_counter()

    def listen(event: str, seen: Meter) -> None:
        if event == "improved":
            reached.append((time.perf_counter() - started, seen.peak))

    meter.listener = listen
    packing = pack(items, limit, meter=meter)
    seconds = time.perf_counter() - started
    validate(items, packing.offsets)
    if independent_check(items, packing.offsets) != packing.peak:
        raise AssertionError("the peak reported is not the packing's")
    outcome = Outcome(packing.peak, packing.optimal, seconds, packing.lower_bound, reached)
    return outcome, packing.offsets


def run_minimalloc(binary: str, path: Path, timeout: float, minimise: bool) -> Outcome | None:
    """MiniMalloc at capacity 2^20 (or minimising below it); None if it gave no packing."""
    items = read_instance(path)[2]
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "out.csv"
        command = [binary, "--capacity=1048576", f"--input={path}", f"--output={output}"]
        command += [f"--timeout={timeout:g}s"] + (["--minimize_capacity=true"] if minimise else [])
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout + 60)
        seconds = time.perf_counter() - started
        if done.returncode or not output.is_file():
            return None
        rows = list(csv.DictReader(io.StringIO(output.read_text())))
    offsets = [int(row["offset"]) for row in rows]
    peak = independent_check(items, offsets)
    load = max(sum(i.size for i in items if i.start <= t < i.end) for t in {i.start for i in items})
    return Outcome(peak, peak == load, seconds)


def minimalloc_measured(
    folder: Path, names: Sequence[str], limit: float
) -> dict[str, Outcome | None]:
    """MiniMalloc on each instance when `MINIMALLOC` names its binary (None: no packing
    within the limit); empty otherwise."""
    binary = os.environ.get("MINIMALLOC")
    if not binary:
        return {}
    rows: dict[str, Outcome | None] = {}
    for name in names:
        rows[name] = outcome = run_minimalloc(binary, folder / f"{name}.1048576.csv", limit, False)
        shown = "none" if outcome is None else f"{outcome.peak} in {outcome.seconds:.2f} s"
        print(f"  MiniMalloc {name}: {shown}", flush=True)
    return rows


def reference() -> dict:
    return json.loads(MINIMALLOC_RESULTS.read_text())


def suite_table(
    names: Sequence[str],
    before: Mapping[str, Outcome],
    after: Mapping[str, Outcome],
    measured: Mapping[str, Outcome | None],
    limit: str,
) -> list[str]:
    """A-K before and after, with MiniMalloc's figures (measured in this run when given)."""
    ref = reference()
    recorded = ref["measured"]["instances"]
    lines = [
        f"### Challenging suite before and after issue 22 ({limit}), MiniMalloc beside",
        "",
        f"Before: the packer of `{BEFORE}` (main before issue 22), run in the same process. "
        "Seconds are `pack`'s wall time (the compiled loop loaded beforehand). MiniMalloc "
        + (
            "was run in this run (`MINIMALLOC` set; capacity 2^20, default flags)"
            if measured
            else f"figures are read from `bench/{MINIMALLOC_RESULTS.name}` "
            f"({ref['measured']['conditions']})"
        )
        + ".",
        "",
        "| instance | lower bound | before: peak | proven | s | after: peak | proven | s "
        "| MiniMalloc: peak | proven | s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    yes = {True: "yes", False: "no"}
    mm = {n: measured[n] if measured else Outcome(**recorded[n]) for n in names}
    for name in names:
        b, a, m = before[name], after[name], mm[name]
        theirs = "none in the limit | no | - |"
        if m is not None:
            theirs = f"{m.peak} | {yes[m.proven]} | {m.seconds:.2f} |"
        lines.append(
            f"| {name} | {a.lower_bound} | {b.peak} | {yes[b.proven]} | {b.seconds:.2f} "
            f"| **{a.peak}** | {yes[a.proven]} | {a.seconds:.2f} | {theirs}"
        )
    provable = [name for name in names if name in PROVABLE]

    def total(rows: Mapping[str, Outcome]) -> str:
        proven = sum(rows[n].proven for n in provable)
        return (
            f"{proven} of {len(provable)} proven in {sum(rows[n].seconds for n in provable):.1f} s"
        )

    mm = {n: measured.get(n) or Outcome(**recorded[n]) for n in provable}
    lines += [
        "",
        f"The provable nine ({', '.join(provable)}): before {total(before)}, after "
        f"{total(after)}, MiniMalloc {total(mm)} (its paper: "
        f"{ref['published']['nine_provable_seconds']} s).",
        "",
    ]
    return lines


def long_runs(folder: Path, limit: float, solutions: Path | None) -> list[str]:
    """D and J at `limit` seconds: when each better peak came, against MiniMalloc's best."""
    ref = reference()["published"]["best_known"]
    binary = os.environ.get("MINIMALLOC")
    lines = [
        f"### D and J, `--time-limit {limit:g}`",
        "",
        "When this project's packer found each peak at or below MiniMalloc's best known "
        "(its minimise mode needed the seconds shown, per its authors) and the issue's target; "
        "every packing is checked by `validate` and by a separate pairwise check.",
        "",
        "| instance | lower bound | MiniMalloc best (s) | target | reached MiniMalloc's best at "
        "| reached the target at | final peak | at (s) |"
        + (" MiniMalloc minimising, same limit |" if binary else ""),
        "|---|---|---|---|---|---|---|---|" + ("---|" if binary else ""),
    ]
    for name, (best, target) in LONG_RUNS.items():
        items = instance(folder, name)
        outcome, offsets = run_after(items, limit)

        final_at = min(s for s, p in outcome.reached if p == outcome.peak) if outcome.reached else 0
        row = (
            f"| {name} | {outcome.lower_bound} | {best} ({ref[name]['seconds']}) | {target} "
            f"| {_when(outcome, best)} | {_when(outcome, target)} | **{outcome.peak}** "
            f"| {final_at:.1f} |"
        )
        if binary:
            theirs = run_minimalloc(binary, folder / f"{name}.1048576.csv", limit, True)
            row += f" {theirs.peak if theirs else 'none'} |"
        lines.append(row)
        print(f"  {name} at {limit:g} s: {outcome.peak} (at {final_at:.1f} s)", flush=True)
        if solutions is not None:
            write_solution(solutions / f"{name}.{outcome.peak}.csv", folder, name, offsets)
    lines.append("")
    return lines


def _when(outcome: Outcome, goal: int) -> str:
    hits = [seconds for seconds, peak in outcome.reached if peak <= goal]
    return f"{hits[0]:.1f} s" if hits else "not reached"


def write_solution(path: Path, folder: Path, name: str, offsets: Sequence[int]) -> None:
    """The instance's rows with an offset column (MiniMalloc's output format)."""
    header, rows, _ = read_instance(folder / f"{name}.1048576.csv")
    stream = io.StringIO(newline="")
    writer = csv.DictWriter(stream, [*header, "offset"], lineterminator="\n")
    writer.writeheader()
    for row, offset in zip(rows, offsets, strict=True):
        writer.writerow({**row, "offset": offset})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(stream.getvalue())
