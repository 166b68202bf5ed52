"""The coverage contract (`gpu_alloc.lowering.coverage`), enumerated: one kernel per row,
element type and backend, assembled by `ptxas -arch=sm_90` as a `.entry`."""

from __future__ import annotations

import pytest
from gpu_alloc.lowering.coverage import BACKENDS, COVERAGE, Row, backends_of, row_of
from gpu_alloc.lowering.ptx import emit_ptx_modules
from gpu_alloc.lowering.ptxas import assemble
from gpu_alloc.lowering.to_llvm import OP_LOWERINGS
from ptx_kernels import module_for, module_name, parse_kernel

CASES = [
    pytest.param(row, backend, id=f"{row.op}-{backend}")
    for row in COVERAGE
    for backend in row.backends
]


@pytest.mark.parametrize(("row", "backend"), CASES)
def test_row_assembles_on_the_backend(row: Row, backend: str):
    module = parse_kernel(module_for(row))
    ptx = emit_ptx_modules(module, backend=backend)
    assert sorted(ptx) == sorted(module_name(t) for t in row.types)
    for element in row.types:
        resources = assemble(ptx[module_name(element)], "sm_90")
        assert "k" in resources, f"{row.op} on {element}: no .entry k in the PTX"


def test_every_row_names_known_backends_and_types():
    for row in COVERAGE:
        assert set(row.backends) <= set(BACKENDS), row.op
        assert row.types, row.op
    assert len({row.op for row in COVERAGE}) == len(COVERAGE)


def test_every_embedded_row_has_a_lowering():
    """A row promising the embedded backend names an op `to_llvm` lowers (or one
    `lower-gpu-allocs` or the function/module structure removes first)."""
    structural = {"func.func", "scf.for", "scf.if", "scf.while", "scf.index_switch"}
    structural |= {"scf.yield", "scf.condition"}
    for row in COVERAGE:
        if "llvmlite" not in row.backends or row.op.startswith("gpu_alloc."):
            continue
        assert row.op in OP_LOWERINGS or row.op in structural, row.op


def test_op_outside_the_contract_is_for_mlir_only():
    assert row_of("gpu.all_reduce") is None
    assert backends_of("gpu.module") == BACKENDS
    assert backends_of("memref.alloc") == ()
