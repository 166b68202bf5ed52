"""PTX emission: both backends' PTX assembles with ptxas and holds the promised shared memory.

The cross-check needs `ptxas` (and `mlir-opt-22` for the reference backend); `.ci/run`
installs both, so CI runs every test here. Users without them get these tests skipped.
"""

from __future__ import annotations

import re

import pytest
from gpu_alloc.lowering.coverage import BACKENDS
from gpu_alloc.lowering.ptx.ptxas import assemble, parse_verbose_output
from gpu_alloc.lowering.ptx.target import emit_ptx, emit_ptx_modules
from gpu_alloc.lowering.toolchain import have_mlir_opt, have_ptxas
from lowering_support import EXAMPLES, LOWERING_INPUTS, load, lowered

needs_ptxas = pytest.mark.skipif(not have_ptxas(), reason="ptxas is not installed")
needs_mlir = pytest.mark.skipif(not have_mlir_opt(), reason="mlir-opt-22 is not installed")

# Static shared bytes per kernel, checked by hand. Fused: the backing's size. Unfused:
# one 16-byte aligned global per Func, laid out one after the other by ptxas
# (stencil: 484 -> 496, + 400 -> 896, + 324 = 1220; mixed: 48 + 48 + 80 + 34 = 210).
SHARED_BYTES = {
    ("stencil_chain_fused.mlir", "stencil_chain"): 884,
    ("mixed_types_fused.mlir", "mixed_types"): 165,
    ("heap_scratch_fused.mlir", "heap_scratch"): 128,
    ("stencil_chain.mlir", "stencil_chain"): 1220,
    ("mixed_types.mlir", "mixed_types"): 210,
    ("heap_scratch.mlir", "heap_scratch"): 128,
}

KERNEL_FILES = {
    "stencil_chain_fused.mlir": LOWERING_INPUTS,
    "mixed_types_fused.mlir": LOWERING_INPUTS,
    "heap_scratch_fused.mlir": LOWERING_INPUTS,
    "stencil_chain.mlir": EXAMPLES,
    "mixed_types.mlir": EXAMPLES,
    "heap_scratch.mlir": EXAMPLES,
}


@needs_ptxas
@needs_mlir
@pytest.mark.parametrize("file_name", sorted(KERNEL_FILES))
def test_both_backends_assemble_with_the_promised_shared_bytes(file_name):
    module = lowered(load(KERNEL_FILES[file_name] / file_name))
    reports = {backend: assemble(emit_ptx(module, backend=backend)) for backend in BACKENDS}
    for backend, resources in reports.items():
        for kernel, usage in resources.items():
            assert usage.shared_bytes == SHARED_BYTES[(file_name, kernel)], (backend, usage)
    assert reports["llvmlite"].keys() == reports["mlir"].keys() != set()


@needs_ptxas
def test_dynamic_shared_memory_is_external_in_the_embedded_backend():
    ptx = emit_ptx(lowered(load(LOWERING_INPUTS / "dynamic_shared.mlir")))
    assert ".extern .shared .align 16 .b8 __dynamic_shared_memory[];" in ptx
    assert assemble(ptx)["reverse"].shared_bytes == 0


@needs_ptxas
@needs_mlir
def test_dynamic_shared_memory_is_external_in_the_mlir_backend_too():
    """Issue 30: `ptx{backend=mlir}` emitted the block's dynamic shared memory as a one-byte
    static `.shared` variable (`__dynamic_shmem__0`, demoted into the kernel): ptxas counted
    1 byte, and the backing was indexed past a static variable."""
    ptx = emit_ptx(lowered(load(LOWERING_INPUTS / "dynamic_shared.mlir")), backend="mlir")
    assert re.search(r"^\.extern \.shared \.align 16 \.b8 __dynamic_shmem__0\[\];$", ptx, re.M)
    assert not re.search(r"^\s*\.shared .*__dynamic_shmem__", ptx, re.M)
    assert ptx.index(".extern .shared") < ptx.index(".entry")
    assert assemble(ptx)["reverse"].shared_bytes == 0


@needs_ptxas
def test_chip_and_ptx_version_reach_the_ptx():
    module = lowered(load(LOWERING_INPUTS / "stencil_chain_fused.mlir"))
    ptx = emit_ptx(module, chip="sm_80", ptx_version=78)
    assert ".version 7.8\n.target sm_80\n" in ptx
    assert assemble(ptx, chip="sm_80")["stencil_chain"].shared_bytes == 884


@needs_mlir
def test_mlir_backend_marks_the_same_entry_and_signature():
    module = lowered(load(LOWERING_INPUTS / "stencil_chain_fused.mlir"))
    embedded = emit_ptx(module)
    reference = emit_ptx(module, backend="mlir")

    def signature(ptx: str) -> str:
        start = ptx.index(".visible .entry")
        return ptx[start : ptx.index(")", start)]

    # Same kernel ABI (MLIR's expanded memref descriptors: 2 x 7 parameters).
    assert signature(embedded) == signature(reference)
    assert signature(embedded).count(".param .u64") == 14


def test_emit_ptx_lowers_a_module_that_still_has_gpu_alloc_ops():
    modules = emit_ptx_modules(load(EXAMPLES / "stencil_chain.mlir"))
    (ptx,) = modules.values()
    assert ".shared .align 16 .b8 stencil_chain__f1[484];" in ptx
    assert ".visible .entry stencil_chain(" in ptx


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="unknown PTX backend 'nvcc'"):
        emit_ptx(load(EXAMPLES / "stencil_chain.mlir"), backend="nvcc")


def test_ptxas_verbose_output_is_read_per_kernel():
    text = (
        "ptxas info    : 0 bytes gmem\n"
        "ptxas info    : Compiling entry function 'a' for 'sm_90'\n"
        "ptxas info    : Function properties for a\n"
        "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
        "ptxas info    : Used 17 registers, used 1 barriers, 884 bytes smem\n"
        "ptxas info    : Compiling entry function 'b' for 'sm_90'\n"
        "ptxas info    : Used 4 registers, used 1 barriers\n"
    )
    resources = parse_verbose_output(text)
    assert (resources["a"].registers, resources["a"].shared_bytes) == (17, 884)
    assert (resources["b"].registers, resources["b"].shared_bytes) == (4, 0)
    assert resources["a"].usage_line == "Used 17 registers, used 1 barriers, 884 bytes smem"
