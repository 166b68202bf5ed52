"""The corpus (tests/external, see test_external_corpus.py) on every target and backend.

Each chunk that goes through the pipeline and holds kernels (its `gpu.launch` bodies
outlined by `mlir-opt-22 --gpu-kernel-outlining`, as MLIR's own pipeline does) is emitted
for every column (`ptx`, `amdgcn`, `spirv` x `llvmlite`, `mlir`). A column either
compiles it, and the target's own tool (ptxas; llvm-mc and ld.lld; spirv-as and
spirv-val) reports the chunk's fused shared bytes, or refuses it in one line with the
recorded reason; the embedded backend's refusals are located at the user's op (MLIR's
own rejections are its first diagnostic, on its input).
"""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage import COLUMNS, refused
from gpu_alloc.lowering.emit import EMIT_ERRORS, device_for, emit_modules
from gpu_alloc.lowering.tool_checks import shared_bytes_by_tool
from gpu_alloc.targets import TARGETS
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp

EMBEDDED = "*/llvmlite"
UNREALIZED = "LLVM Translation failed for operation: builtin.unrealized_conversion_cast"
XEGPU = {
    **refused("'xegpu.create_nd_tdesc'", EMBEDDED),
    **refused(UNREALIZED, "ptx/mlir", "amdgcn/mlir"),
    **refused("'xegpu.create_nd_tdesc' op Memory space mismatch", "spirv/mlir"),
}
"""IMEX's xegpu kernels: only Intel's XeVM lowers xegpu (MLIR 22 has no NVVM, ROCDL or
OpenCL lowering of it), and the SPIR-V column hands MLIR numbered memory spaces."""
UNREGISTERED_USE = {
    **refused("'use'", EMBEDDED),
    **refused(UNREALIZED, "*/mlir"),
}
"""MLIR's tests use buffers in unregistered ops: nothing compiles them (MLIR, given
--allow-unregistered-dialect as on every target, reads them and cannot translate them)."""

REFUSED: dict[tuple[str, int], dict[str, str]] = {
    ("graph-compiler/allocs-to-slm-2d.mlir", 0): refused("'memref.alloc'", "*/*"),
    ("graph-compiler/gpu-to-gpuocl-inlined.mlir", 0): refused("'llvm.store'", EMBEDDED),
    **{
        ("graph-compiler/linalg-to-xegpu-broadcast-fold.mlir", i): refused(
            "'linalg.broadcast'", EMBEDDED
        )
        for i in range(4)
    },
    ("graph-compiler/linalg-to-xegpu-slm.mlir", 0): refused("'linalg.fill'", EMBEDDED),
    ("imex/Constants.bf16.mlir", 0): refused("'arith.constant' on bf16", "spirv/*"),
    ("imex/GEMM.bf16.mlir", 0): refused("'memref.load' on bf16", "spirv/*"),
    ("imex/ceil_floor_f32.mlir", 0): {
        **XEGPU,
        **refused(UNREALIZED, "ptx/mlir"),
        **refused("'math.ceil'", "amdgcn/mlir"),
    },
    ("imex/gemm_1024x1024xf16.using.updateoffset.mlir", 0): {
        **XEGPU,
        **refused("failed to legalize operation 'scf.for'", "ptx/mlir"),
        **refused("failed to legalize operation 'gpu.func'", "amdgcn/mlir"),
        **refused("failed to legalize operation 'cf.br'", "spirv/mlir"),
    },
    ("imex/gemm_4kx4kx4k_transpose_b.mlir", 0): {
        **XEGPU,
        **refused("'gpu.subgroup_id'", EMBEDDED),
    },
    ("imex/large_stores_8x32xf16_w_2d_vector_shuffle.vc.mlir", 0): XEGPU,
    ("imex/load2d-ugm-f32-transpose.mlir", 0): XEGPU,
    ("imex/load_with_block_array_16_16_2.vc.mlir", 0): XEGPU,
    ("imex/reduction_3D_1D_cross_sg_intra_lane.mlir", 0): {
        **refused("'memref.extract_aligned_pointer_as_index'", EMBEDDED),
        **refused(UNREALIZED, "*/mlir"),
    },
    ("imex/softmax_intra_sg_cross_lane.mlir", 0): {
        **XEGPU,
        **refused("'math.exp'", "amdgcn/mlir"),
    },
    ("imex/unit_tests.mlir", 0): {
        **XEGPU,
        **refused("'vector.shape_cast'", EMBEDDED),
        **refused("'math.exp'", "amdgcn/mlir"),
    },
    ("imex/vector_insert_2.mlir", 0): XEGPU,
    ("llvm/all-reduce-region.mlir", 0): {
        **refused("'gpu.all_reduce'", "*/*"),
        **refused("failed to legalize operation 'gpu.all_reduce'", "ptx/mlir"),
    },
    ("llvm/decompose-memrefs.mlir", 2): {
        **refused("'test.test'", EMBEDDED),
        **refused("missing `LLVMTranslationDialectInterface`", "*/mlir"),
    },
    ("llvm/decompose-memrefs.mlir", 3): {
        **refused("'test.test'", EMBEDDED),
        **refused(UNREALIZED, "*/mlir"),
    },
    ("llvm/dynamic-shared-memory.mlir", 0): {
        **refused("'llvm.mlir.global'", EMBEDDED),
        # the views feed unregistered `test.use.shared.memory` ops: MLIR cannot reconcile
        # their casts on either LLVM target (amdgcn's base space now agrees, issue 30)
        **refused(UNREALIZED, "ptx/mlir", "amdgcn/mlir"),
        **refused("'gpu.dynamic_shared_memory'", "spirv/mlir"),
    },
    ("llvm/printf.mlir", 0): refused("'gpu.printf'", EMBEDDED, "amdgcn/mlir"),
    **{("llvm/promotion.mlir", i): UNREGISTERED_USE for i in range(3)},
    ("llvm/shuffle.mlir", 0): refused("'gpu.shuffle'", EMBEDDED, "spirv/mlir"),
    ("llvm/tmaload-transform.mlir", 0): refused("'linalg.copy'", EMBEDDED),
    ("llvm/transform-mma-sync-matmul-f32.mlir", 0): refused("'linalg.matmul'", EMBEDDED),
    ("llvm/wmma-matmul-f32.mlir", 0): {
        **refused("'gpu.subgroup_mma_load_matrix'", EMBEDDED),
        **refused("failed to legalize operation 'gpu.subgroup_mma_load_matrix'", "amdgcn/mlir"),
        **refused(UNREALIZED, "spirv/mlir"),
    },
}
"""Per chunk, the columns that refuse it and (a substring of) why; every other column
compiles it. A chunk with kernels that is not named here compiles on every column."""

