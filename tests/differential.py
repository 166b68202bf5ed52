"""The differential check: a pass pipeline must not change what a kernel computes.

`check_pipeline` simulates a kernel before and after a pipeline of passes on the same
seeded arguments and asserts that every memref argument has the same digest, that no
race appears that was not there, and that neither run hits a barrier divergence or
an out-of-bounds access. A pass other than fuse-gpu-allocs run on its own may refuse a kernel with a diagnostic (reported as a
`PassDeclinedWarning`); in any pipeline that starts with fuse-gpu-allocs that is a failure.
"""

from __future__ import annotations

import functools
import hashlib
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.passes import PASSES, PIPELINE
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.launch import SimulationResult, simulate
from gpu_alloc.tools.sim_loading import make_context, parse_module
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.universe import Universe

GPU_ALLOC_PASSES = PIPELINE
"""The passes whose composition, in this order, is the project's pipeline."""


class PassDeclinedWarning(UserWarning):
    """A pass run on its own refused a kernel with a diagnostic (see `may_decline`)."""


@dataclass(frozen=True)
class Launch:
    grid: tuple[int, ...]
    block: tuple[int, ...]
    scalars: tuple[float, ...] = ()
    kernel: str | None = None


@dataclass(frozen=True)
class PipelineRun:
    """The module after a pipeline, and the passes applied to it."""

    module: ModuleOp
    applied: tuple[str, ...]
    declined: str | None = None
    """The pass that refused the kernel (only where declines are allowed)."""


def pass_class(name: str) -> type[ModulePass]:
    passes = Universe.get_multiverse().all_passes
    if name not in passes:
        raise KeyError(f"no pass named '{name}' is registered")
    return passes[name]()


@functools.lru_cache(maxsize=64)
def parsed(text: str) -> ModuleOp:
    """The verified module of `text`; parse once, clone for each use (the parser is slow)."""
    return parse_module(text)


def apply_pipeline(text: str, pipeline: Sequence[str], allow_decline: bool = False) -> PipelineRun:
    """Parses `text` and applies each pass with its default options.

    A pass that reports a user error (`GpuAllocPassError`) fails the check, unless
    `allow_decline`: then the error is reported as a `PassDeclinedWarning` and the
    pipeline stops there (`declined` is set, and there is nothing to compare).
    """
    ctx: Context = make_context()
    module = parsed(text).clone()
    applied: list[str] = []
    declined: str | None = None
    for name in pipeline:
        try:
            pass_class(name)().apply(ctx, module)
        except GpuAllocPassError as error:
            if not allow_decline:
                raise
            declined = name
            warnings.warn(
                f"pass '{name}' declined a kernel on its own: {error.message}",
                PassDeclinedWarning,
                stacklevel=2,
            )
            break
        module.verify()
        applied.append(name)
    return PipelineRun(module, tuple(applied), declined)


def may_decline(pipeline: Sequence[str]) -> bool:
    """A later pass run alone, without the passes before it in the project's pipeline,
    may refuse a kernel with a diagnostic (lower-gpu-allocs wants dynamic shared
    memory fused first); fuse-gpu-allocs and every pipeline that starts with it
    must accept every valid kernel."""
    return len(pipeline) == 1 and pipeline[0] in GPU_ALLOC_PASSES[1:]


def run(module: ModuleOp, launch: Launch, seed: int = 0) -> SimulationResult:
    return simulate(
        module,
        grid=launch.grid,
        block=launch.block,
        kernel=launch.kernel,
        seed=seed,
        scalars=launch.scalars,
    )


def check_pipeline(
    text: str, launch: Launch, pipeline: Sequence[str], seed: int = 0
) -> PipelineRun:
    """Asserts that `pipeline` keeps the kernel's results and adds no race."""
    after = apply_pipeline(text, pipeline, allow_decline=may_decline(pipeline))
    if after.applied and after.declined is None:  # else: nothing was done to compare
        label = " -> ".join(after.applied)
        try:
            transformed = run(after.module, launch, seed)
            _assert_same_results(_baseline(text, launch, seed), transformed, label)
        except (AssertionError, SimulationError) as error:
            saved = _save_failure(text, str(after.module), after.applied)
            raise AssertionError(f"{label}: {error} (IR before and after: {saved})") from error
    return after


def _save_failure(before: str, after: str, pipeline: Sequence[str]) -> Path:
    """Keeps a failing case's IR, so that it can be rerun with gpu-alloc-sim."""
    key = hashlib.sha256((before + "|".join(pipeline)).encode()).hexdigest()[:12]
    directory = Path(tempfile.gettempdir()) / "gpu_alloc_differential" / key
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "before.mlir").write_text(before)
    (directory / "after.mlir").write_text(after)
    return directory


@functools.lru_cache(maxsize=64)
def _baseline(text: str, launch: Launch, seed: int) -> SimulationResult:
    return run(parsed(text), launch, seed)


def assert_same_behaviour(
    before: ModuleOp, after: ModuleOp, launch: Launch, label: str, seed: int = 0
) -> None:
    """Same digests for every memref argument, and no race that `before` did not have."""
    _assert_same_results(run(before, launch, seed), run(after, launch, seed), label)


def _assert_same_results(
    baseline: SimulationResult, transformed: SimulationResult, label: str
) -> None:
    assert transformed.digests() == baseline.digests(), (
        f"{label} changed the kernel's results: {_differences(baseline, transformed)}"
    )
    if not baseline.races:
        assert not transformed.races, (
            f"{label} introduced a race: {transformed.races[0].describe()}"
        )


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
            changed.append(
                f"'{argument.name}' differs in {count} of {argument.array.size} elements"
            )
    return "; ".join(changed) or "argument lists differ"


OTHER_PASSES = tuple(p.name for p in PASSES if not p.in_pipeline)
"""Passes outside the pipeline above, checked on their own."""


def pipelines() -> list[tuple[str, ...]]:
    """Each pass alone, then every prefix of the full pipeline longer than one pass."""
    singles = [(name,) for name in (*GPU_ALLOC_PASSES, *OTHER_PASSES)]
    prefixes = [GPU_ALLOC_PASSES[:n] for n in range(2, len(GPU_ALLOC_PASSES) + 1)]
    return [*singles, *prefixes]
