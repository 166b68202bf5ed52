"""Real GPU kernels from public projects (tests/external/SOURCES.md), kept as found.

Every chunk of every corpus file has a recorded outcome: it goes through
`import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs` (and the output is
read back by this project's parser and by `mlir-opt-22`), or it is refused with the
recorded reason. A new refusal, or a refusal that starts going through, fails the test,
so the table below (and SOURCES.md) stays the truth about what is supported.
"""

from __future__ import annotations

from dataclasses import dataclass

import corpus
import pytest
from gpu_alloc.sim.errors import SimulationError


@dataclass(frozen=True)
class Fused:
    """A chunk that goes through: the static shared bytes of its block-level code after
    import-gpu-allocs and after fuse-gpu-allocs (checked by hand from the buffers' types
    and the barriers between their uses), or None for a dynamic size."""

    before: int | None
    after: int | None
    bridge: bool = False
    """Read through mlir-opt-22: the embedded parser stops at an op it does not define."""


@dataclass(frozen=True)
class Refused:
    reason: str
    """A substring of the one-line reason."""


def ok(before: int | None = 0, after: int | None = None) -> Fused:
    return Fused(before, before if after is None else after)


def bridged(before: int = 0) -> Fused:
    return Fused(before, before, bridge=True)


OVER_LIMIT = Refused("needs 65536 bytes of shared memory, over the limit of 49152")
"""IREE's trivial_non_reuse: four 16 KiB buffers, each read after the next one is written,
so no barrier lets any two share bytes (IREE keeps all four too): over the 48 KiB limit."""
GPU_CHECK_RESOURCE_USAGE = [
    Refused("'shared_mem_alloc' needs 274432 bytes of shared memory"),  # IREE's own error case
    ok(512),  # memref<64xindex>: 64 x 8 bytes
    Refused("'shared_mem_alloc_index_too_big' needs 144984 bytes"),  # IREE's error case too
]
HAL = Refused("operation 'hal.interface.binding.subspan' is not defined here")
"""IREE's own ops in custom form: neither this project nor mlir-opt-22 reads them (MLIR's
error is appended to the line)."""
INDEX_HINT = Refused("operation 'iree_codegen.index_hint' is not defined here")

