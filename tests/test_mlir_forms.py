"""MLIR's syntax, form by form: every case in tests/mlir_forms is read by the embedded
parser with no unregistered ops allowed, printed, and read back; mlir-opt-22 reads what
is printed as the same program (its custom print of ours equals its custom print of the
original), from the case as written and from mlir-opt-22's generic print of it."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import corpus
import pytest
from gpu_alloc.lowering.toolchain import have_mlir_opt
from gpu_alloc.tools.diagnostics import parse_with_locations
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.utils.exceptions import ParseError, VerifyException

FORMS = Path(__file__).parent / "mlir_forms"
CASE = re.compile(r"^// ----- (\w+)\n", re.MULTILINE)
needs_mlir = pytest.mark.skipif(not have_mlir_opt(), reason="mlir-opt-22 is not installed")


def cases() -> list[tuple[str, str]]:
    """(name, text): a file is one case, or `// ----- name` sections of it."""
    found: list[tuple[str, str]] = []
    for path in sorted(FORMS.glob("*.mlir")):
        text = path.read_text()
        parts = CASE.split(text)
        if len(parts) == 1:
            found.append((path.stem, text))
            continue
        found += [(f"{path.stem}.{parts[i]}", parts[i + 1]) for i in range(1, len(parts), 2)]
    return found


CASES = cases()
IDS = [name for name, _ in CASES]


def strict_parse(text: str) -> ModuleOp:
    """Parsed and verified with only this project's dialects: nothing is unregistered."""
    ctx = Context()
    register_dialects(ctx)
    module, _ = parse_with_locations(ctx, text.encode(), "<form>")
    module.verify()
    return module


def mlir_opt(text: str, *flags: str) -> str:
    done = subprocess.run(
        ["mlir-opt-22", *flags],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_forms_cover_the_dialects():
    dialects = {name.split(".")[0] for name in IDS}
    assert dialects >= {"affine", "amdgpu", "attributes", "gpu", "index", "memref", "nvgpu"}
    assert {"linalg", "scf", "vector"} <= dialects and len(CASES) >= 20


@pytest.mark.parametrize(("name", "text"), CASES, ids=IDS)
def test_form_reads_prints_and_reads_back(name: str, text: str):
    module = strict_parse(text)
    assert not any(isinstance(op, UnregisteredOp) for op in module.walk()), name
    printed = corpus.print_module(module)
    assert corpus.print_module(strict_parse(printed)) == printed


@needs_mlir
@pytest.mark.parametrize(("name", "text"), CASES, ids=IDS)
@pytest.mark.parametrize("form", ["custom", "generic"])
def test_mlir_reads_the_print_as_the_same_program(name: str, text: str, form: str):
    expected = mlir_opt(text)
    given = text if form == "custom" else mlir_opt(text, "--mlir-print-op-generic")
    printed = corpus.print_module(strict_parse(given))
    assert mlir_opt(printed) == expected, (name, printed)


def test_custom_form_of_an_op_nobody_defines_is_one_message_naming_it():
    text = """func.func @f(%a: memref<8x16xf16>) {
  %c0 = arith.constant 0 : index
  %t = xegpu.create_nd_tdesc %a[%c0, %c0] : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
  return
}"""
    with pytest.raises(ParseError) as info:
        corpus.parse(text)
    assert "operation 'xegpu.create_nd_tdesc' is not defined here" in info.value.msg
    assert "mlir-opt --mlir-print-op-generic" in info.value.msg
    with pytest.raises(ParseError) as strict:
        strict_parse(text)
    assert "pass --allow-unregistered-dialect" in strict.value.msg


def test_a_quoted_unknown_op_is_still_read_when_unregistered_ops_are_allowed():
    text = '"xegpu.create_nd_tdesc"() : () -> ()'
    module = corpus.parse(text)
    assert [op.op_name.data for op in module.walk() if isinstance(op, UnregisteredOp)] == [
        "xegpu.create_nd_tdesc"
    ]


@pytest.mark.parametrize(
    ("dst", "src", "ok"),
    [
        ("memref<?x16xf32>", "memref<4x16xf32>", True),
        ("memref<?xf32>", "memref<65536xf32>", True),
        ("memref<8x16xf32>", "memref<4x16xf32>", False),
        ("memref<4x16xf32>", "memref<4x16xf16>", False),
        ("memref<64xf32>", "memref<4x16xf32>", False),
    ],
)
def test_gpu_memcpy_needs_compatible_not_equal_shapes(dst: str, src: str, ok: bool):
    text = f"""func.func @f(%d: {dst}, %s: {src}) {{
  gpu.memcpy %d, %s : {dst}, {src}
  return
}}"""
    if ok:
        module = strict_parse(text)
        assert any(isinstance(op, gpu.MemcpyOp) for op in module.walk())
        return
    with pytest.raises(VerifyException, match="gpu.memcpy: arguments have incompatible"):
        strict_parse(text)


@needs_mlir
def test_mlir_agrees_on_which_memcpy_shapes_are_compatible():
    for dst, src, ok in (
        ("memref<?x16xf32>", "memref<4x16xf32>", True),
        ("memref<8x16xf32>", "memref<4x16xf32>", False),
    ):
        text = f"func.func @f(%d: {dst}, %s: {src}) {{ gpu.memcpy %d, %s : {dst}, {src}\n return }}"
        done = subprocess.run(
            ["mlir-opt-22", "-o", "/dev/null"],
            input=text,
            capture_output=True,
            text=True,
            check=False,
        )
        assert (done.returncode == 0) == ok, done.stderr
