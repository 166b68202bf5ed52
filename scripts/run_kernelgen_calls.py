"""Runs `tests/kernelgen_calls.py` at scale: `python scripts/run_kernelgen_calls.py FIRST COUNT`.

Prints the count of each outcome, per call form, and the first 30 seeds whose outcome is
neither `same` nor `refused` (exit 1 if there is any). Same seeds, same output.
"""

from __future__ import annotations

import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from kernelgen_calls import call_kernel, outcome  # noqa: E402


def main() -> int:
    first, count = int(sys.argv[1]), int(sys.argv[2])
    totals: collections.Counter[str] = collections.Counter()
    per_form: collections.Counter[tuple[str, str]] = collections.Counter()
    bad: list[tuple[int, str, str, str]] = []
    for seed in range(first, first + count):
        kernel = call_kernel(seed)
        result = outcome(kernel)
        totals[result] += 1
        per_form[(kernel.form, result)] += 1
        if result not in ("same", "refused"):
            bad.append((seed, kernel.form, kernel.mode, result))
    print(f"seeds {first}..{first + count - 1}: {dict(sorted(totals.items()))}")
    print(sorted(per_form.items()))
    print(bad[:30])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