EXPECTED: dict[str, list[Fused | Refused]] = {
    "graph-compiler/allocs-to-slm-2d.mlir": [ok()],
    # 8x64xf32 + 6x64xf32, both passed to "test.source" (unknown): live throughout
    "graph-compiler/buffer-merge.mlir": [ok(2048 + 1536)],
    "graph-compiler/gpu-to-gpuocl-inlined.mlir": [bridged()],  # gpu.binary
    # 4x1x7x128xf16 shared buffers under scf.forall
    "graph-compiler/linalg-to-xegpu-broadcast-fold.mlir": [ok(7168), ok(7168), ok(), ok()],
    "graph-compiler/linalg-to-xegpu-slm.mlir": [ok(64 * 256 * 2)],  # written by linalg.fill
    "graph-compiler/xevm-attach-target.mlir": [ok()],
    "imex/Constants.bf16.mlir": [ok()],
    "imex/GEMM.bf16.mlir": [ok()],
    "imex/OpTest.Relu_FLOAT32.mlir": [bridged()],  # spirv.module
    "imex/add-gpu-alloc-for-tmp-buff.mlir": [ok()],
    "imex/ceil_floor_f32.mlir": [bridged()],  # xegpu
    "imex/gemm_1024x1024xf16.using.updateoffset.mlir": [bridged()],
    "imex/gemm_4kx4kx4k_transpose_b.mlir": [bridged()],
    "imex/large_stores_8x32xf16_w_2d_vector_shuffle.vc.mlir": [bridged()],
    "imex/load2d-ugm-f32-transpose.mlir": [bridged()],
    "imex/load_with_block_array_16_16_2.vc.mlir": [bridged()],
    "imex/memref-alloc-to-gpu-alloc.mlir": [ok()],
    "imex/reduction_3D_1D_cross_sg_intra_lane.mlir": [bridged()],
    "imex/softmax_intra_sg_cross_lane.mlir": [bridged()],
    "imex/unit_tests.mlir": [bridged()],
    "imex/vector_insert_2.mlir": [bridged()],
    "iree-generic/amdgpu_emulate_narrow_type.mlir": [ok()] * 5,
    "iree-generic/convert_to_rocdl.mlir": [ok(), ok(2048 + 2048 + 512)],
    "iree-generic/gpu_check_resource_usage.mlir": GPU_CHECK_RESOURCE_USAGE,
    "iree-generic/gpu_distribute_shared_memory.mlir": [ok()] * 3,
    "iree-generic/legalize.mlir": [ok(16 * 16 * 4)],
    "iree-generic/rocdl_global_transpose_load.mlir": [ok()] * 6,
    "iree-generic/rocdl_load_to_transpose_load.mlir": [
        Refused("'preprocess_delinearize_3d' needs 4194304 bytes")  # 64x128x256xf16
    ],
    "iree/amdgpu_emulate_narrow_type.mlir": [
        *[ok()] * 3,
        Refused("cannot read it either"),  # MLIR 22 cannot read it
        ok(),
        ok(),
    ],
    "iree/convert_to_rocdl.mlir": [
        HAL,
        HAL,
        ok(),
        HAL,
        Refused("operation 'hal.interface.workgroup.size' is not defined here"),
        HAL,
        Refused("operation 'hal.interface.constant.load' is not defined here"),
        Refused("operation 'iree_codegen.null_pointer' is not defined here"),
        bridged(),  # amdgpu.mfma
        ok(2048 + 2048 + 512),
        Refused("operation 'iree_gpu.global_subgroup_barrier' is not defined here"),
    ],
    "iree/gpu_check_resource_usage.mlir": GPU_CHECK_RESOURCE_USAGE,
    "iree/gpu_distribute_shared_memory.mlir": [ok()] * 4,
    "iree/gpu_reuse_shared_memory_allocs.mlir": [
        *[ok(1664)] * 3,
        ok(3072),
        *[ok(1152)] * 3,
    ],
    "iree/legalize.mlir": [ok(16 * 16 * 4)],
    "iree/pack_shared_memory_alloc.mlir": [ok(1152)],
    "iree/reduce_bank_conflicts.mlir": [ok(32768), ok(None), ok(4)],
    "iree/reuse_shared_memory_allocs.mlir": [
        ok(65536, 49152),
        OVER_LIMIT,
        ok(65536, 32768),
        ok(32768),
    ],  # trivial_reuse and shared_reuse_scf_for fit with one barrier
    "iree/rocdl_global_transpose_load.mlir": [ok()] * 7,
    "iree/rocdl_load_to_transpose_load.mlir": [
        *[INDEX_HINT] * 18,
        Refused("'preprocess_delinearize_3d' needs 4194304 bytes"),
        *[INDEX_HINT] * 3,
    ],
    "llvm/all-reduce-region.mlir": [ok()],
    "llvm/async.mlir": [bridged()],  # async.execute
    "llvm/concurrent-kernels.mlir": [ok()],
    "llvm/decompose-memrefs.mlir": [ok()] * 5,
    "llvm/dynamic-shared-memory.mlir": [ok()],
    "llvm/gpu-to-cubin.mlir": [ok()],
    "llvm/gpu-to-nvvm-memref.mlir": [ok()],
    "llvm/memory-attrbution.mlir": [ok(), ok(16), ok(192), ok(12), ok(192)],
    "llvm/nvgpu-roundtrip.mlir": [ok()],
    # 128x32xf16 + 32x128xf16; 64x16xf32 + 16x64xf32; 32x4xf64 and 128x8xf16 (two
    # functions); 128x32xf16; a 0-d buffer that is returned stays unfused
    "llvm/optimize-shared-memory.mlir": [ok(16384), ok(8192), ok(1024 + 2048), ok(8192), ok()],
    "llvm/printf.mlir": [ok()],
    "llvm/promotion.mlir": [ok(), ok(), ok(8)],
    "llvm/shuffle.mlir": [ok()],
    "llvm/tmaload-transform.mlir": [ok(2048 + 4096)],  # written by linalg.copy
    # 4x32x16xf32 (and 4x32x16xf16 in chunk 3), written by vector.transfer_write/store
    "llvm/transform-create-async-groups.mlir": [*[ok(8192)] * 3, ok(12288), *[ok(8192)] * 3],
    "llvm/transform-mma-sync-matmul-f32.mlir": [ok()],
    "llvm/two-modules.mlir": [ok()],
    "llvm/wmma-matmul-f32.mlir": [ok()],
    "llvm/xevm-pipeline-workgroup-attributions.mlir": [ok(32)],
}


def test_every_corpus_file_has_a_recorded_outcome():
    assert sorted(EXPECTED) == corpus.corpus_files()


