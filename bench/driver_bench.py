"""The driver's own overhead (issue 15 §2): `fuse-gpu-allocs,flatten-aliases` ÷ parse+print
under xdsl-opt's convention (verify the input and after every pass) and under
`gpu-alloc-opt`'s (verify the input and the final output; between passes only with
`--verify-each`), on `bench/gen_kernels.py` chains of 1k/4k/16k allocations.

    python bench/driver_bench.py [--sizes 1000,4000,16000] [--output bench/driver_results.md]

Both conventions run in this one process on freshly parsed copies of the same kernel; the
times are `time.perf_counter` wall times, so they vary with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from gpu_alloc.tools.opt import GpuAllocOptMain
from gpu_alloc.tools.verification import first_invalid_op
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.xdsl_opt_main import xDSLOptMain

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_kernels import chain_kernel  # noqa: E402

SPEC = "fuse-gpu-allocs,flatten-aliases"
T = TypeVar("T")


def timed(function: Callable[[], T]) -> tuple[T, float]:
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


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
            ours.apply_passes(module)  # verifies the final output only

        _, after = timed(ours_passes)
    return {"parse": parse, "print": printing, "before": before, "after": after}


def table(sizes: list[int], output: Path | None = None) -> list[str]:
    lines = [
        "# Driver overhead: verification convention (issue 15 §2)",
        "",
        f"`python bench/driver_bench.py --sizes {','.join(map(str, sizes))}`; "
        f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.1f} at the end. The passes' time includes "
        "verification: xdsl-opt verifies the input and the module after each pass "
        "(`module.verify()`); gpu-alloc-opt verifies the input and the final output "
        "(ops, SSA dominance, memref sizes).",
        "",
        "| allocations | parse (s) | print (s) | passes, xdsl-opt (s) | ÷ parse+print | "
        "passes, gpu-alloc-opt (s) | ÷ parse+print |",
        "|---|---|---|---|---|---|---|",
    ]
    for count in sizes:
        m = measure(count)
        base = m["parse"] + m["print"]
        lines.append(
            f"| {count} | {m['parse']:.2f} | {m['print']:.2f} | {m['before']:.2f} | "
            f"{m['before'] / base:.2f} | {m['after']:.2f} | {m['after'] / base:.2f} |"
        )
        print(lines[-1], flush=True)
        if output is not None:  # row by row: a long run keeps what it measured
            output.write_text("\n".join([*lines, ""]))
    return [*lines, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,4000,16000")
    parser.add_argument("--output", type=Path, default=Path(__file__).parent / "driver_results.md")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    args.output.write_text("\n".join(table(sizes, args.output)))
    print(f"wrote {args.output}")


if __name__ == "__main__":
    main()
