"""The differential on real runtimes: a kernel's original, simulated, against its fused,
flattened and lowered forms run on the simulator, PoCL and Oclgrind; and planted faults
in fused outputs, each caught (or not) by each oracle.

`compare(name, text, launch)` gives one `Case` per (variant, runtime): the digests agree
with the original's simulation or not, and whether the oracle saw a race, a divergent
barrier or an out-of-bounds access. `planted_faults()` makes the three kinds of wrong
fused kernel (two live Funcs at overlapping offsets, a barrier removed, a loop-local Func
hoisted without its back-edge barrier); `agreement_table` counts, over cases, where the
simulator and Oclgrind agree on results and on races.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from differential import Launch, apply_pipeline, parsed, run
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.tools.opencl_run import run_opencl
from handfused import fuse_shared

ROOT = Path(__file__).resolve().parent.parent

VARIANTS: dict[str, tuple[str, ...]] = {
    "fused": ("fuse-gpu-allocs",),
    "flattened": ("fuse-gpu-allocs", "flatten-aliases"),
    "lowered": ("fuse-gpu-allocs", "flatten-aliases", "lower-gpu-allocs"),
}
RUNTIMES = ("sim", "pocl", "oclgrind")


@dataclass(frozen=True)
class Case:
    kernel: str
    variant: str
    runtime: str
    same_results: bool
    race: bool
    other_error: str = ""
    """A divergence, bounds or run error the oracle reported ("" if none)."""


def _run(text: str, launch: Launch, runtime: str) -> tuple[dict[str, str], bool, str]:
    """Digests, whether a race was reported, and any other error, on `runtime`."""
    module = parsed(text).clone()
    try:
        if runtime == "sim":
            result = run(module, launch)
            return result.digests(), bool(result.races), ""
        ran = run_opencl(
            module,
            runtime=runtime,
            grid=launch.grid,
            block=launch.block,
            kernel=launch.kernel,
            scalars=launch.scalars,
        )
    except SimulationError as error:
        return {}, False, f"{type(error).__name__}: {error}"
    kinds = {report.kind for report in ran.reports}
    other = ", ".join(sorted(kinds - {"race"}))
    return ran.digests(), "race" in kinds, other


def baseline(text: str, launch: Launch) -> dict[str, str]:
    digests, race, other = _run(text, launch, "sim")
    assert not race and not other, "the original kernel must be race-free"
    return digests


def compare(name: str, text: str, launch: Launch, runtimes: Sequence[str] = RUNTIMES) -> list[Case]:
    """Every variant of the kernel on every runtime, against the original's simulation."""
    expected = baseline(text, launch)
    cases: list[Case] = []
    for variant, pipeline in VARIANTS.items():
        transformed = str(apply_pipeline(text, pipeline).module)
        for runtime in runtimes:
            digests, race, other = _run(transformed, launch, runtime)
            cases.append(Case(name, variant, runtime, digests == expected, race, other))
    return cases


def check_faulty(name: str, original: str, faulty: str, launch: Launch) -> list[Case]:
    """A planted fault on the simulator and Oclgrind (variant `planted`)."""
    expected = baseline(original, launch)
    cases = []
    for runtime in ("sim", "oclgrind"):
        digests, race, other = _run(faulty, launch, runtime)
        cases.append(Case(name, "planted", runtime, digests == expected, race, other))
    return cases


# ---- planted faults -----------------------------------------------------------------------

STENCIL = (ROOT / "examples" / "stencil_chain.mlir").read_text()
STENCIL_LAUNCH = Launch(grid=(2, 1), block=(16, 16))

LOOP_LOCAL = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<32xi32>, memref<32xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<32xi32>, %out: memref<32xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c31 = arith.constant 31 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %n = arith.subi %c31, %t : index
      %v0 = memref.load %in[%t] : memref<32xi32>
      %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %v0) -> (i32) {
        %x = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<32xi32, 3 : i32>
        memref.store %acc, %x[%t] : memref<32xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %v = memref.load %x[%n] : memref<32xi32, 3 : i32>
        %s = arith.addi %v, %acc : i32
        scf.yield %s : i32
      }
      memref.store %r, %out[%t] : memref<32xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
"""A Func made in a loop: each iteration writes it, waits, reads another thread's element.
fuse-gpu-allocs hoists it and closes the back edge with a barrier (its remark)."""
LOOP_LAUNCH = Launch(grid=(1,), block=(32,))


def _without_barrier(text: str, which: int) -> str:
    """`text` with its `which`-th `gpu.barrier` (negative: from the end) removed."""
    lines = text.splitlines(keepends=True)
    barriers = [i for i, line in enumerate(lines) if '"gpu.barrier"()' in line]
    del lines[barriers[which]]
    return "".join(lines)


def planted_faults() -> list[tuple[str, str, str, Launch]]:
    """(name, original, faulty fused kernel, launch) of each planted fault."""
    flattened = str(apply_pipeline(STENCIL, VARIANTS["flattened"]).module)
    loop_fused = str(apply_pipeline(LOOP_LOCAL, VARIANTS["flattened"]).module)
    assert loop_fused.count('"gpu.barrier"()') == 2, "the pass closes the back edge"
    return [
        (
            "overlapping live Funcs (f1, f2 at 0)",
            STENCIL,
            fuse_shared(STENCIL, {"f1": 0, "f2": 0, "f3": 484}, 808, flatten=True),
            STENCIL_LAUNCH,
        ),
        (
            "barrier removed (stencil, first)",
            STENCIL,
            _without_barrier(flattened, 0),
            STENCIL_LAUNCH,
        ),
        (
            "hoisted loop-local Func without its back-edge barrier",
            LOOP_LOCAL,
            _without_barrier(loop_fused, -1),
            LOOP_LAUNCH,
        ),
    ]


# ---- the table ------------------------------------------------------------------------------


def agreement_table(cases: Sequence[Case]) -> str:
    """Simulator vs Oclgrind on each (kernel, variant) both ran: results and races, counted."""
    by_key: dict[tuple[str, str], dict[str, Case]] = {}
    for case in cases:
        by_key.setdefault((case.kernel, case.variant), {})[case.runtime] = case
    counts = {"results agree": 0, "results differ": 0, "races agree": 0, "races differ": 0}
    disagreements: list[str] = []
    for (kernel, variant), runs in sorted(by_key.items()):
        sim, grind = runs.get("sim"), runs.get("oclgrind")
        if sim is None or grind is None:
            continue
        same = sim.same_results == grind.same_results
        counts["results agree" if same else "results differ"] += 1
        same_race = sim.race == grind.race
        counts["races agree" if same_race else "races differ"] += 1
        if not (same and same_race):
            disagreements.append(
                f"| {kernel} | {variant} | sim: results {'=' if sim.same_results else '≠'}, "
                f"race {sim.race} | oclgrind: results {'=' if grind.same_results else '≠'}, "
                f"race {grind.race} |"
            )
    lines = ["| simulator vs Oclgrind | count |", "|---|---|"]
    lines += [f"| {what} | {count} |" for what, count in counts.items()]
    if disagreements:
        lines += ["", "| kernel | variant | simulator | Oclgrind |", "|---|---|---|---|"]
        lines += disagreements
    return "\n".join(lines) + "\n"
