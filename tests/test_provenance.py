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


HEAP_IN_LAUNCH = """\
func.func @host() {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<16xf32, 1 : i32>
    %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<16xf32, 1 : i32>
    memref.store %f, %a[%c0] : memref<16xf32, 1 : i32>
    memref.store %f, %b[%c0] : memref<16xf32, 1 : i32>
    gpu.terminator
  }
  return
}
"""


def test_a_heap_backing_in_a_launch_names_the_users_funcs_at_their_text(tmp_path: Path):
    """Issue 19 §8: the diagnostic named 'global_alloc', a backing the user never wrote,
    and pointed at the launch."""
    path = tmp_path / "k.mlir"
    path.write_text(HEAP_IN_LAUNCH)
    for passes in (
        "fuse-gpu-allocs,lower-gpu-allocs",
        "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
    ):
        outcome = run_tool("opt", [str(path), "-p", passes])
        assert outcome.code == 1 and outcome.out == ""
        first, source = outcome.err.splitlines()[:2]
        assert first.startswith(
            f"{path}:6:5: error: heap Funcs 'a', 'b' (fused into 'global_alloc') in "
            "'gpu.launch in host' cannot be lowered"
        )
        assert source.strip().startswith('%a = "gpu_alloc.alloc"()')
