"""`gpu-alloc-opt` turns every bad input into one located diagnostic and exit code 1."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<17xi32, 3 : i32>
      memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""

ALLOC_LINE = '      %f = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<17xi32, 3 : i32>'


def run_opt(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "input.mlir"
    source.write_text(text)
    return subprocess.run(
        [sys.executable, "-m", "gpu_alloc.tools.opt", str(source), *args],
        capture_output=True,
        text=True,
        check=False,
    )


# (name, transform of the source, extra args, expected "line:col: error: message" part,
#  the source line the diagnostic must quote)
CASES = [
    (
        "truncated file",
        lambda s: s[: s.index("memref.store")],
        (),
        ":7:7: error: unexpected end of input",
        None,
    ),
    (
        "unknown op",
        lambda s: s.replace('"gpu_alloc.alloc"', '"gpu_alloc.allocate"'),
        (),
        ":6:32: error: Operation gpu_alloc.allocate is not registered",
        ALLOC_LINE.replace("gpu_alloc.alloc", "gpu_alloc.allocate"),
    ),
    (
        "type mismatch",
        lambda s: s.replace(
            "memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>",
            "memref.store %v, %f[%c0] : memref<17xf32, 3 : i32>",
        ),
        (),
        ":7:20: error: operand is used with type f32, but has been previously used or "
        "defined with type i32",
        None,
    ),
    (
        "bad property",
        lambda s: s.replace('<{name = "f"}>', "<{name = 42 : i64}>"),
        (),
        "6:7: error: ",
        ALLOC_LINE.replace('"f"', "42 : i64"),
    ),
    (
        "verifier failure",
        lambda s: (
            s.replace("17xi32, 3 : i32>\n      memref", "17xi32, 3 : i32>\n      memref")
            .replace("() -> memref<17xi32, 3 : i32>", "() -> memref<17xi32, 4 : i32>")
            .replace("%f[%c0] : memref<17xi32, 3 : i32>", "%f[%c0] : memref<17xi32, 4 : i32>")
        ),
        (),
        "6:7: error: gpu_alloc.alloc result must be a memref in memory space 1 (global), "
        "3 (shared) or 5 (private), got memref<17xi32, 4 : i32>",
        ALLOC_LINE.replace("3 : i32", "4 : i32"),
    ),
    (
        "pass failure",
        lambda s: s,
        ("-p", "fuse-gpu-allocs{max-shared-bytes=16}"),
        "3:5: error: kernel 'k' needs 68 bytes of shared memory, over the limit of 16",
        '    "gpu.func"() <{function_type = () -> (), kernel}> ({',
    ),
    (
        "bad pass option",
        lambda s: s,
        ("-p", "fuse-gpu-allocs{alignment=3}"),
        "error: fuse-gpu-allocs: option alignment must be a positive power of two, got 3",
        None,
    ),
]


@pytest.mark.parametrize(
    "name, transform, args, expected, quoted", CASES, ids=[c[0] for c in CASES]
)
def test_bad_input_gives_one_located_diagnostic(
    tmp_path: Path, name, transform, args, expected: str, quoted: str | None
):
    result = run_opt(tmp_path, transform(KERNEL), *args)
    assert result.returncode == 1, result.stderr
    assert result.stdout == "", "no partial output on error"
    assert "Traceback" not in result.stderr
    first, *rest = result.stderr.splitlines()
    assert expected in first, first
    assert first.startswith(str(tmp_path / "input.mlir") + ":")
    if quoted is not None:
        # the source line, then a caret under the op
        assert rest[0] == quoted
        assert rest[1].strip().startswith("^")
        assert rest[1].index("^") == expected_column(first) - 1


def expected_column(diagnostic: str) -> int:
    location = diagnostic.split(": error:")[0]
    return int(location.rsplit(":", 1)[1])


def test_valid_input_prints_module_and_exits_0(tmp_path: Path):
    result = run_opt(tmp_path, KERNEL)
    assert result.returncode == 0, result.stderr
    assert 'gpu_alloc.alloc "f" : memref<17xi32, 3 : i32>' in result.stdout


def test_later_chunk_error_prints_nothing(tmp_path: Path):
    broken = KERNEL.replace('"gpu_alloc.alloc"', '"gpu_alloc.nope"')
    result = run_opt(tmp_path, KERNEL + "// -----\n" + broken, "--split-input-file")
    assert result.returncode == 1
    assert result.stdout == ""
    assert ":18:28: error: Operation gpu_alloc.nope is not registered" in result.stderr


def test_help_lists_the_passes_and_the_hidden_steps():
    result = subprocess.run(
        [sys.executable, "-m", "gpu_alloc.tools.opt", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    for name in ("fuse-gpu-allocs", "flatten-aliases", "lower-gpu-allocs", "remove-dead-allocs"):
        assert f"\n  {name}: " in result.stdout
    assert "lower-gpu-allocs runs flatten-aliases first" in result.stdout
    assert (
        "-t ptx, -t amdgcn, -t spirv and -t opencl run lower-gpu-allocs{chip=...} first"
        in result.stdout
    )