def _check(result: corpus.ChunkResult, expected: Fused | Refused) -> None:
    where = (result.file, result.index)
    if isinstance(expected, Refused):
        assert result.output is None, where
        assert expected.reason in (result.error or ""), (where, result.error)
        return
    assert result.output is not None, (where, result.error)
    assert result.bridged == expected.bridge, where
    fused = None if expected.before is None else (expected.before, expected.after)
    assert result.shared_bytes == fused, where


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_corpus_file_goes_through_or_is_refused_as_recorded(file: str):
    """Each chunk: the recorded outcome and shared bytes; every output is read back by
    this project's parser, and by mlir-opt-22 for each chunk mlir-opt-22 reads as found."""
    chunks = corpus.SPLIT.split((corpus.CORPUS / file).read_text())
    results = corpus.run_file(file)
    assert len(results) == len(EXPECTED[file])
    for result, expected in zip(results, EXPECTED[file], strict=True):
        _check(result, expected)
    outputs = [
        r.output
        for r in results
        if r.output is not None and corpus.mlir_reads_chunk(chunks[r.index])
    ]
    for output in outputs:
        assert '"gpu_alloc.' not in output and "= gpu_alloc." not in output  # no op is left
        corpus.parse(output)  # gpu-alloc-opt reads back what it printed
    if outputs:
        mlir = corpus.mlir_opt_reads(outputs)
        assert mlir.returncode == 0, mlir.stderr


def test_chunks_read_through_mlir_name_the_op_without_it():
    """Without the bridge, each chunk recorded as bridged is one line naming the op the
    embedded parser does not define."""
    for file, outcomes in EXPECTED.items():
        chunks = corpus.SPLIT.split((corpus.CORPUS / file).read_text())
        for index, expected in enumerate(outcomes):
            if isinstance(expected, Fused) and expected.bridge:
                result = corpus.run_chunk(file, index, chunks[index], bridge=False)
                assert result.output is None, (file, index)
                assert "is not defined here" in (result.error or ""), (file, index)


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
    "graph-compiler/xevm-attach-target.mlir": ["@entry_kernel::@entry_kernel"],
    "imex/OpTest.Relu_FLOAT32.mlir": ["@test_kernel::@test_kernel", "@test_kernel_0::@test_kernel"],
    "imex/memref-alloc-to-gpu-alloc.mlir": ["@main_kernel::@main_kernel"],
    "llvm/async.mlir": ["@main_kernel::@main_kernel"],
    "llvm/concurrent-kernels.mlir": ["@kernels::@kernel"],
    "llvm/decompose-memrefs.mlir": ["@decompose_store_kernel::@decompose_store_kernel"],
    "llvm/gpu-to-cubin.mlir": ["@other_func_kernel::@other_func_kernel"],
    "llvm/gpu-to-nvvm-memref.mlir": ["@memref_conversions::@kern"],
    "llvm/printf.mlir": ["@kernels::@hello"],
    "llvm/shuffle.mlir": ["@main_kernel::@main_kernel"],
    "llvm/two-modules.mlir": ["@main_kernel::@main_kernel", "@main_kernel_0::@main_kernel"],
    "llvm/xevm-pipeline-workgroup-attributions.mlir": ["@kernels::@kernel"],
}
"""Kernels of chunks that go through that the simulator runs before and after (the
`gpu.launch` bodies of two-modules.mlir and gpu-to-cubin.mlir outlined by mlir-opt-22)."""

