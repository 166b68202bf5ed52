"""The differential check: a pass pipeline must not change what a kernel computes.

`check_pipeline` simulates a kernel before and after a pipeline of passes on the same
seeded arguments and asserts that every memref argument has the same digest, that no
race appears that was not there, and that neither run hits a barrier divergence or
an out-of-bounds access. A pass that is still a stub ("not implemented yet") is left
out of the pipeline and reported with a `PassNotImplementedWarning` (shown in pytest's
warnings summary), so that every pass that exists is tested.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.universe import Universe

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.sim.launch import SimulationResult, simulate
from gpu_alloc.sim.loading import make_context, parse_module

GPU_ALLOC_PASSES = (
    "fuse-gpu-allocs",
    "flatten-aliases",
    "remove-dead-allocs",
    "partition-loops",
    "lower-gpu-allocs",
)
"""The passes whose composition, in this order, is the project's pipeline."""


class PassNotImplementedWarning(UserWarning):
    """A pass in a differential test is still a stub, so the test ran without it."""


@dataclass(frozen=True)
class Launch:
    grid: tuple[int, ...]
    block: tuple[int, ...]
    scalars: tuple[float, ...] = ()
    kernel: str | None = None


@dataclass(frozen=True)
class PipelineRun:
    """The module after a pipeline, and the passes that were left out as stubs."""

    module: ModuleOp
    applied: tuple[str, ...]
    not_implemented: tuple[str, ...]


def pass_class(name: str) -> type[ModulePass]:
    passes = Universe.get_multiverse().all_passes
    if name not in passes:
        raise KeyError(f"no pass named '{name}' is registered")
    return passes[name]()


def apply_pipeline(text: str, pipeline: Sequence[str]) -> PipelineRun:
    """Parses `text` and applies each pass with its default options."""
    ctx: Context = make_context()
    module = parse_module(text)
    applied: list[str] = []
    skipped: list[str] = []
    for name in pipeline:
        before = module.clone()
        try:
            pass_class(name)().apply(ctx, module)
        except GpuAllocPassError as error:
            if "not implemented yet" not in error.message:
                raise
            skipped.append(name)
            module = before
            continue
        module.verify()
        applied.append(name)
    for name in skipped:
        warnings.warn(
            f"pass '{name}' is not implemented yet: the differential test ran "
            f"{' -> '.join(applied) or 'no pass'} without it",
            PassNotImplementedWarning,
            stacklevel=2,
        )
    return PipelineRun(module, tuple(applied), tuple(skipped))


def run(module: ModuleOp, launch: Launch, seed: int = 0) -> SimulationResult:
    return simulate(
        module,
        grid=launch.grid,
        block=launch.block,
        kernel=launch.kernel,
        seed=seed,
        scalars=launch.scalars,
    )


def check_pipeline(text: str, launch: Launch, pipeline: Sequence[str], seed: int = 0) -> PipelineRun:
    """Asserts that `pipeline` keeps the kernel's results and adds no race."""
    after = apply_pipeline(text, pipeline)
    label = " -> ".join(after.applied) or "no pass"
    assert_same_behaviour(parse_module(text), after.module, launch, label, seed)
    return after


def assert_same_behaviour(
    before: ModuleOp, after: ModuleOp, launch: Launch, label: str, seed: int = 0
) -> None:
    """Same digests for every memref argument, and no race that `before` did not have."""
    baseline = run(before, launch, seed)
    transformed = run(after, launch, seed)
    assert transformed.digests() == baseline.digests(), (
        f"{label} changed the kernel's results: {_differences(baseline, transformed)}"
    )
    if not baseline.races:
        assert not transformed.races, f"{label} introduced a race: {transformed.races[0].describe()}"


def _differences(before: SimulationResult, after: SimulationResult) -> str:
    changed: list[str] = []
    after_arrays = {a.name: a.array for a in after.arguments}
    for argument in before.arguments:
        other = after_arrays.get(argument.name)
        if other is None:
            changed.append(f"'{argument.name}' is gone")
        elif other.shape != argument.array.shape or other.dtype != argument.array.dtype:
            changed.append(f"'{argument.name}' is now {other.dtype}{list(other.shape)}")
        elif (other != argument.array).any():
            count = int((other != argument.array).sum())
            changed.append(f"'{argument.name}' differs in {count} of {argument.array.size} elements")
    return "; ".join(changed) or "argument lists differ"


def pipelines() -> list[tuple[str, ...]]:
    """Each pass alone, then every prefix of the full pipeline longer than one pass."""
    singles = [(name,) for name in GPU_ALLOC_PASSES]
    prefixes = [GPU_ALLOC_PASSES[:n] for n in range(2, len(GPU_ALLOC_PASSES) + 1)]
    return [*singles, *prefixes]
