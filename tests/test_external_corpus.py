"""Real GPU kernels from public projects (tests/external/SOURCES.md), kept as found.

Every chunk of every corpus file has a recorded outcome: it goes through
`import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs` (and the output is
read back by this project's parser and by `mlir-opt-22`), or it is refused with the
recorded reason. A new refusal, or a refusal that starts going through, fails the test,
so the table below (and SOURCES.md) stays the truth about what is supported.
"""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.sim.errors import SimulationError

OK = "ok"
OVER_LIMIT = "needs 65536 bytes of shared memory, over the limit of 49152"
"""IREE's trivial_non_reuse: four 16 KiB buffers, each read after the next one is written,
so no barrier lets any two share bytes (IREE keeps all four too): over the 48 KiB limit."""
UNREGISTERED_CUSTOM = "Operation builtin.unregistered does not have a custom format."
"""An op neither xDSL 0.75 nor this project defines, in custom form: `async.execute`
(the generic form would be read as an unregistered op)."""

EXPECTED: dict[str, list[str]] = {
    "iree/gpu_reuse_shared_memory_allocs.mlir": [OK] * 7,
    "iree/pack_shared_memory_alloc.mlir": [OK],
    "iree/reduce_bank_conflicts.mlir": [OK] * 3,
    "iree/reuse_shared_memory_allocs.mlir": [
        OK,
        OVER_LIMIT,
        OK,
        OK,
    ],  # trivial_reuse and shared_reuse_scf_for fit with one barrier
    "llvm/async.mlir": [UNREGISTERED_CUSTOM],
    "llvm/concurrent-kernels.mlir": [OK],
    "llvm/dynamic-shared-memory.mlir": [OK],
    "llvm/gpu-to-cubin.mlir": [OK],
    "llvm/memory-attrbution.mlir": [OK] * 5,
    "llvm/printf.mlir": [OK],
    "llvm/promotion.mlir": [OK] * 3,
    "llvm/shuffle.mlir": [OK],
    "llvm/two-modules.mlir": [OK],
    "llvm/xevm-pipeline-workgroup-attributions.mlir": [OK],
}


def test_every_corpus_file_has_a_recorded_outcome():
    assert sorted(EXPECTED) == corpus.corpus_files()


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_corpus_file_goes_through_or_is_refused_as_recorded(file: str):
    results = corpus.run_file(file)
    outcomes = [OK if r.output is not None else r.error or "" for r in results]
    assert len(outcomes) == len(EXPECTED[file])
    for outcome, expected in zip(outcomes, EXPECTED[file], strict=True):
        assert outcome == OK if expected == OK else expected in outcome
    outputs = [r.output for r in results if r.output is not None]
    for output in outputs:
        assert '"gpu_alloc.' not in output and "= gpu_alloc." not in output  # no op is left
        corpus.parse(output)  # gpu-alloc-opt reads back what it printed
    if outputs:
        mlir = corpus.mlir_opt_reads(outputs)
        assert mlir.returncode == 0, mlir.stderr


def test_attributions_of_the_corpus_become_named_allocations():
    """memory-attrbution.mlir's @multiple: two workgroup and two private attributions."""
    text = (corpus.CORPUS / "llvm/memory-attrbution.mlir").read_text()
    chunk = corpus.SPLIT.split(text)[3]
    result = corpus.run_chunk("llvm/memory-attrbution.mlir", 3, chunk)
    assert result.imported is not None
    names = sorted(
        op.properties["name"].data  # pyright: ignore[reportAttributeAccessIssue]
        for op in result.imported.walk()
        if op.name == "gpu_alloc.alloc"
    )
    assert names == ["arg1", "arg2", "arg3", "arg4"]
    assert "workgroup_attributions" not in (result.output or "")


SIMULATED: dict[str, list[str]] = {
    "llvm/concurrent-kernels.mlir": ["@kernels::@kernel"],
    "llvm/gpu-to-cubin.mlir": ["@other_func_kernel::@other_func_kernel"],
    "llvm/printf.mlir": ["@kernels::@hello"],
    "llvm/shuffle.mlir": ["@main_kernel::@main_kernel"],
    "llvm/two-modules.mlir": ["@main_kernel::@main_kernel", "@main_kernel_0::@main_kernel"],
    "llvm/xevm-pipeline-workgroup-attributions.mlir": ["@kernels::@kernel"],
}
"""Kernels of chunks that go through that the simulator runs before and after (the
`gpu.launch` bodies of two-modules.mlir and gpu-to-cubin.mlir outlined by mlir-opt-22)."""

NOT_SIMULATED: dict[str, str] = {
    "llvm/dynamic-shared-memory.mlir @modules::@dynamic_shared_memory_kernel": (
        "op 'test.use.shared.memory' is not supported by the simulator"
    ),
    "llvm/promotion.mlir @foo::@memref3d": "op 'use' is not supported by the simulator",
    "llvm/promotion.mlir @foo::@memref5d": "op 'use' is not supported by the simulator",
    "llvm/promotion.mlir @foo::@insert": "op 'use' is not supported by the simulator",
}
"""Kernels the simulator cannot run: MLIR's tests use unregistered ops as opaque uses."""


def test_corpus_kernels_simulate_the_same_before_and_after():
    """Every kernel of a chunk that goes through is simulated on the same seeded inputs
    after import-gpu-allocs and after the whole pipeline: same outputs, same races."""
    simulated: dict[str, list[str]] = {}
    refused: dict[str, str] = {}
    for file in sorted(EXPECTED):
        chunks = corpus.SPLIT.split((corpus.CORPUS / file).read_text())
        for result in corpus.run_file(file):
            if result.output is None:
                continue
            for pair in corpus.simulation_pairs(chunks[result.index], result):
                try:
                    before = corpus.simulate_kernel(pair.before, pair.kernel)
                except SimulationError as error:
                    refused[f"{file} {pair.kernel}"] = str(error)
                    continue
                after = corpus.simulate_kernel(pair.after, pair.kernel)
                assert before.digests() == after.digests(), (file, pair.kernel)
                assert before.race_count == after.race_count, (file, pair.kernel)
                simulated.setdefault(file, []).append(pair.kernel)
    assert simulated == SIMULATED
    assert refused == NOT_SIMULATED


def test_corpus_simulation_sees_the_outputs():
    """The launch bodies of two-modules.mlir write each thread's id: a simulated output
    that ignored the kernel would not hold them."""
    file = "llvm/two-modules.mlir"
    (result,) = corpus.run_file(file)
    pair = corpus.simulation_pairs((corpus.CORPUS / file).read_text(), result)[0]
    after = corpus.simulate_kernel(pair.after, pair.kernel)
    (output,) = after.arguments
    block_x = corpus.SIM_BLOCK[0]
    assert list(output.array[:block_x]) == list(range(block_x))
