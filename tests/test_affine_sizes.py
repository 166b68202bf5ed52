"""Block-level sizes computed with affine (transforms/block_sizes.py): IREE's tile sizes
`affine.min(64, n - 64 * block_id)` are block-uniform, and a size bounded by a constant
is packed at its bound like a static one; a size computed from the thread id is refused."""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.dialect import read_layout
from gpu_alloc.transforms.block_sizes import static_upper_bound
from xdsl.dialects import memref

TILE = """
gpu.module @m {
  gpu.func @k(%out: memref<256xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %bx = gpu.block_id x
    SIZE
    %tile = memref.alloc(%t) : memref<?xf32, #gpu.address_space<workgroup>>
    %other = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %tid = gpu.thread_id x
    %v = memref.load %out[%tid] : memref<256xf32>
    memref.store %v, %tile[%tid] : memref<?xf32, #gpu.address_space<workgroup>>
    %w = memref.load %tile[%c0] : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %w, %other[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %other[%c0] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %out[%tid] : memref<256xf32>
    gpu.return
  }
}
"""
AFFINE_MIN = "%t = affine.min affine_map<(d0)[s0] -> (64, s0 - d0 * 64)>(%bx)[%n]"
AFFINE_MAX = "%t = affine.max affine_map<(d0)[s0] -> (64, s0 - d0 * 64)>(%bx)[%n]"
MINSI = """%c64 = arith.constant 64 : index
    %r = affine.apply affine_map<(d0)[s0] -> (s0 - d0 * 64)>(%bx)[%n]
    %t = arith.minsi %r, %c64 : index"""
FROM_THREAD = """%tid0 = gpu.thread_id x
    %t = affine.apply affine_map<(d0) -> (d0 * 2)>(%tid0)"""


def lowered(size: str) -> corpus.ChunkResult:
    return corpus.run_chunk("<test>", 0, TILE.replace("SIZE", size), bridge=False)


@pytest.mark.parametrize("size", [AFFINE_MIN, MINSI], ids=["affine.min", "arith.minsi"])
def test_bounded_tile_is_packed_at_its_bound_and_shares_with_the_next_buffer(size: str):
    result = lowered(size)
    assert result.output is not None, result.error
    module = corpus.parse(result.output)
    (shared,) = [op for op in module.walk() if isinstance(op, memref.GlobalOp)]
    assert (
        str(shared.type) == "memref<256xi8, #gpu.address_space<workgroup>>"
    )  # 64 floats, once for both
    slices = read_layout(shared.attributes["gpu_alloc.layout"])
    assert [(s.name, s.offset, s.bytes) for s in slices] == [("tile", 0, 256), ("other", 0, 256)]
    assert slices[0].last_stage < slices[1].first_stage


def test_unbounded_affine_size_stays_dynamic():
    result = lowered(AFFINE_MAX)
    assert result.output is not None, result.error
    assert "gpu.dynamic_shared_memory" in result.output
    assert "memref<256xi8, #gpu.address_space<workgroup>>" not in result.output


def test_size_from_the_thread_id_through_affine_is_refused():
    result = lowered(FROM_THREAD)
    assert result.output is None
    assert result.error == (
        "the size of allocation 'tile' depends on the thread id ('gpu.thread_id'); a "
        "block-level allocation has one size for the whole block"
    )


@pytest.mark.parametrize(
    ("expression", "bound"),
    [
        ("affine.min affine_map<(d0) -> (16, d0, 8)>(%i)", 8),
        ("affine.min affine_map<(d0) -> (d0, d0 + 1)>(%i)", None),
        ("affine.max affine_map<(d0) -> (16, d0)>(%i)", None),
        ("arith.minsi %i, %c32 : index", 32),
        ("arith.maxsi %i, %c32 : index", None),
        ("arith.select %p, %c32, %c4 : index", 32),
        ("arith.select %p, %c32, %i : index", None),
        ("index.minu %i, %c32", 32),
    ],
)
def test_static_upper_bound(expression: str, bound: int | None):
    text = f"""func.func @f(%i: index, %p: i1) -> index {{
  %c32 = arith.constant 32 : index
  %c4 = arith.constant 4 : index
  %r = {expression}
  return %r : index
}}"""
    module = corpus.parse(text)
    value = next(r for op in module.walk() for r in op.results if r.name_hint == "r")
    assert static_upper_bound(value) == bound