NOT_SIMULATED: dict[str, str] = {
    "graph-compiler/allocs-to-slm-2d.mlir @entry_kernel::@entry_kernel": "op 'linalg.add' is not supported by the simulator",
    "graph-compiler/gpu-to-gpuocl-inlined.mlir @entry_kernel::@entry_kernel": "kernel argument %arg1 has unsupported type !llvm.ptr<1>",
    "graph-compiler/linalg-to-xegpu-broadcast-fold.mlir @broadcast_eliminate_2d_kernel::@broadcast_eliminate_2d_kernel": "subview offset differs between the threads of a block; not supported",
    "graph-compiler/linalg-to-xegpu-broadcast-fold.mlir @broadcast_eliminate_3d_kernel::@broadcast_eliminate_3d_kernel": "subview offset differs between the threads of a block; not supported",
    "graph-compiler/linalg-to-xegpu-broadcast-fold.mlir @complex_broadcast_3d_kernel::@complex_broadcast_3d_kernel": "op 'linalg.broadcast' is not supported by the simulator",
    "graph-compiler/linalg-to-xegpu-broadcast-fold.mlir @single_broadcast_kernel::@single_broadcast_kernel": "op 'linalg.broadcast' is not supported by the simulator",
    "graph-compiler/linalg-to-xegpu-slm.mlir @entry_kernel::@entry_kernel": "subview offset differs between the threads of a block; not supported",
    "imex/Constants.bf16.mlir @test_kernel::@test_kernel": "kernel argument %arg0 : memref<10x10xbf16> has element type bf16, which the simulator does not support",
    "imex/GEMM.bf16.mlir @test_kernel::@test_kernel": "kernel argument %arg0 : memref<3x3xbf16> has element type bf16, which the simulator does not support",
    # the outlined kernel takes its index constants as arguments: random ones index out of 2x5
    "imex/add-gpu-alloc-for-tmp-buff.mlir @addt_kernel::@addt_kernel": "out-of-bounds load from 'arg2' (2x5xf32) at index (2, 2) by thread (0, 0, 0) of block (0, 0, 0)",
    "imex/ceil_floor_f32.mlir @test_kernel::@test_kernel": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "imex/gemm_1024x1024xf16.using.updateoffset.mlir @test_kernel::@test_kernel": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "imex/gemm_4kx4kx4k_transpose_b.mlir @test_kernel::@test_kernel": "op 'gpu.subgroup_id' is not supported by the simulator",
    "imex/large_stores_8x32xf16_w_2d_vector_shuffle.vc.mlir @test_kernel::@test_kernel": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "imex/load2d-ugm-f32-transpose.mlir @test_kernel::@test_copy": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "imex/load_with_block_array_16_16_2.vc.mlir @test_kernel::@test_kernel": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "imex/reduction_3D_1D_cross_sg_intra_lane.mlir @reduction::@cross_sg_intra_lane_3D_1D": "op 'memref.extract_aligned_pointer_as_index' is not supported by the simulator",
    "imex/softmax_intra_sg_cross_lane.mlir @main_kernel::@main_kernel": "element type vector<64xf32> is not supported by the simulator",
    "imex/unit_tests.mlir @test_kernels::@bcast_add_exp": "kernel argument %arg0 has unsupported type vector<1x16xf16>",
    "imex/vector_insert_2.mlir @module0::@test_kernel": "op 'xegpu.create_nd_tdesc' is not supported by the simulator",
    "llvm/all-reduce-region.mlir @main_kernel::@main_kernel": "op 'gpu.all_reduce' is not supported by the simulator",
    "llvm/decompose-memrefs.mlir @decompose_store_strided_kernel::@decompose_store_strided_kernel": "kernel argument %arg1 : memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>> must have the identity layout",
    "llvm/decompose-memrefs.mlir @decompose_load_kernel::@decompose_load_kernel": "op 'test.test' is not supported by the simulator",
    "llvm/decompose-memrefs.mlir @decompose_subview_kernel::@decompose_subview_kernel": "subview offset differs between the threads of a block; not supported",
    "llvm/dynamic-shared-memory.mlir @modules::@dynamic_shared_memory_kernel": "op 'test.use.shared.memory' is not supported by the simulator",
    "llvm/promotion.mlir @foo::@memref3d": "op 'use' is not supported by the simulator",
    "llvm/promotion.mlir @foo::@memref5d": "op 'use' is not supported by the simulator",
    "llvm/promotion.mlir @foo::@insert": "op 'use' is not supported by the simulator",
    "llvm/tmaload-transform.mlir @main_kernel::@main_kernel": "op 'linalg.copy' is not supported by the simulator",
    "llvm/transform-mma-sync-matmul-f32.mlir @main_kernel::@main_kernel": "op 'linalg.matmul' is not supported by the simulator",
    "llvm/wmma-matmul-f32.mlir @main_kernel::@main_kernel": "op 'gpu.subgroup_mma_load_matrix' is not supported by the simulator",
}
"""Kernels the simulator cannot run: MLIR's tests use unregistered ops as opaque uses,
and real kernels use ops and types it does not model (xegpu, linalg, bf16, ...)."""


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


def test_iree_generic_files_are_mlir_opts_generic_print_of_the_chunks_it_reads():
    """tests/external/iree-generic/X.mlir is, chunk for chunk, what
    `mlir-opt-22 --allow-unregistered-dialect --mlir-print-op-generic` prints for each
    chunk of iree/X.mlir that it reads (the others, IREE's own ops, it cannot read)."""
    import subprocess

    for generic in sorted((corpus.CORPUS / "iree-generic").glob("*.mlir")):
        chunks = corpus.SPLIT.split((corpus.CORPUS / "iree" / generic.name).read_text())
        printed = []
        for chunk in chunks:
            done = subprocess.run(
                ["mlir-opt-22", "--allow-unregistered-dialect", "--mlir-print-op-generic"],
                input=chunk,
                capture_output=True,
                text=True,
                check=False,
            )
            if done.returncode == 0:
                printed.append(done.stdout)
        assert "// -----\n".join(printed) == generic.read_text(), generic.name