UNREAD = {
    ("llvm/tmaload-transform.mlir", 0): 6144,
    ("llvm/xevm-pipeline-workgroup-attributions.mlir", 0): 32,
}
"""Chunks whose shared memory is only ever written (tmaload's two `linalg.copy`s into it,
the attribution kernel's one store): LLVM deletes it, so every tool reports 0 bytes of
the fused backing's (these) bytes."""


def _compiled_module(chunk: str, result: corpus.ChunkResult) -> ModuleOp:
    """The lowered output, its `gpu.launch` bodies outlined into kernels."""
    assert result.output is not None
    launches = "gpu.launch" in result.output.replace("gpu.launch_func", "")
    if launches and corpus.mlir_reads_chunk(chunk):
        return corpus.outline(result.output)
    return corpus.parse(result.output)


def _kernels(module: ModuleOp) -> list[gpu.FuncOp]:
    return [op for op in module.walk() if isinstance(op, gpu.FuncOp) and op.kernel is not None]


def _tool_bytes(module: ModuleOp, column: str) -> int:
    """The static shared bytes of every kernel of `module`, as the column's tool reports
    them after accepting each module, summed."""
    target, backend = column.split("/")
    isa_version = TARGETS[target].default_isa_version
    device = device_for(target, "", backend, isa_version)
    total = 0
    for text in emit_modules(module, target, "", backend, isa_version).values():
        total += sum(shared_bytes_by_tool(text, device, isa_version).values())
    return total


def _refusal(module: ModuleOp, column: str) -> str:
    target, backend = column.split("/")
    with pytest.raises(EMIT_ERRORS) as caught:
        emit_modules(module, target, "", backend, TARGETS[target].default_isa_version)
    error = caught.value
    if backend == "llvmlite":
        assert isinstance(error, GpuAllocPassError) and error.op is not None  # located
    message = error.message if isinstance(error, GpuAllocPassError) else str(error)
    assert "\n" not in message
    return message


OPENCL_COLUMN = "opencl/c"
"""Not recorded per chunk: each chunk is built by PoCL with at most the bytes the other
columns report, or refused in one located line (most corpus chunks hold `llvm` ops)."""


def _built_or_refused_in_one_line(module: ModuleOp, where: tuple[str, int], fused: int) -> None:
    try:
        reported = _tool_bytes(module, OPENCL_COLUMN)
    except GpuAllocPassError as error:
        assert "\n" not in error.message and error.op is not None, (where, error.message)
        return
    # PoCL's optimiser drops a __local array nothing reads (xevm-pipeline-workgroup-
    # attributions only stores to its attribution): at most the fused bytes.
    assert reported <= fused, (where, reported, fused)


FILES = sorted(
    {file for file, _ in REFUSED}
    | {file for file, _ in UNREAD}
    | {
        "graph-compiler/xevm-attach-target.mlir",
        "imex/OpTest.Relu_FLOAT32.mlir",
        "imex/add-gpu-alloc-for-tmp-buff.mlir",
        "imex/memref-alloc-to-gpu-alloc.mlir",
        "llvm/async.mlir",
        "llvm/concurrent-kernels.mlir",
        "llvm/gpu-to-cubin.mlir",
        "llvm/gpu-to-nvvm-memref.mlir",
        "llvm/two-modules.mlir",
    }
)
"""Every corpus file with a chunk that goes through and holds kernels (the others'
block-level code is IREE's workgroup functions, which no target compiles alone)."""


@pytest.mark.parametrize("file", FILES)
def test_corpus_chunk_compiles_on_every_column_or_is_refused_as_recorded(file: str):
    chunks = corpus.SPLIT.split((corpus.CORPUS / file).read_text())
    checked: set[int] = set()
    for result in corpus.run_file(file):
        if result.output is None:
            continue
        module = _compiled_module(chunks[result.index], result)
        if not _kernels(module):
            continue
        checked.add(result.index)
        where = (file, result.index)
        expected_refusals = REFUSED.get(where, {})
        assert result.shared_bytes is not None, where
        fused = result.shared_bytes[1]
        for column in COLUMNS:
            if column == OPENCL_COLUMN:
                _built_or_refused_in_one_line(module, where, fused)
            elif column in expected_refusals:
                message = _refusal(module, column)
                assert expected_refusals[column] in message, (where, column, message)
            elif where in UNREAD:
                assert fused == UNREAD[where] and _tool_bytes(module, column) == 0, where
            else:
                assert _tool_bytes(module, column) == fused, (where, column)
    recorded = {index for f, index in (*REFUSED, *UNREAD) if f == file}
    assert checked and recorded <= checked, (file, recorded - checked)
