"""What the PTX backends refuse is located in the user's text, also when they refuse it on
the copy they lower (`provenance.cloned`): before, every error found after the copy was
`file: error: ...` with no line, and a function declaration was an internal error
(`AssertionError`) in the embedded backend."""

from __future__ import annotations

from pathlib import Path

from fuzz_cli import Outcome, run_in_subprocess

WG = "memref<64xf32, #gpu.address_space<workgroup>>"
CALLS_A_DECLARATION = f"""\
gpu.module @m {{
  func.func private @ext({WG}, index)
  gpu.func @k(%out: memref<64xf32>) kernel {{
    %t = gpu.thread_id x
    %a = memref.alloc() : {WG}
    func.call @ext(%a, %t) : ({WG}, index) -> ()
    gpu.return
  }}
}}
"""
STORES_A_SHARED_MEMREF = """\
gpu.module @m {
  gpu.func @k(%out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %box = memref.alloca() : memref<1xmemref<4xf32, 3 : i32>>
    %x = "gpu_alloc.alloc"() <{name = "x"}> : () -> memref<4xf32, 3 : i32>
    memref.store %x, %box[%c0] : memref<1xmemref<4xf32, 3 : i32>>
    gpu.return
  }
}
"""


def assert_one_located_error(outcome: Outcome, prefix: str, expected: str) -> None:
    """Exit 1, no output, and one error line (after any remarks), at `prefix`."""
    assert outcome.code == 1 and outcome.out == "", outcome
    assert "internal error" not in outcome.err and "Traceback" not in outcome.err
    (error,) = [line for line in outcome.err.splitlines() if "error:" in line]
    assert error.startswith(prefix) and expected in error, error


PIPELINE = "import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs"


def test_a_declaration_is_refused_by_the_embedded_backend_where_it_is_written(tmp_path: Path):
    path = tmp_path / "k.mlir"
    path.write_text(CALLS_A_DECLARATION)
    for passes in (PIPELINE, "import-gpu-allocs"):  # lowered by -t ptx on its own copy, too
        outcome = run_in_subprocess("opt", [str(path), "-p", passes, "-t", "ptx"])
        assert_one_located_error(
            outcome,
            f"{path}:2:3: error: ",
            "the llvmlite PTX backend cannot lower 'func.func' in kernel 'ext' (a function "
            "declaration; use backend=mlir)",
        )


def test_an_op_the_embedded_backend_cannot_lower_is_located(tmp_path: Path):
    """The op lower-gpu-allocs makes of `x` (a `memref.get_global`) has no text of its own:
    the error is at the kernel that holds it, not at no line at all. (What the backend
    really cannot lower is the store of a memref value; the message names the op that
    made the value.)"""
    path = tmp_path / "k.mlir"
    path.write_text(STORES_A_SHARED_MEMREF)
    outcome = run_in_subprocess("opt", [str(path), "-p", "fuse-gpu-allocs", "-t", "ptx"])
    assert_one_located_error(
        outcome, f"{path}:2:3: error: ", "PTX backend cannot lower 'memref.get_global'"
    )
