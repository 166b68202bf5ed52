"""`gpu-alloc-run`: run a kernel on a real runtime, with `gpu-alloc-sim`'s command line.

    gpu-alloc-run KERNEL.mlir [--runtime pocl|oclgrind|sim|cuda|hip] [--kernel NAME]
                  --grid X[,Y,Z] --block X[,Y,Z] [--seed N] [--scalars V,...]
                  [--dynamic-extent N] [--out DIR]

The kernel is emitted as OpenCL C (`-t opencl`, after `lower-gpu-allocs` when the
module still has `gpu_alloc` ops) and run on PoCL (`pocl`, the default) or Oclgrind
(`oclgrind`, its data-race detector on); `sim` is `gpu-alloc-sim`. The memref arguments
get the simulator's seeded values, so the output compares line for line with
`gpu-alloc-sim`'s: `NAME SHAPExTYPE sha256=HEX` per memref argument (`--out` saves each
as NAME.npy). Oclgrind's reports become the simulator's exit codes: 3 a data race,
4 a barrier not reached by the whole work-group, 5 an out-of-bounds access, each printed
with its OpenCL C line and the MLIR op (`file:line:col`) that line was written for.
`cuda` runs the PTX (`--backend llvmlite|mlir`) through the CUDA driver
(`tools.cuda_run`, cuda-bindings); `hip` is not launched yet. Without a GPU (or the
bindings): one line saying so, exit 2.
Exit 1: bad input, or a kernel the OpenCL C backend does not lower (one located line).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from gpu_alloc.errors import GpuAllocPassError, UserInputError, one_line_usage_errors, run_tool
from gpu_alloc.lowering.emit import EMIT_ERRORS
from gpu_alloc.lowering.tool_runs import ToolRejected
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.tools.diagnostics import SourceMap, format_op_error
from gpu_alloc.tools.sim_cli import (
    MAX_THREADS_PER_BLOCK,
    _non_negative,
    _positive,
    _scalars,
    _sizes,
    report,
)
from gpu_alloc.tools.sim_loading import load_located_module
from gpu_alloc.version import add_version_option

if TYPE_CHECKING:
    from gpu_alloc.tools.opencl_run import RunResult

RUNTIMES = ("pocl", "oclgrind", "sim", "cuda", "hip")
NO_GPU_EXIT_CODE = 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-run",
        description="Run a gpu.module kernel on PoCL, Oclgrind, the simulator or a GPU.",
    )
    parser.add_argument("input", help="MLIR file containing a gpu.module (-: standard input)")
    parser.add_argument(
        "--runtime", choices=RUNTIMES, default="pocl", help="where to run it (default: pocl)"
    )
    parser.add_argument("--kernel", help="kernel (gpu.func) to run; default: the only one")
    parser.add_argument("--grid", type=_sizes, required=True, help="blocks: X[,Y,Z]")
    parser.add_argument("--block", type=_sizes, required=True, help="threads per block: X[,Y,Z]")
    parser.add_argument(
        "--seed", type=_non_negative, default=0, help="seed of the random arguments"
    )
    parser.add_argument("--scalars", type=_scalars, default=[], help="scalar arguments: V,...")
    parser.add_argument("--out", help="directory to save each memref argument as NAME.npy")
    parser.add_argument(
        "--dynamic-extent",
        type=_positive,
        default=None,
        metavar="N",
        help="size of every dynamic dimension of a memref argument (default: refuse them)",
    )
    parser.add_argument(
        "--backend",
        choices=("llvmlite", "mlir"),
        default="llvmlite",
        help="the PTX backend of --runtime cuda (default: llvmlite)",
    )
    add_version_option(parser, "gpu-alloc-run")
    return one_line_usage_errors(parser)


def main(args: Sequence[str] | None = None) -> None:
    run_tool("gpu-alloc-run", lambda: _run(args))


def _run(args: Sequence[str] | None) -> None:
    parser = _parser()
    options = parser.parse_args(args)
    threads = int(np.prod(options.block))
    if threads > MAX_THREADS_PER_BLOCK:
        parser.error(
            f"argument --block: at most {MAX_THREADS_PER_BLOCK} threads per block, got {threads}"
        )
    if options.runtime == "hip":
        sys.exit(_gpu(options.runtime))
    source_map: SourceMap | None = None
    try:
        module, source_map = load_located_module(options.input)
        if options.runtime == "cuda":
            sys.exit(_cuda(module, options))
        if options.runtime == "sim":
            from gpu_alloc.sim.launch import simulate

            result = simulate(
                module,
                grid=options.grid,
                block=options.block,
                kernel=options.kernel,
                seed=options.seed,
                scalars=options.scalars,
                dynamic_extent=options.dynamic_extent,
            )
            sys.exit(report(result, options.out))
        from gpu_alloc.tools.opencl_run import run_opencl

        run = run_opencl(
            module,
            runtime=options.runtime,
            grid=options.grid,
            block=options.block,
            kernel=options.kernel,
            seed=options.seed,
            scalars=options.scalars,
            dynamic_extent=options.dynamic_extent,
        )
    except SimulationError as error:
        message = str(error)
        if "error:" not in message:
            message = (
                format_op_error(source_map, error.op, message)
                if error.op is not None and source_map is not None
                else f"gpu-alloc-run: error: {message}"
            )
        print(message.splitlines()[0], file=sys.stderr)
        sys.exit(error.exit_code)
    except GpuAllocPassError as error:
        assert source_map is not None
        print(format_op_error(source_map, error.op, error.message).splitlines()[0], file=sys.stderr)
        sys.exit(1)
    except (*EMIT_ERRORS, ToolRejected) as error:
        print(f"gpu-alloc-run: error: {error}", file=sys.stderr)
        sys.exit(1)
    sys.exit(_report_opencl(run, options, source_map))


def _report_opencl(
    run: RunResult, options: argparse.Namespace, source_map: SourceMap | None
) -> int:
    """Print what an OpenCL run gives (the digests, then Oclgrind's distinct reports),
    save the arguments under `--out`; the exit code."""
    from gpu_alloc.tools.opencl_run import EXIT_CODES

    fatal = any(found.kind != "race" for found in run.reports)
    if not fatal:  # as the simulator: digests after a race, none after a divergence or OOB
        if options.out is not None:
            _save(run.arguments, Path(options.out))
        for argument in run.arguments:
            print(argument.line())
    code = 0
    distinct: dict[tuple[str, int | None], int] = {}
    for found in run.reports:
        key = (found.kind, found.line)
        distinct[key] = distinct.get(key, 0) + 1
        if distinct[key] > 1:
            continue
        where = f"OpenCL C line {found.line}" if found.line is not None else "no line"
        located = ""
        if found.op is not None and source_map is not None:
            located = ", " + format_op_error(source_map, found.op, found.kind).split(": error:")[0]
        message = found.message.rstrip(":")
        print(f"gpu-alloc-run: oclgrind: {message} ({where}{located})", file=sys.stderr)
        code = code or EXIT_CODES[found.kind]
    if run.reports:
        print(
            f"gpu-alloc-run: oclgrind: {len(run.reports)} reports, {len(distinct)} distinct",
            file=sys.stderr,
        )
    return code


def _save(arguments: list, directory: Path) -> None:
    try:
        directory.mkdir(parents=True, exist_ok=True)
        for argument in arguments:
            np.save(directory / f"{argument.name}.npy", argument.array)
    except OSError as error:
        raise UserInputError(
            f"{directory}: error: cannot write: {error.strerror or error}"
        ) from None


def _cuda(module, options: argparse.Namespace) -> int:
    """The PTX on the GPU (`tools.cuda_run`); no GPU or no bindings: one line, exit 2."""
    from gpu_alloc.tools.cuda_run import Unavailable, run_cuda

    try:
        arguments = run_cuda(
            module,
            grid=options.grid,
            block=options.block,
            kernel=options.kernel,
            seed=options.seed,
            dynamic_extent=options.dynamic_extent,
            backend=options.backend,
        )
    except Unavailable as error:
        print(f"gpu-alloc-run: error: --runtime cuda: {error}", file=sys.stderr)
        return NO_GPU_EXIT_CODE
    if options.out is not None:
        _save(arguments, Path(options.out))
    for argument in arguments:
        print(argument.line())
    return 0


def _gpu(runtime: str) -> int:
    """`--runtime hip`: one line, whether or not ROCm's runtime is here (no launcher yet)."""
    import ctypes

    try:
        ctypes.CDLL("libamdhip64.so")
    except OSError:
        print(
            f"gpu-alloc-run: error: --runtime {runtime} needs an AMD GPU (ROCm's "
            "libamdhip64): none here",
            file=sys.stderr,
        )
        return NO_GPU_EXIT_CODE
    print(
        f"gpu-alloc-run: error: --runtime {runtime}: the HIP launcher is not written yet",
        file=sys.stderr,
    )
    return NO_GPU_EXIT_CODE


if __name__ == "__main__":
    main()
