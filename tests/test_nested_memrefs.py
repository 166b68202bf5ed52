"""A memref of memrefs (a workgroup buffer stored into `memref<1xmemref<..., workgroup>>`):
import used to fail with "the output of pass 'import-gpu-allocs' does not verify"
(reported by the parse stream). Now a buffer whose storage is stored to memory stays as
it is with a remark, the whole pipeline runs, MLIR reads every stage, the simulator
refuses the element type with one located line, and fuse keeps a contract-form buffer
that escapes through memory live until the end of the kernel."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corpus
from gpu_alloc.dialect import AllocOp
from gpu_alloc.dialect.layout import layout_of

WG = "memref<4xf32, #gpu.address_space<workgroup>>"
STORED_INTO_ARGUMENT = f"""
gpu.module @m {{
  gpu.func @k(%into: memref<1x{WG}>) kernel {{
    %c0 = arith.constant 0 : index
    %x = memref.alloc() : {WG}
    memref.store %x, %into[%c0] : memref<1x{WG}>
    gpu.return
  }}
}}
"""
PIPELINE = (
    "import-gpu-allocs,pad-shared-allocs,fuse-gpu-allocs,remove-dead-allocs,partition-loops,"
    "stripe-lane-allocs,flatten-aliases,lower-gpu-allocs"
)


def _tool(name: str, *args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(Path(sys.executable).parent / name), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )


def test_a_buffer_stored_into_a_memref_of_memrefs_goes_through_the_pipeline(tmp_path: Path):
    done = _tool("gpu-alloc-opt", "-p", PIPELINE, stdin=STORED_INTO_ARGUMENT)
    assert done.returncode == 0, done.stderr
    assert "internal error" not in done.stderr and "does not verify" not in done.stderr
    assert "memref.alloc %x stays as it is: its storage is stored to memory" in done.stderr
    assert f"memref.alloc() : {WG}" in done.stdout  # left as written, not half-imported
    read = subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "-o", "/dev/null"],
        input=done.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert read.returncode == 0, read.stderr


def test_the_simulator_refuses_a_memref_of_memrefs_with_one_located_line(tmp_path: Path):
    source = tmp_path / "nested.mlir"
    source.write_text(STORED_INTO_ARGUMENT)
    done = _tool("gpu-alloc-sim", str(source), "--grid", "1", "--block", "4", stdin="")
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert first == (
        f"{source}:3:3: error: kernel argument %into : memref<1x{WG}> has element type {WG}, "
        "which the simulator does not support"
    ), done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr


ESCAPES_THROUGH_A_BOX = """
gpu.module @m {
  gpu.func @k(%out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %box = memref.alloca() : memref<1xmemref<4xf32, 3 : i32>>
    %x = "gpu_alloc.alloc"() <{name = "x"}> : () -> memref<4xf32, 3 : i32>
    %f = arith.constant 1.0 : f32
    memref.store %f, %x[%t] : memref<4xf32, 3 : i32>
    memref.store %x, %box[%c0] : memref<1xmemref<4xf32, 3 : i32>>
    gpu.barrier
    %y = "gpu_alloc.alloc"() <{name = "y"}> : () -> memref<4xf32, 3 : i32>
    %g = arith.constant 2.0 : f32
    memref.store %g, %y[%t] : memref<4xf32, 3 : i32>
    %w = memref.load %y[%t] : memref<4xf32, 3 : i32>
    %x2 = memref.load %box[%c0] : memref<1xmemref<4xf32, 3 : i32>>
    %v = memref.load %x2[%t] : memref<4xf32, 3 : i32>
    %s = arith.addf %v, %w : f32
    memref.store %s, %out[%t] : memref<4xf32>
    gpu.return
  }
}
"""


def test_fuse_keeps_a_buffer_that_escapes_through_memory_apart_from_later_ones():
    """`x` is last named before the barrier, but read back through `%box` after it: `y`
    (same size, made after the barrier) must not get x's bytes."""
    from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass

    module = corpus.parse(ESCAPES_THROUGH_A_BOX)
    FuseGpuAllocsPass().apply(corpus.context(), module)
    (backing,) = [op for op in module.walk() if isinstance(op, AllocOp)]
    ranges = {s.name: (s.offset, s.offset + s.bytes) for s in layout_of(backing)}
    (x0, x1), (y0, y1) = ranges["x"], ranges["y"]
    assert x1 <= y0 or y1 <= x0, ranges
