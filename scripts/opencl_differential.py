"""The OpenCL differential at full size (`make differential`): every example, the
simulator's test kernels (tests/sim_kernels) and all 24 Halide-style kernels (tests/halide_style.py), fused, flattened and lowered, on the
simulator, PoCL and Oclgrind against the original's simulation; the planted faults on the
simulator and Oclgrind; then the agreement table of the two oracles (Markdown).

    python scripts/opencl_differential.py [--only NAME ...]

Exit status 0 when every clean case agrees and is race-free and every planted fault is a
race for both oracles, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from halide_style import LAUNCH, halide_kernels  # noqa: E402
from opencl_differential import agreement_table, check_faulty, compare, planted_faults  # noqa: E402
from test_differential import TEST_KERNELS, _launch_of_test_kernel  # noqa: E402
from test_opencl import EXAMPLE_LAUNCHES, EXAMPLES  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=None, help="kernel names to run")
    options = parser.parse_args()
    kernels = [
        (name, (EXAMPLES / name).read_text(), launch) for name, launch in EXAMPLE_LAUNCHES.items()
    ]
    kernels += [
        (f"sim_kernels/{p.name}", p.read_text(), _launch_of_test_kernel(p))
        for p in sorted(TEST_KERNELS.glob("*.mlir"))
    ]
    kernels += [(name, text, LAUNCH) for name, text in halide_kernels()]
    if options.only:
        kernels = [k for k in kernels if k[0] in options.only]
    started = time.monotonic()
    cases, failures = [], []
    for name, text, launch in kernels:
        for case in compare(name, text, launch):
            cases.append(case)
            if not case.same_results or case.race or case.other_error:
                failures.append(case)
    clean = len(cases)
    for fault in planted_faults():
        for case in check_faulty(*fault):
            cases.append(case)
            if not case.race:
                failures.append(case)
    print(
        f"{len(kernels)} kernels x 3 variants x 3 runtimes: {clean} clean cases, "
        f"{len(cases) - clean} planted-fault cases, {time.monotonic() - started:.0f} s"
    )
    print()
    print(agreement_table(cases))
    for case in failures:
        print(f"FAILED: {case}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
