"""The coverage contract (`gpu_alloc.lowering.coverage`), enumerated: one kernel per row,
element type, target and backend, checked by the target's own tools (`ptxas -arch=sm_90`;
`llvm-mc` and `ld.lld` for gfx942; `spirv-as` and `spirv-val`) as a kernel `k`; every
refused column and type is refused with one located line naming the op and why."""

from __future__ import annotations

import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage import (
    BACKENDS,
    COLUMNS,
    COVERAGE,
    Row,
    columns_of,
    markdown_table,
    refusals_table,
    row_of,
)
from gpu_alloc.lowering.emit import device_for, emit_modules
from gpu_alloc.lowering.llvm.arith import LIBRARY_MATH
from gpu_alloc.lowering.llvm.to_llvm import OP_LOWERINGS
from gpu_alloc.lowering.tool_checks import shared_bytes_by_tool
from gpu_alloc.lowering.toolchain import ToolchainError, find_math_library
from gpu_alloc.sim.arith import ARITH_OPS
from gpu_alloc.sim.interpreter import _FUNCTION_EXITS, BlockInterpreter
from gpu_alloc.sim.state import LaunchState
from gpu_alloc.targets import TARGETS
from gpu_alloc.transforms.pre_lowering import PRE_LOWERED_OPS
from lowering_support import ROOT
from ptx_kernels import kernel_for, module_for, module_name, parse_kernel
from xdsl.dialects import gpu

ISA_VERSIONS = {name: target.default_isa_version for name, target in TARGETS.items()}
LIBRARY_OPS = {f"math.{name}" for name in (*LIBRARY_MATH, "fpowi")}


def _library_missing(row: Row, target: str) -> str | None:
    """Why the row's kernel cannot link the target's math library here, or None."""
    if row.op not in LIBRARY_OPS:
        return None
    description = TARGETS[target]
    try:
        find_math_library(description.math, description.chip(description.default_chip))
    except ToolchainError as error:
        return str(error)
    return None


def _chip(row: Row, target: str) -> str:
    """The target's default chip, or the first that has the row's op if only some do."""
    return TARGETS[target].chip_only_ops.get(row.op, ("",))[0]


def _assert_refused(
    row: Row, target: str, backend: str, element: str, why: str, chip: str = ""
) -> None:
    module = parse_kernel(kernel_for(row, element))
    with pytest.raises(GpuAllocPassError) as error:
        emit_modules(module, target, chip or _chip(row, target), backend, ISA_VERSIONS[target])
    message = error.value.message
    assert "\n" not in message and why in message, (row.op, target, backend, element)
    assert error.value.op is not None  # located


def _tool_bytes(row: Row, target: str, backend: str, types: list[str]) -> dict[str, int]:
    """Per element type, the static shared bytes of kernel `k` as the target's tools
    report them, after they accepted it."""
    module = parse_kernel(module_for(row, tuple(types)))
    chip = _chip(row, target)
    outputs = emit_modules(module, target, chip, backend, ISA_VERSIONS[target])
    assert sorted(outputs) == sorted(module_name(t) for t in types)
    device = device_for(target, chip, backend, ISA_VERSIONS[target])
    shared: dict[str, int] = {}
    for element in types:
        reported = shared_bytes_by_tool(outputs[module_name(element)], device, ISA_VERSIONS[target])
        assert "k" in reported, f"{row.op} on {element} ({target}/{backend}): no kernel k"
        shared[element] = reported["k"]
    return shared


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("row", COVERAGE, ids=[row.op for row in COVERAGE])
def test_row_on_every_backend_of_the_target(row: Row, target: str):
    """Per element type and backend of `target`: a kernel `k` its tools accept, or the
    refusal the contract promises (one located line with the reason); both backends'
    kernels use the same static shared bytes."""
    shared: dict[str, dict[str, int]] = {}
    backends = TARGETS[target].backends
    for backend in backends:
        column = f"{target}/{backend}"
        lowered = []
        for element in row.types:
            why = row.refusal(column, element)
            if why is not None:
                _assert_refused(row, target, backend, element, why)
            else:
                lowered.append(element)
        if lowered and (missing := _library_missing(row, target)) is not None:
            _assert_refused(row, target, backend, lowered[0], missing)
        elif lowered:
            shared[backend] = _tool_bytes(row, target, backend, lowered)
    if set(shared) == set(BACKENDS) == set(backends):
        # Dynamic shared memory too: the mlir PTX backend declares it `.extern .shared`
        # (issue 30; MLIR's demoted `.shared .b8` of one byte was counted before).
        for element, embedded in shared["llvmlite"].items():
            if element in shared["mlir"]:
                assert shared["mlir"][element] == embedded, (row.op, element)


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_op_of_other_chips_is_refused_at_the_op(backend: str):
    """gfx942 (the default) has no transposed LDS reads: one located line naming the chip
    that has them, on either backend (the embedded one refuses the op itself)."""
    row = row_of("amdgpu.transpose_load")
    assert row is not None and TARGETS["amdgcn"].default_chip == "gfx942"
    why = "needs chip gfx950 (the chip is gfx942)" if backend == "mlir" else "embedded"
    _assert_refused(row, "amdgcn", backend, "f16", why, chip="gfx942")


def test_every_row_names_known_columns_and_types():
    for row in COVERAGE:
        for key in row.refused:
            column, _, element = key.partition(":")
            assert column in COLUMNS, (row.op, key)
            assert not element or element in row.types, (row.op, key)
        assert row.types, row.op
    assert len({row.op for row in COVERAGE}) == len(COVERAGE)


def test_every_embedded_row_has_a_lowering():
    """A row promising the embedded backend names an op `to_llvm` lowers (or one
    `lower-gpu-allocs` or the function/module structure removes first)."""
    structural = {"func.func", "scf.for", "scf.if", "scf.while", "scf.index_switch"}
    structural |= {"scf.yield", "scf.condition"} | PRE_LOWERED_OPS
    for row in COVERAGE:
        embedded = [c for c in row.columns if c.endswith("/llvmlite")]
        if not embedded or row.op.startswith("gpu_alloc."):
            continue
        assert row.op in OP_LOWERINGS or row.op in structural, row.op


def test_op_outside_the_contract_is_for_mlir_only():
    assert row_of("scf.execute_region") is None
    assert row_of("gpu.subgroup_mma_compute") is None
    assert columns_of("gpu.module") == COLUMNS
    assert columns_of("memref.alloc") == ()


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


@pytest.mark.parametrize(
    ("marker", "table"), [("coverage-table", markdown_table), ("refusals-table", refusals_table)]
)
def test_docs_show_the_contract(marker, table):
    """docs/coverage.md holds the tables as generated (`python scripts/coverage_doc.py`)."""
    doc = (ROOT / "docs" / "coverage.md").read_text()
    start = doc.index("\n", doc.index(f"<!-- {marker}")) + 1
    end = doc.index(f"<!-- /{marker} -->")
    assert doc[start:end] == table()
