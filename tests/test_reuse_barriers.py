"""`fuse-gpu-allocs{insert-barriers=...}` measured on IREE's reuse tests (tests/external)."""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.fuse_gpu_allocs import fuse_module
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from gpu_alloc.transforms.reuse_barriers import insert_reuse_barriers
from xdsl.dialects import gpu

# (file, chunk): IREE's expected workgroup bytes (read off its CHECK lines; recorded for
# the comparison in the README, not asserted), ours with insert-barriers=always. Ours is larger where the liveness analysis counts a view's
# creation as a use (subviews made before the loop), or where a vector transfer's buffer is read
# by every later stage (trivial_reuse).
IREE_TABLE = {
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 0): (1536, 1536),  # shared_memory_disjoint
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 1): (1536, 1664),  # ..._disjoint_subview
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 2): (1664, 1664),  # ..._joint_subview
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 3): (512, 3072),  # view_like_ops
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 4): (1024, 1024),  # select_alloc
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 5): (1024, 1024),  # select_alloc_with_if
    ("iree/gpu_reuse_shared_memory_allocs.mlir", 6): (1024, 1024),  # alloc_with_if
    ("iree/pack_shared_memory_alloc.mlir", 0): (1024, 1024),  # shared_memory_disjoint
    ("iree/reuse_shared_memory_allocs.mlir", 0): (16384, 32768),  # trivial_reuse
    ("iree/reuse_shared_memory_allocs.mlir", 1): (65536, 65536),  # trivial_non_reuse
}


def fused_shared_bytes(text: str, mode: str) -> int:
    module = corpus.parse(text)
    import_gpu_allocs(module)
    options = FuseGpuAllocsPass(insert_barriers=mode, max_shared_bytes=1 << 20)
    insert_reuse_barriers(module, options, fuse_module)
    (report,) = fuse_module(module, options)
    return sum(s.plan.static_bytes for s in report.spaces if s.space == 3)


@pytest.mark.parametrize(("file", "chunk"), sorted(IREE_TABLE))
def test_iree_reuse_cases(file: str, chunk: int):
    text = corpus.SPLIT.split((corpus.CORPUS / file).read_text())[chunk]
    _, ours = IREE_TABLE[(file, chunk)]
    assert fused_shared_bytes(text, "always") == ours
    assert fused_shared_bytes(text, "never") >= ours


def test_no_barrier_when_it_would_not_save_bytes():
    """`a` and `b` are used together after every possible position: nothing to gain."""
    text = """
    gpu.module @m {
      gpu.func @k() kernel {
        %c0 = arith.constant 0 : index
        %x = arith.constant 1.0 : f32
        %a = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
        %b = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
        memref.store %x, %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
        memref.store %x, %b[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
        %y = memref.load %a[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
        memref.store %y, %b[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
        gpu.return
      }
    }
    """
    module = corpus.parse(text)
    import_gpu_allocs(module)
    options = FuseGpuAllocsPass(insert_barriers="always")
    assert insert_reuse_barriers(module, options, fuse_module) == []
    assert not any(isinstance(op, gpu.BarrierOp) for op in module.walk())
