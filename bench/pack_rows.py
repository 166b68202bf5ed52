"""Packer benchmark sections for `bench/run.py`: determinism under load and the greedy phase's
scaling on large random inputs (the comparisons are in `compare`)."""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

HOG = "while True: pass"
"""A busy loop: one subprocess per CPU makes the packer share every core."""


def run_pack(args: Sequence[str]) -> tuple[str, float]:
    """Run `gpu-alloc-pack` with `args`; its last line and wall time."""
    command = [sys.executable, "-m", "gpu_alloc.tools.pack", *args]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode:
        raise RuntimeError(f"gpu-alloc-pack {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip().splitlines()[-1], elapsed


def packed_bytes(instance: Path, limits: Sequence[str], hogs: int) -> tuple[bytes, str, float]:
    """`--output` of one run of `gpu-alloc-pack instance *limits` with `hogs` busy loops."""
    workers = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(hogs)]
    try:
        with tempfile.TemporaryDirectory() as folder:
            output = Path(folder) / "out.csv"
            last, elapsed = run_pack([str(instance), *limits, "--output", str(output)])
            return output.read_bytes(), last, elapsed
    finally:
        for worker in workers:
            worker.kill()
            worker.wait()


def determinism(instance: Path, hogs: int, limits: Sequence[Sequence[str]]) -> list[str]:
    lines = [
        "### Determinism (same `--output` idle and under a CPU hog)",
        "",
        f"`gpu-alloc-pack {instance.name}` run twice, once idle and once beside {hogs} busy-loop "
        "subprocesses; the two `--output` files compared byte for byte.",
        "",
        "| limits | idle peak | idle time (s) | loaded peak | loaded time (s) | identical |",
        "|---|---|---|---|---|---|",
    ]
    for limit in limits:
        idle, idle_last, idle_time = packed_bytes(instance, limit, 0)
        loaded, loaded_last, loaded_time = packed_bytes(instance, limit, hogs)
        name = " ".join(limit) or "default (work budget)"
        peaks = [last.split()[0].removeprefix("peak=") for last in (idle_last, loaded_last)]
        lines.append(
            f"| `{name}` | {peaks[0]} | {idle_time:.2f} | {peaks[1]} | {loaded_time:.2f} "
            f"| {'yes' if idle == loaded else '**no**'} |"
        )
        print(f"  determinism {name}: identical {idle == loaded}", flush=True)
    lines += [
        "",
        "Without `--time-limit` the search stops on work units only, so the layout cannot depend "
        "on load; an explicit wall-clock cap trades that for time.",
        "",
    ]
    return lines


def random_instance(path: Path, count: int, seed: int) -> None:
    """`count` random buffers: lifetimes within [0, count), up to count / 10 long, 1-4096 B."""
    generator = random.Random(seed)
    rows = ["id,lower,upper,size"]
    for index in range(count):
        start = generator.randrange(count)
        length = generator.randint(1, max(1, count // 10))
        rows.append(f"{index},{start},{start + length},{generator.randint(1, 4096)}")
    path.write_text("\n".join(rows) + "\n")


def greedy_scaling(sizes: Sequence[tuple[int, float]]) -> list[str]:
    lines = [
        "### Large random inputs (greedy phase, honouring the limit)",
        "",
        "`gpu-alloc-pack` on random buffers (bench/pack_rows.py `random_instance`, seed 1) as a "
        "separate process; wall time includes start-up and reading the CSV.",
        "",
        "| buffers | limit | peak / lower bound | wall (s) |",
        "|---|---|---|---|",
    ]
    for count, seconds in sizes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"random{count}.csv"
            random_instance(path, count, seed=1)
            last, elapsed = run_pack([str(path), "--time-limit", f"{seconds:g}"])
        ratio = dict(field.split("=", 1) for field in last.split() if "=" in field)["ratio"]
        lines.append(f"| {count} | `--time-limit {seconds:g}` | {ratio} | {elapsed:.1f} |")
        print(f"  random {count}: ratio {ratio} in {elapsed:.1f} s", flush=True)
    lines.append("")
    return lines
