"""MLIR's GPU syntax in, `import-gpu-allocs`, and the no-silent-no-op diagnostics."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corpus
import pytest
from gpu_alloc.dialect import AllocOp
from gpu_alloc.dialect.spellings import space_number
from gpu_alloc.sim import simulate
from gpu_alloc.syntax.mlir_gpu import AddressSpace, GpuAddressSpaceAttr
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, UnregisteredOp, i32
from xdsl.utils.exceptions import ParseError

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mlir_transpose.mlir"


def run_opt(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "gpu_alloc.tools.opt", *args]
    return subprocess.run(command, input=stdin, capture_output=True, text=True, check=False)


def test_address_spaces_are_the_nvvm_numbers():
    for word, number in (("global", 1), ("workgroup", 3), ("private", 5)):
        assert space_number(GpuAddressSpaceAttr(AddressSpace(word))) == number
    assert space_number(IntegerAttr(3, i32)) == 3


def test_unknown_address_space_is_a_parse_error():
    text = "func.func @f(%a: memref<4xf32, #gpu.address_space<shared>>) { return }"
    with pytest.raises(ParseError, match="Expected `global`, `workgroup`, or `private`"):
        corpus.parse(text)


def test_quoted_generic_name_inside_gpu_func_is_unregistered_not_gpu_terminator():
    module = corpus.parse(
        'gpu.module @m { gpu.func @f() { "terminator"() : () -> ()  barrier  gpu.return } }'
    )
    func = next(op for op in module.walk() if isinstance(op, gpu.FuncOp))
    ops = list(func.body.ops)
    assert isinstance(ops[0], UnregisteredOp) and ops[0].op_name.data == "terminator"
    assert isinstance(ops[1], gpu.BarrierOp)  # a bare name still gets the region's dialect


def test_import_is_idempotent_and_leaves_no_workgroup_memref_alloc():
    module = corpus.parse(EXAMPLE.read_text())
    assert import_gpu_allocs(module) == []
    first = corpus.print_module(module)
    assert import_gpu_allocs(module) == []
    assert corpus.print_module(module) == first
    names = sorted(op.alloc_name.data for op in module.walk() if isinstance(op, AllocOp))
    assert names == ["acc", "flipped", "result", "tile"]
    assert "memref.alloc" not in first
    # the types the user wrote are printed back as written
    assert 'gpu_alloc.alloc "tile" : memref<32x32xf32, #gpu.address_space<workgroup>>' in first
    assert "3 : i32" not in first


def test_mlir_example_simulates_the_same_before_and_after_fusion():
    """The imported kernel and the fused, flattened and lowered one compute the same."""
    result = corpus.run_chunk("mlir_transpose.mlir", 0, EXAMPLE.read_text())
    assert result.imported is not None and result.output is not None
    before = simulate(result.imported, grid=(2, 2), block=(32, 32))
    after = simulate(corpus.parse(result.output), grid=(2, 2), block=(32, 32))
    assert before.race_count == 0 and after.race_count == 0
    assert [a.sha256 for a in before.arguments] == [a.sha256 for a in after.arguments]
    assert "transpose__shared_alloc" in result.output
    # 3 x 4096 B fused into 8192 B, in the spelling of the Funcs it holds
    assert "memref<8192xi8, #gpu.address_space<workgroup>>" in result.output


def test_fuse_says_when_there_is_no_kernel():
    result = run_opt("-p", "fuse-gpu-allocs", stdin="func.func @f() { return }\n")
    assert result.returncode == 0
    assert "fuse-gpu-allocs: remark: no kernel" in result.stderr


def test_fuse_reports_workgroup_memory_it_does_not_own():
    result = run_opt("-p", "fuse-gpu-allocs", str(EXAMPLE))
    assert result.returncode == 0
    assert "'transpose' has workgroup memory that fuse-gpu-allocs does not own" in result.stderr
    assert "run import-gpu-allocs first" in result.stderr


def test_ptx_with_nothing_to_emit_is_an_error():
    result = run_opt("-t", "ptx", stdin="func.func @f() { return }\n")
    assert result.returncode == 1
    assert result.stdout == ""
    assert "nothing to emit as PTX" in result.stderr


@pytest.mark.parametrize(
    "source, expected",
    [
        (
            "gpu.module @m { gpu.func @k() workgroup(%a : memref<4xf32, 5>) kernel "
            "{ gpu.return } }",
            "workgroup attribution must be a memref in #gpu.address_space<workgroup>, "
            "got memref<4xf32, 5 : i64>",
        ),
        (
            "gpu.module @m { gpu.func @k() private(%a : memref<4xf32, 3>) kernel { gpu.return } }",
            "private attribution must be a memref in #gpu.address_space<private>, "
            "got memref<4xf32, 3 : i64>",
        ),
        (
            "func.func @h() { %c1 = arith.constant 1 : index\n"
            "gpu.launch blocks(%b0, %b1, %b2) in (%g0 = %c1, %g1 = %c1, %g2 = %c1) "
            "threads(%t0, %t1, %t2) in (%s0 = %c1, %s1 = %c1, %s2 = %c1) "
            "workgroup(%w : memref<4xf32, 5>) { gpu.terminator }\nreturn }",
            "gpu.launch workgroup attribution must be a memref in "
            "#gpu.address_space<workgroup>, got memref<4xf32, 5 : i64>",
        ),
    ],
)
def test_attribution_in_the_wrong_space_is_refused(source: str, expected: str):
    """gpu.func and gpu.launch check their attributions with one rule."""
    with pytest.raises(Exception) as error:  # noqa: PT011 (a VerifyException, or a ParseError wrapping it)
        corpus.parse(source).verify()
    assert expected in str(error.value)


DECLARED = """
gpu.module @m {
  func.func private @foo(memref<f32, #gpu.address_space<workgroup>>)
  gpu.func @k(%out: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %passed = memref.alloc() : memref<f32, #gpu.address_space<workgroup>>
    func.call @foo(%passed) : (memref<f32, #gpu.address_space<workgroup>>) -> ()
    %own = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    %x = memref.load %out[%c0] : memref<4xf32>
    memref.store %x, %own[%c0] : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
"""


def _defined_as(output: str, spelling: str) -> str:
    """`output` with the declaration of @foo replaced by a definition of that type."""
    (line,) = [line for line in output.splitlines() if "@foo(" in line and "func.func" in line]
    definition = f"func.func @foo(%a: memref<f32, {spelling}>) {{\n    func.return\n  }}"
    return output.replace(line, "  " + definition)


def test_a_declaration_keeps_the_type_written_and_still_links():
    """issue 19: the declaration was printed with `3 : i32`, to MLIR another type, so a
    definition written as the user wrote it no longer matched its calls. Through the
    whole pipeline the declaration and the call keep the user's type, and mlir-opt-22
    verifies the module with the definition in its place (and refuses it with the
    definition spelled `3 : i32`, which is how the check can fail)."""
    result = run_opt(
        "-p", "import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs", stdin=DECLARED
    )
    assert result.returncode == 0, result.stderr
    output = result.stdout
    assert "func.func private @foo(memref<f32, #gpu.address_space<workgroup>>)" in output
    assert "3 : i32" not in output
    # Both buffers were imported and lowered into one backing (the one passed to the call
    # lives for the whole kernel).
    assert "@k__shared_alloc" in output and 'name = "own"' in output and 'name = "passed"' in output
    for spelling, verifies in (("#gpu.address_space<workgroup>", True), ("3 : i32", False)):
        linked = subprocess.run(
            ["mlir-opt-22", "-o", "/dev/null"],
            input=_defined_as(output, spelling),
            capture_output=True,
            text=True,
            check=False,
        )
        assert (linked.returncode == 0) == verifies, (spelling, linked.stderr)
