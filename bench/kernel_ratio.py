"""Time `pack` on kernel-sized inputs (<= 64 buffers, what `fuse-gpu-allocs` sees) at a git
revision and in the working tree, interleaved in one process, and check both give the same
peaks and that numba was never loaded.

    python bench/kernel_ratio.py REVISION

The packer of REVISION is read with `git show` into a temporary package; nothing in the
working tree changes. Each input is packed once per round by each packer, in alternating
order; the ratio is of the sums over inputs of each input's fastest time (a busy machine
only ever adds time, so the minimum is the least noisy estimate); the plain totals follow.
"""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "packing"
ROUNDS = 7


def old_packer(revision: str, folder: Path) -> ModuleType:
    """The packing package of `revision`, importable as `old_packing`."""
    names = subprocess.run(
        ["git", "ls-tree", "--name-only", revision, f"{PACKAGE}/"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    target = folder / "old_packing"
    target.mkdir()
    for name in names:
        text = subprocess.run(
            ["git", "show", f"{revision}:{name}"], cwd=REPO, capture_output=True, text=True
        ).stdout
        text = text.replace("gpu_alloc.packing", "old_packing")
        (target / Path(name).name).write_text(text)
    sys.path.insert(0, str(folder))
    return importlib.import_module("old_packing")


def inputs(packer: ModuleType) -> list[list]:
    """bench/run.py's stencil chains (8-64 tiles, with and without 16-byte alignment) and 40
    random kernels of 2-64 buffers."""
    sys.path.insert(0, str(REPO / "bench"))
    from gen_kernels import chain_items  # noqa: PLC0415

    cases = []
    for count in (8, 16, 32, 64):
        for align in (1, 16):
            cases.append(
                [packer.PackItem(i.start, i.end, i.size, align) for i in chain_items(count)]
            )
    rng = random.Random(7)
    for _ in range(40):
        items = []
        for _ in range(rng.randint(2, 64)):
            start = rng.randint(0, 20)
            size = 16 * rng.randint(1, 64)
            items.append(
                packer.PackItem(start, start + rng.randint(1, 6), size, rng.choice([1, 4, 16]))
            )
        cases.append(items)
    return cases


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        sys.exit("usage: python bench/kernel_ratio.py REVISION")
    from gpu_alloc import packing  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        packers = {"before": old_packer(argv[0], Path(folder)), "after": packing}
        cases = {name: inputs(packer) for name, packer in packers.items()}
        fastest = {name: [float("inf")] * len(cases[name]) for name in packers}
        seconds = dict.fromkeys(packers, 0.0)
        peaks: dict[str, list[int]] = {name: [] for name in packers}
        for round_ in range(ROUNDS):
            for index in range(len(cases["after"])):
                order = list(packers) if (round_ + index) % 2 else list(reversed(packers))
                for name in order:
                    started = time.perf_counter()
                    peak = packers[name].pack(cases[name][index]).peak
                    elapsed = time.perf_counter() - started
                    seconds[name] += elapsed
                    fastest[name][index] = min(fastest[name][index], elapsed)
                    if round_ == 0:
                        peaks[name].append(peak)
    if peaks["before"] != peaks["after"]:
        sys.exit("kernel_ratio: the peaks differ")
    best = {name: sum(times) for name, times in fastest.items()}
    print(
        f"{len(peaks['after'])} kernel-sized inputs, fastest of {ROUNDS}: before ({argv[0]}) "
        f"{best['before']:.4f} s, after {best['after']:.4f} s, ratio "
        f"{best['after'] / best['before']:.3f} (totals {seconds['before']:.3f} s and "
        f"{seconds['after']:.3f} s); numba loaded: {'numba' in sys.modules}"
    )


if __name__ == "__main__":
    main(sys.argv[1:])
