"""The driver's own overhead (issue 15 §2): `fuse-gpu-allocs,flatten-aliases` ÷ parse+print
under xdsl-opt's convention (verify the input and after every pass) and under
`gpu-alloc-opt`'s (verify the input and the final output; between passes only with
`--verify-each`; the parsed module kept from the cyclic collector, `opt.frozen_heap`), on
`bench/gen_kernels.py` chains of 1k/4k/16k allocations.

    python bench/driver_bench.py [--sizes 1000,4000,16000] [--output bench/driver_results.md]

Both conventions run in this one process on freshly parsed copies of the same kernel. The
times are the process's CPU time (`time.process_time`): on a shared machine other jobs
stretch wall time, not the CPU time this process spends. Issue 19's targets, printed at the
end: under gpu-alloc-opt's convention, fuse+flatten takes at most 1.0x parse+print at 4k and
16k allocations, and at most 4.5x the time of the size a quarter as large.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gpu_alloc.tools.opt import GpuAllocOptMain, frozen_heap
from gpu_alloc.tools.verification import first_invalid_op
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.xdsl_opt_main import xDSLOptMain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_kernels import chain_kernel  # noqa: E402

SPEC = "fuse-gpu-allocs,flatten-aliases"
T = TypeVar("T")


RATIO_TARGET = 1.0
"""fuse+flatten ÷ parse+print at 4k allocations and above."""
GROWTH_TARGET = 4.5
"""fuse+flatten time at 4n ÷ at n."""


def timed(function: Callable[[], T]) -> tuple[T, float]:
    gc.collect()  # what an earlier measurement left is not this one's to collect
    start = time.process_time()
    value = function()
    return value, time.process_time() - start


def measure(count: int) -> dict[str, float]:
    """Seconds to parse, print, and run the passes with each verification convention."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"chain{count}.mlir"
        text = chain_kernel(count)
        path.write_text(text)
        stock = xDSLOptMain(args=[str(path), "-p", SPEC])
        ours = GpuAllocOptMain([str(path), "-p", SPEC])
        module, parse = timed(lambda: Parser(stock.ctx, text, str(path)).parse_module())
        assert isinstance(module, ModuleOp)
        _, printing = timed(lambda: stock.output_resulting_program(module))
        _, before = timed(lambda: stock.apply_passes(module))  # verifies input + each pass

        module = Parser(ours.ctx, text, str(path)).parse_module()

        def ours_passes() -> None:
            assert first_invalid_op(module) is None  # the input, as gpu-alloc-opt does
            with frozen_heap():  # as gpu-alloc-opt runs the passes
                ours.apply_passes(module)  # verifies the final output only

        _, after = timed(ours_passes)
    return {"parse": parse, "print": printing, "before": before, "after": after}


def table(sizes: list[int], output: Path | None = None) -> list[str]:
    lines = [
        "# Driver overhead: verification convention (issue 15 §2), fuse+flatten in linear time (issue 19 §7)",
        "",
        f"`python bench/driver_bench.py --sizes {','.join(map(str, sizes))}`; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f} at the start; CPU seconds of this process. "
        "The passes' time includes "
        "verification: xdsl-opt verifies the input and the module after each pass "
        "(`module.verify()`); gpu-alloc-opt verifies the input and the final output "
        "(ops, SSA dominance, memref sizes).",
        "",
        "| allocations | parse (s) | print (s) | passes, xdsl-opt (s) | ÷ parse+print | "
        "passes, gpu-alloc-opt (s) | ÷ parse+print | growth |",
        "|---|---|---|---|---|---|---|---|",
    ]
    measured: dict[int, dict[str, float]] = {}
    for count in sizes:
        m = measured[count] = measure(count)
        base = m["parse"] + m["print"]
        smaller = measured.get(count // 4)
        growth = f"{m['after'] / smaller['after']:.2f}x" if smaller else "-"
        lines.append(
            f"| {count} | {m['parse']:.2f} | {m['print']:.2f} | {m['before']:.2f} | "
            f"{m['before'] / base:.2f} | {m['after']:.2f} | {m['after'] / base:.2f} | {growth} |"
        )
        print(lines[-1], flush=True)
        if output is not None:  # row by row: a long run keeps what it measured
            output.write_text("\n".join([*lines, ""]))
    lines += ["", *verdicts(measured)]
    return [*lines, ""]


def verdicts(measured: dict[int, dict[str, float]]) -> list[str]:
    """Issue 19's targets, each with its figure from this run."""
    found: list[str] = []
    for count, m in measured.items():
        ratio = m["after"] / (m["parse"] + m["print"])
        if count >= 4000:
            met = "met" if ratio <= RATIO_TARGET else "NOT met"
            found.append(
                f"- {count}: fuse+flatten ÷ parse+print = {ratio:.2f} (target <= 1.0: {met})"
            )
        if (smaller := measured.get(count // 4)) is not None:
            growth = m["after"] / smaller["after"]
            met = "met" if growth <= GROWTH_TARGET else "NOT met"
            found.append(
                f"- {count // 4} -> {count}: fuse+flatten grows {growth:.2f}x "
                f"(target <= {GROWTH_TARGET}x: {met})"
            )
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000,16000")
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "driver_results.md")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    lines = table(sizes, args.output)
    args.output.write_text("\n".join(lines))
    print("\n".join(line for line in lines if line.startswith("- ")))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    main()
