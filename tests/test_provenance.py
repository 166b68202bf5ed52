"""Diagnostics on what a pass made from the user's op point at that op's text."""

from __future__ import annotations

from pathlib import Path

from fuzz_cli import run_tool

WORKGROUP = "#gpu.address_space<workgroup>"
KERNEL = f"""\
gpu.module @m {{
  gpu.func @k(%out: memref<64xf32>) kernel {{
    %t = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %a = memref.alloc(%t) : memref<?xf32, {WORKGROUP}>
    %v = memref.load %a[%c0] : memref<?xf32, {WORKGROUP}>
    memref.store %v, %out[%c0] : memref<64xf32>
    gpu.return
  }}
}}
"""


def test_error_on_an_imported_allocation_points_at_the_memref_alloc(tmp_path: Path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL)
    outcome = run_tool("opt", [str(path), "-p", "import-gpu-allocs,fuse-gpu-allocs"])
    assert outcome.code == 1 and outcome.out == ""
    first, source = outcome.err.splitlines()[:2]
    assert first.startswith(f"{path}:5:5: error: the size of allocation 'a' depends on the thread")
    assert source.strip().startswith("%a = memref.alloc(%t)")
