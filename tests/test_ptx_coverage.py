"""The coverage contract (`gpu_alloc.lowering.coverage`), enumerated: one kernel per row,
element type and backend, assembled by `ptxas -arch=sm_90` as a `.entry`."""

from __future__ import annotations

import pytest
from gpu_alloc.lowering.coverage import (
    BACKENDS,
    COVERAGE,
    Row,
    backends_of,
    markdown_table,
    row_of,
)
from gpu_alloc.lowering.pre_lowering import PRE_LOWERED_OPS
from gpu_alloc.lowering.ptx import emit_ptx_modules
from gpu_alloc.lowering.ptxas import assemble
from gpu_alloc.lowering.to_llvm import OP_LOWERINGS
from gpu_alloc.sim.arith import ARITH_OPS
from gpu_alloc.sim.interpreter import _FUNCTION_EXITS, BlockInterpreter
from gpu_alloc.sim.state import LaunchState
from lowering_support import ROOT
from ptx_kernels import kernel_for, module_for, module_name, parse_kernel
from xdsl.dialects import gpu

DYNAMIC_SHARED_ROWS = {"gpu.dynamic_shared_memory"}
"""Rows whose kernel uses dynamic shared memory: MLIR 22 declares its base as a
zero-length `.shared .b8`, which ptxas counts as one static byte."""


@pytest.mark.parametrize("row", COVERAGE, ids=[row.op for row in COVERAGE])
def test_row_assembles_on_its_backends_with_the_same_shared_bytes(row: Row):
    """Per element type and backend: PTX with an `.entry k` that ptxas -arch=sm_90
    accepts; both backends' kernels use the same static shared bytes."""
    module = parse_kernel(module_for(row))
    shared: dict[str, dict[str, int]] = {}
    for backend in row.backends:
        ptx = emit_ptx_modules(module, backend=backend)
        assert sorted(ptx) == sorted(module_name(t) for t in row.types)
        shared[backend] = {}
        for element in row.types:
            resources = assemble(ptx[module_name(element)], "sm_90")
            assert "k" in resources, f"{row.op} on {element} ({backend}): no .entry k"
            shared[backend][element] = resources["k"].shared_bytes
    if set(shared) == set(BACKENDS):
        extra = 1 if row.op in DYNAMIC_SHARED_ROWS else 0
        for element, embedded in shared["llvmlite"].items():
            assert shared["mlir"][element] == embedded + extra, (row.op, element)


def test_every_row_names_known_backends_and_types():
    for row in COVERAGE:
        assert set(row.backends) <= set(BACKENDS), row.op
        assert row.types, row.op
    assert len({row.op for row in COVERAGE}) == len(COVERAGE)


def test_every_embedded_row_has_a_lowering():
    """A row promising the embedded backend names an op `to_llvm` lowers (or one
    `lower-gpu-allocs` or the function/module structure removes first)."""
    structural = {"func.func", "scf.for", "scf.if", "scf.while", "scf.index_switch"}
    structural |= {"scf.yield", "scf.condition"} | PRE_LOWERED_OPS
    for row in COVERAGE:
        if "llvmlite" not in row.backends or row.op.startswith("gpu_alloc."):
            continue
        assert row.op in OP_LOWERINGS or row.op in structural, row.op


def test_op_outside_the_contract_is_for_mlir_only():
    assert row_of("scf.execute_region") is None
    assert row_of("gpu.subgroup_mma_compute") is None
    assert backends_of("gpu.module") == BACKENDS
    assert backends_of("memref.alloc") == ()


SIMULATOR_TERMINATORS = {"cf.br", "cf.cond_br", "cf.switch", "scf.yield", "scf.condition"}
"""Terminators `BlockInterpreter` follows itself rather than through its handler table."""


def simulator_ops() -> set[str]:
    """Every op name the simulator executes: its arith table, its handlers, its
    terminators."""
    row = row_of("arith.addi")
    assert row is not None
    module = parse_kernel(kernel_for(row, "i32"))
    (kernel,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    interpreter = BlockInterpreter(LaunchState((1, 1, 1), (1, 1, 1)), kernel)
    handlers = set(interpreter._handlers)  # pyright: ignore[reportPrivateUsage]
    return set(ARITH_OPS) | handlers | set(_FUNCTION_EXITS) | SIMULATOR_TERMINATORS


def test_every_op_the_simulator_executes_is_in_the_contract():
    ops = simulator_ops()
    assert {"arith.addi", "memref.load", "gpu.barrier", "scf.while"} <= ops
    missing = sorted(op for op in ops if row_of(op) is None)
    assert not missing, f"simulator ops without a coverage row: {missing}"


def test_readme_shows_the_contract():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("<!-- coverage-table")
    start = readme.index("\n", start) + 1
    end = readme.index("<!-- /coverage-table -->")
    assert readme[start:end] == markdown_table()
