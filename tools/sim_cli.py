"""`gpu-alloc-sim`: run a kernel over a grid on seeded random arguments.

    gpu-alloc-sim KERNEL.mlir [--kernel NAME] --grid X[,Y,Z] --block X[,Y,Z]
                  [--seed N] [--scalars V,...] [--out DIR] [--max-steps N]
                  [--profile] [--profile-json OUT.json] [--dynamic-extent N] [--target T] [--chip C]

Prints `NAME SHAPExTYPE sha256=HEX` for every memref argument after the run (so two
runs compare by their output), then any races on stderr. Exit codes: 0 ok, 1 bad
input, a bad command line or unsupported IR, 3 data race, 4 a barrier not reached by
every thread of a block (in the kernel or in a function it calls: a deadlock on a
GPU), 5 an out-of-bounds access or view. An error about one op is printed at its
`file:line:col`. `--profile` prints the per-Func profile (`gpu_alloc.sim.profile`)
after the digests, with each barrier stage named by its barriers' source lines and,
where `pad-shared-allocs` would remove bank conflicts, what it would cost
(`gpu_alloc.tools.padding_advice`); `--profile-json` writes both. `--target`/`--chip` name the
device (`gpu_alloc.targets`): its shared memory per block, its warp or wavefront lanes
(`gpu.lane_id`, `gpu.shuffle`: 64 on CDNA), its bank model for `--profile` (default: the
most any chip gives, 32 lanes, NVIDIA's banks).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpu_alloc import xdsl_fixes
from gpu_alloc.errors import UserInputError, one_line_usage_errors, run_tool
from gpu_alloc.sim.errors import SimulationError, command_line_spelling
from gpu_alloc.targets import TARGETS, resolve
from gpu_alloc.tools.diagnostics import SourceMap, format_op_error
from gpu_alloc.tools.sim_loading import load_located_module
from gpu_alloc.version import add_version_option
from xdsl.dialects.builtin import ModuleOp

if TYPE_CHECKING:
    from gpu_alloc.sim.launch import SimulationResult
    from gpu_alloc.tools.padding_advice import Advice

RACE_EXIT_CODE = 3


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected X[,Y,Z] positive integers, got '{text}'"
        ) from None
    if not 1 <= len(sizes) <= 3 or any(s < 1 for s in sizes):
        raise argparse.ArgumentTypeError(f"expected X[,Y,Z] positive integers, got '{text}'")
    return sizes


def _scalars(text: str) -> list[float]:
    try:
        return [float(part) for part in text.split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated numbers, got '{text}'"
        ) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-sim",
        description="Simulate a gpu.module kernel over a grid and check it for data races.",
    )
    parser.add_argument("input", help="MLIR file containing a gpu.module (-: standard input)")
    parser.add_argument(
        "--kernel",
        help="kernel (gpu.func) to run, MODULE::KERNEL when two gpu.modules have one of "
        "its name; default: the only one",
    )
    parser.add_argument("--grid", type=_sizes, required=True, help="blocks: X[,Y,Z]")
    parser.add_argument("--block", type=_sizes, required=True, help="threads per block: X[,Y,Z]")
    parser.add_argument(
        "--seed", type=_non_negative, default=0, help="seed of the random arguments"
    )
    parser.add_argument("--scalars", type=_scalars, default=[], help="scalar arguments: V,...")
    parser.add_argument("--out", help="directory to save each memref argument as NAME.npy")
    parser.add_argument(
        "--profile", action="store_true", help="print loads, stores and bank conflicts per Func"
    )
    parser.add_argument("--profile-json", metavar="OUT.json", help="write the profile as JSON")
    parser.add_argument(
        "--max-steps",
        type=_non_negative,
        default=None,
        metavar="N",
        help="stop with an error after N thread-steps (one op in one thread; default: no limit)",
    )
    parser.add_argument(
        "--dynamic-extent",
        type=_positive,
        default=None,
        metavar="N",
        help="size of every dynamic dimension of a memref argument (default: refuse them)",
    )
    parser.add_argument(
        "--chip",
        metavar="CHIP",
        help=f"the chip to simulate ({', '.join(t.default_chip for t in TARGETS.values())}, "
        "...): shared memory limited to what one of its blocks may use, its warp or "
        "wavefront lanes, its bank model in --profile (default: the most any chip gives, "
        "32 lanes, NVIDIA's banks)",
    )
    parser.add_argument(
        "--target",
        metavar="TARGET",
        help=f"the target to simulate ({', '.join(TARGETS)}): its default chip unless --chip",
    )
    add_version_option(parser, "gpu-alloc-sim")
    return one_line_usage_errors(parser)


def _positive(text: str) -> int:
    value = _non_negative(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def _non_negative(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        seed = -1
    if seed < 0:
        raise argparse.ArgumentTypeError(f"expected a non-negative integer, got '{text}'")
    return seed


def report(result: SimulationResult, out: str | None) -> int:
    if out is not None:
        save_arguments(result, Path(out))
    for argument in result.arguments:
        print(argument.line())
    for race in result.races:
        print(f"gpu-alloc-sim: {race.describe()}", file=sys.stderr)
    if result.races:
        print(
            f"gpu-alloc-sim: {result.race_count} racing accesses, {len(result.races)} distinct",
            file=sys.stderr,
        )
        return RACE_EXIT_CODE
    return 0


def _padding_advice(
    module: ModuleOp,
    result: SimulationResult,
    run: Callable[[ModuleOp], SimulationResult],
    chip: str,
) -> Advice:
    """Where `pad-shared-allocs` would remove the profile's bank conflicts (a tool's job:
    the simulator itself never runs a pass)."""
    from gpu_alloc.tools.padding_advice import padding_advice

    return padding_advice(module, result, run, chip)


def write_profile_json(
    result: SimulationResult, json_path: str | None, advice: Advice | None = None
) -> None:
    """Writes the profile's JSON (before any other output, so a bad path leaves none), with
    the padding advice as `padding` when there is some."""
    if result.profile is None or json_path is None:
        return
    data = result.profile.as_json()
    if advice is not None and (advice.padded or advice.untouched):
        data["padding"] = advice.as_json()
    text = json.dumps(data, indent=2) + "\n"
    try:
        Path(json_path).write_text(text)
    except OSError as error:
        raise UserInputError(
            f"{json_path}: error: cannot write the profile: {error.strerror or error}"
        ) from None


def save_arguments(result: SimulationResult, directory: Path) -> None:
    """Saves each memref argument as NAME.npy (before anything is printed)."""
    import numpy as np

    try:
        directory.mkdir(parents=True, exist_ok=True)
        for argument in result.arguments:
            np.save(directory / f"{argument.name}.npy", argument.array)
    except OSError as error:
        raise UserInputError(
            f"{directory}: error: cannot write: {error.strerror or error}"
        ) from None


def main(args: Sequence[str] | None = None) -> None:
    def run() -> None:
        with command_line_spelling():  # errors name the flags, not simulate's parameters
            _run(args)

    xdsl_fixes.apply()  # this process is ours: read what MLIR prints (docs/xdsl-upstream.md)
    run_tool("gpu-alloc-sim", run)


MAX_THREADS_PER_BLOCK = 1024
"""CUDA's limit on the threads of one block."""


