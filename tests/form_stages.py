"""The per-form differential: a kernel as MLIR writes it computes the same at every stage.

Each `Case` is a kernel written in MLIR's forms (workgroup/private `memref.alloc` and
`alloca` in either spelling, attributions, workgroup globals, dynamic shared memory,
calls). `outcomes` runs it through the `STAGES` (the original; after `import-gpu-allocs`;
after `fuse-gpu-allocs`, alone, followed by `remove-dead-allocs`, and with
`insert-barriers=always`; after `flatten-aliases`; after `lower-gpu-allocs`; and the
whole pipeline for `chip=sm_90`) and simulates every stage on the same seeded inputs:
the digest of each output, the exit code `gpu-alloc-sim` would give (0, 3 for a race,
or the error's) and the race count must not change. A `gpu.launch` body is simulated
as `mlir-opt-22 --gpu-kernel-outlining` outlines it (stages print in generic form,
which MLIR reads with `gpu_alloc` ops unregistered).

`python tests/form_stages.py` prints the table (kernels x stages) for the record.
"""

from __future__ import annotations

import hashlib
import io
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import corpus
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.launch import SimulationResult, simulate
from gpu_alloc.universe import GPU_ALLOC_UNIVERSE
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

ROOT = Path(__file__).resolve().parent.parent
MLIR_KERNELS = Path(__file__).resolve().parent / "mlir_kernels"


def fuse(case_options: str, **extra: str) -> str:
    """`fuse-gpu-allocs` with the case's options (`k=v ...`) and `extra` ones."""
    options = dict(o.split("=", 1) for o in case_options.split())
    options.update({k.replace("_", "-"): v for k, v in extra.items()})
    return "fuse-gpu-allocs{" + " ".join(f"{k}={v}" for k, v in options.items()) + "}"


@dataclass(frozen=True)
class Stage:
    name: str
    parent: str | None
    passes: Callable[[str], str]
    """The passes applied to the parent stage's module, given the case's fuse options."""


