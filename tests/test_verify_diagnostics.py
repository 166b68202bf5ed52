"""`gpu-alloc-opt --verify-diagnostics` with `expected-*` annotations, as mlir-opt (issue 23
item 3; issue 19's `_InvalidPassOutput` defect). The lit side is
tests/filecheck/driver/verify-diagnostics.mlir."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from gpu_alloc.errors import UserInputError
from gpu_alloc.lowering.toolchain import have_mlir_opt
from gpu_alloc.tools.opt import GpuAllocOptMain
from gpu_alloc.tools.verify_diagnostics import parse_expectations

LIT = Path(__file__).resolve().parent / "filecheck"

# The xDSL-style error tests of every pass (`--verify-diagnostics | filecheck`): each chunk's
# hand-written CHECK line says which error it gives.
ERROR_TESTS = [
    ("dialect/invalid.mlir", "", "CHECK"),
    ("transforms/fuse-gpu-allocs-errors.mlir", "fuse-gpu-allocs", "CHECK"),
    ("transforms/fuse-gpu-allocs-errors.mlir", "fuse-gpu-allocs{max-shared-bytes=100}", "LIMIT"),
    ("transforms/stripe-lane-allocs-invalid.mlir", "stripe-lane-allocs", "CHECK"),
    ("transforms/pad-shared-allocs-fused.mlir", "pad-shared-allocs", "CHECK"),
    ("lowering/lower-gpu-allocs-errors.mlir", "lower-gpu-allocs", "CHECK"),
    (
        "import/launch-bodies-errors.mlir",
        "import-gpu-allocs,fuse-gpu-allocs,lower-gpu-allocs",
        "CHECK",
    ),
]


def _chunks_with_errors(path: Path, prefix: str) -> list[tuple[int, str, str]]:
    """(index, chunk text, the CHECK'd message) of every chunk that expects an error."""
    found = []
    for index, chunk in enumerate(path.read_text().split("// -----")):
        checks = re.findall(rf"^// {prefix}: (.*)$", chunk, re.MULTILINE)
        if len(checks) == 1 and "{{" not in checks[0]:
            found.append((index, chunk, checks[0].strip()))
    return found


def _run(path: Path, pipeline: str, capsys: pytest.CaptureFixture[str]) -> str | None:
    """gpu-alloc-opt --verify-diagnostics on `path`; the problems it reports, or None."""
    args = [str(path), "--verify-diagnostics", "--allow-unregistered-dialect"]
    if pipeline:
        args += ["-p", pipeline]
    try:
        GpuAllocOptMain(args).run()
    except UserInputError as error:
        capsys.readouterr()
        return str(error)
    capsys.readouterr()
    return None


def _annotated(chunk: str, line: int, message: str) -> str:
    lines = chunk.split("\n")
    lines.insert(line - 1, f"// expected-error@+1 {{{{{message}}}}}")
    return "\n".join(lines)


@pytest.mark.parametrize("test,pipeline,prefix", ERROR_TESTS)
def test_every_pass_error_is_located_and_can_be_expected(
    test: str, pipeline: str, prefix: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Each error of every pass's error tests comes at a line; annotating that line with the
    test's hand-written message passes, and a wrong message or line fails."""
    cases = _chunks_with_errors(LIT / test, prefix)
    assert cases, test
    for index, chunk, message in cases:
        main = GpuAllocOptMain(["-", "--allow-unregistered-dialect", "-p", pipeline])
        output, diagnostics = main._diagnose(chunk.encode(), 0)
        errors = [d for d in diagnostics if d.kind == "error"]
        assert output is None and len(errors) == 1, (test, index, diagnostics)
        assert message in errors[0].message, (test, index)
        assert errors[0].span is not None, f"{test} chunk {index}: unlocated: {message}"
        line = errors[0].span.get_location().line
        good = tmp_path / f"good{index}.mlir"
        good.write_text(_annotated(chunk, line, message))
        assert _run(good, pipeline, capsys) is None, (test, index)
        wrong_message = tmp_path / f"wrong{index}.mlir"
        wrong_message.write_text(_annotated(chunk, line, "not " + message))
        problems = _run(wrong_message, pipeline, capsys)
        assert problems is not None and "unexpected error: " in problems
        assert f'expected error "not {message}" was not produced' in problems
        wrong_line = tmp_path / f"line{index}.mlir"
        wrong_line.write_text(_annotated(chunk, line, message).replace("@+1", "@+2", 1))
        assert _run(wrong_line, pipeline, capsys) is not None, (test, index)


def test_designators_name_the_lines_mlir_opt_does():
    text = "\n".join(
        [
            "op0",  # 1
            "// expected-error@below {{a}}",  # 2 -> 4
            "// expected-error@below {{b}}",  # 3 -> 4
            "op1",  # 4
            "// expected-remark@above {{c}}",  # 5 -> 4
            "op2 // expected-note {{d}}",  # 6 -> 6
            "// expected-warning-re@-6 {{e{{.*}}f}}",  # 7 -> 1
            "// expected-error@+1 {{g}} expected-remark@+1 {{h}}",  # 8 -> 9
        ]
    )
    found = [(e.kind, e.line, e.message, e.is_regex) for e in parse_expectations(text)]
    assert found == [
        ("error", 4, "a", False),
        ("error", 4, "b", False),
        ("remark", 4, "c", False),
        ("note", 6, "d", False),
        ("warning", 1, "e{{.*}}f", True),
        ("error", 9, "g", False),
        ("remark", 9, "h", False),
    ]


def test_annotations_are_read_as_mlir_opt_reads_them():
    """Issue 30: `expected-remark @below {{...}}` (a space before `@`) was ignored, and an
    `-re` message was cut at its first `}}`, so a `{{[0-9]+}}` group never matched."""
    text = "\n".join(
        [
            "// expected-remark @below {{a}}",  # 1 -> 2
            "op0",  # 2
            "// expected-error-re @+1 {{kernel 'k2' needs {{[0-9]+}} bytes (of {{.*}})}}",  # -> 4
            "op1",  # 4
        ]
    )
    found = parse_expectations(text)
    assert [(e.kind, e.line, e.message, e.is_regex) for e in found] == [
        ("remark", 2, "a", False),
        ("error", 4, "kernel 'k2' needs {{[0-9]+}} bytes (of {{.*}})", True),
    ]
    regex = found[1]
    assert regex.matches("error", 4, "kernel 'k2' needs 60000 bytes (of shared memory)")
    # Outside the groups the text is literal: '(' and '.' are no regex there.
    assert not regex.matches("error", 4, "kernel 'k2' needs 60000 bytes of shared memory")
    assert not regex.matches("error", 4, "kernel 'k2' needs many bytes (of shared memory)")


@pytest.mark.skipif(not have_mlir_opt(), reason="mlir-opt-22 is not installed")
def test_input_only_mlir_reads_has_its_diagnostics_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Issue 30: --verify-diagnostics did not use the MLIR bridge, so a file that needs it
    could not have its errors and remarks checked (xegpu is a dialect only MLIR reads)."""
    kernel = "\n".join(
        [
            "gpu.module @m {",
            "  // expected-error @below {{kernel 'k' needs 280000 bytes of shared memory}}",
            "  gpu.func @k(%a: memref<8x16xf16>, %n: index) kernel {",
            "    %c0 = arith.constant 0 : index",
            "    %t = xegpu.create_nd_tdesc %a[%c0, %c0] : memref<8x16xf16>"
            " -> !xegpu.tensor_desc<8x16xf16>",
            "    %f = memref.alloc() : memref<70000xf32, #gpu.address_space<workgroup>>",
            "    gpu.return",
            "  }",
            "}",
        ]
    )
    good = tmp_path / "good.mlir"
    good.write_text(kernel)
    assert _run(good, "import-gpu-allocs,fuse-gpu-allocs", capsys) is None
    wrong = tmp_path / "wrong.mlir"
    wrong.write_text(kernel.replace("280000", "280001"))
    problems = _run(wrong, "import-gpu-allocs,fuse-gpu-allocs", capsys)
    assert problems is not None and "unexpected error: kernel 'k' needs 280000" in problems


INVALID_INPUT = '%a = "gpu_alloc.alloc"() <{name = "f"}> : () -> memref<16xf32>\n'


@pytest.mark.parametrize("pipeline", [[], ["-p", "flatten-aliases"]])
def test_invalid_input_is_a_diagnostic_not_an_internal_error(
    pipeline: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    """Issue 19: with -p this printed `internal error: _InvalidPassOutput`; without, the
    invalid module with exit 0. Unannotated input keeps xDSL's convention: the message on
    stdout, exit 0; annotated, it is checked."""
    path = tmp_path / "bad.mlir"
    path.write_text(INVALID_INPUT)
    GpuAllocOptMain([str(path), "--verify-diagnostics", *pipeline]).run()
    out = capsys.readouterr()
    assert out.out == (
        "gpu_alloc.alloc result must be a memref in memory space 1 (global), 3 (shared) or "
        "5 (private), got memref<16xf32>\n"
    )
    assert "internal error" not in out.err
    path.write_text("// expected-error@+1 {{got memref<16xf32>}}\n" + INVALID_INPUT)
    GpuAllocOptMain([str(path), "--verify-diagnostics", *pipeline]).run()
    assert capsys.readouterr().out == ""
    path.write_text("// expected-error@+1 {{got memref<32xf32>}}\n" + INVALID_INPUT)
    with pytest.raises(UserInputError, match=r"bad.mlir:2:1: error: unexpected error: gpu_alloc"):
        GpuAllocOptMain([str(path), "--verify-diagnostics", *pipeline]).run()