def _run(args: Sequence[str] | None) -> None:
    parser = _parser()
    options = parser.parse_args(args)
    threads = math.prod(options.block)
    if threads > MAX_THREADS_PER_BLOCK:
        parser.error(
            f"argument --block: at most {MAX_THREADS_PER_BLOCK} threads per block, got {threads}"
        )
    from gpu_alloc.sim.launch import simulate  # numpy and the interpreter: after the arguments

    source_map: SourceMap | None = None
    try:
        module, source_map = load_located_module(options.input)
        profiled = options.profile or options.profile_json is not None

        def run(module: ModuleOp) -> SimulationResult:
            return simulate(
                module,
                grid=options.grid,
                block=options.block,
                kernel=options.kernel,
                seed=options.seed,
                scalars=options.scalars,
                max_thread_steps=options.max_steps,
                profile=profiled,
                dynamic_extent=options.dynamic_extent,
                chip=options.chip,
                target=options.target,
            )

        result = run(module)
        chip = options.chip or (resolve(options.target).chip.name if options.target else "")
        advice = _padding_advice(module, result, run, chip) if profiled else None
        write_profile_json(result, options.profile_json, advice)
        code = report(result, options.out)
        if options.profile and result.profile is not None:
            print(result.profile.as_text())
            if advice is not None and advice.as_text():
                print(advice.as_text())
        sys.exit(code)
    except MemoryError:
        print("gpu-alloc-sim: error: out of memory (an allocation too large)", file=sys.stderr)
        sys.exit(1)
    except SimulationError as error:
        print(_error_line(error, source_map), file=sys.stderr)
        sys.exit(error.exit_code)


def _error_line(error: SimulationError, source_map: SourceMap | None) -> str:
    """The error at its op's `file:line:col` when it has one, else `gpu-alloc-sim: error:`."""
    message = str(error)
    if "error:" in message:  # already located (a parse or verify error)
        return message
    if error.op is not None and source_map is not None:
        return format_op_error(source_map, error.op, message)
    return f"gpu-alloc-sim: error: {message}"


if __name__ == "__main__":
    main()