STAGES = (
    Stage("original", None, lambda _: ""),
    Stage("import", "original", lambda _: "import-gpu-allocs"),
    Stage("fuse", "import", fuse),
    Stage("fuse+remove-dead", "fuse", lambda _: "remove-dead-allocs"),
    Stage("fuse{always}", "import", lambda o: fuse(o, insert_barriers="always")),
    Stage("flatten", "fuse", lambda _: "flatten-aliases"),
    Stage("lower", "flatten", lambda _: "lower-gpu-allocs"),
    Stage(
        "lower{sm_90}",
        "import",
        lambda o: fuse(o, chip="sm_90") + ",flatten-aliases,lower-gpu-allocs",
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What `gpu-alloc-sim` says about one stage of a kernel."""

    exit_code: int
    digests: tuple[tuple[str, str], ...]
    races: int

    def cell(self) -> str:
        """The first 8 hex digits of the sha256 of the output digests (`exit N` when the
        simulator stops), and `race` when it reports one."""
        if self.exit_code not in (0, RACE):
            return f"exit {self.exit_code}"
        joined = "".join(d for _, d in self.digests)
        digest = hashlib.sha256(joined.encode()).hexdigest()[:8]
        return f"{digest} race" if self.races else digest

    def agrees_with(self, original: Outcome) -> bool:
        """Same outputs and exit code, and no race the original did not have (a stage
        may remove one: remove-dead-allocs drops a racing store nobody reads)."""
        if self.digests != original.digests:
            return False
        if original.exit_code == RACE:
            return self.exit_code in (0, RACE) and self.races <= original.races
        return self.exit_code == original.exit_code and self.races == 0


RACE = 3
"""`gpu-alloc-sim`'s exit code for a data race."""


@dataclass(frozen=True)
class Case:
    label: str
    text: str
    run: Callable[[ModuleOp], SimulationResult]
    fuse_options: str = ""
    outline: bool = False
    """The kernel is a `gpu.launch` body: outline every stage before simulating it."""


def _options(text: str) -> str:
    found = re.search(r"^// fuse-options: (.*)$", text, re.MULTILINE)
    return found[1].strip() if found else ""


def _launch(text: str) -> dict[str, str]:
    header = re.search(r"^// sim-launch: (.*)$", text, re.MULTILINE)
    assert header, "an MLIR-form test kernel needs a '// sim-launch: --grid X --block X' line"
    return dict(re.findall(r"--(\w+) (\S+)", header[1]))


def _sizes(text: str) -> tuple[int, ...]:
    return tuple(int(v) for v in text.split(","))


def file_case(path: Path, label: str, seed: int = 0) -> Case:
    """A kernel file with a `// sim-launch:` header (and maybe `// fuse-options:`)."""
    text = path.read_text()
    launch = _launch(text)
    grid, block = _sizes(launch["grid"]), _sizes(launch["block"])
    seed = int(launch.get("seed", seed))

    def run(module: ModuleOp) -> SimulationResult:
        return simulate(module, grid=grid, block=block, seed=seed)

    return Case(label, text, run, _options(text))


def transpose_case() -> Case:
    """The project's MLIR-form example (grid 2x2, block 32x32, seed 1: the issue's run)."""
    path = ROOT / "examples" / "mlir_transpose.mlir"

    def run(module: ModuleOp) -> SimulationResult:
        return simulate(module, grid=(2, 2), block=(32, 32), seed=1)

    return Case("examples/mlir_transpose.mlir", path.read_text(), run)


def corpus_cases() -> Iterator[Case]:
    """Every kernel of `tests/external/` that goes through the pipeline and that the
    simulator runs (`test_external_corpus.SIMULATED`), launched as `corpus` does."""
    from test_external_corpus import EXPECTED, SIMULATED

    for file, kernels in sorted(SIMULATED.items()):
        chunks = corpus.SPLIT.split((corpus.CORPUS / file).read_text())
        assert len(chunks) == len(EXPECTED[file]), file
        for kernel in kernels:
            chunk = _chunk_of(chunks, kernel)
            launches = "gpu.launch " in chunk or "gpu.launch\n" in chunk

            def run(module: ModuleOp, kernel: str = kernel) -> SimulationResult:
                return corpus.simulate_kernel(module, kernel)

            label = f"external/{file} {kernel}"
            yield Case(label, chunk, run, outline=launches)


def _chunk_of(chunks: list[str], kernel: str) -> str:
    """The one chunk that defines `kernel` (`@module::@func`, named as `corpus` names it:
    a launch body by the kernel `mlir-opt-22 --gpu-kernel-outlining` makes of it)."""
    if len(chunks) == 1:
        return chunks[0]
    from gpu_alloc.transforms.block_level_code import gpu_kernels

    (chunk,) = [
        c
        for c in chunks
        if corpus.mlir_reads_chunk(c)
        and any(corpus.kernel_key(k) == kernel for k in gpu_kernels(corpus.outline(c)))
    ]
    return chunk


def all_cases() -> list[Case]:
    cases = [transpose_case()]
    cases += [file_case(p, f"mlir_kernels/{p.name}") for p in sorted(MLIR_KERNELS.glob("*.mlir"))]
    cases += corpus_cases()
    return cases


# ---- running ---------------------------------------------------------------------------


def printed(module: ModuleOp) -> str:
    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue() + "\n"


def apply(module: ModuleOp, passes: str) -> ModuleOp:
    """`passes` applied to a copy of `module`; a pass error fails the check."""
    result = module.clone()
    if passes:
        PassPipeline.parse_spec(GPU_ALLOC_UNIVERSE.all_passes, passes).apply(
            corpus.context(), result
        )
        result.verify()
    return result


def outcome(case: Case, module: ModuleOp) -> Outcome:
    if case.outline:
        module = corpus.outline(printed(module))
    try:
        result = case.run(module)
    except SimulationError as error:
        return Outcome(error.exit_code, (), 0)
    digests = tuple(sorted(result.digests().items()))
    return Outcome(RACE if result.races else 0, digests, result.race_count)


def stage_modules(case: Case) -> dict[str, ModuleOp]:
    """Every stage's module (the module after the stage's passes)."""
    modules: dict[str, ModuleOp] = {}
    for stage in STAGES:
        if stage.parent is None:
            modules[stage.name] = corpus.parse_or_bridge(case.text)[0]
            continue
        passes = stage.passes(case.fuse_options)
        try:
            modules[stage.name] = apply(modules[stage.parent], passes)
        except GpuAllocPassError as error:
            raise AssertionError(f"{case.label}: stage '{stage.name}': {error.message}") from error
    return modules


def outcomes(case: Case) -> dict[str, Outcome]:
    return {name: outcome(case, module) for name, module in stage_modules(case).items()}


def table(cases: list[Case]) -> str:
    """The markdown table: one row per kernel, one column per stage, the digest of the
    outputs (the first 8 hex digits of the sha256 of all output digests) in each cell."""
    names = [s.name for s in STAGES]
    lines = [
        "| kernel | " + " | ".join(names) + " | all equal |",
        "|---|" + "---|" * (len(names) + 1),
    ]
    for case in cases:
        results = outcomes(case)
        cells = [results[n].cell() for n in names]
        same = all(r.agrees_with(results["original"]) for r in results.values())
        lines.append(f"| {case.label} | " + " | ".join(cells) + f" | {'yes' if same else 'NO'} |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # as tests/conftest.py does for the suite
    print(table(all_cases()))
