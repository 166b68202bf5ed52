"""Issue 10 §7: what a tool prints, the same tool reads (`gpu_alloc.xdsl_fixes`), and
issue 15 §2: `gpu-alloc-opt` verifies the input and the output, between passes only with
`--verify-each`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from fuzz_cli import run_tool
from gpu_alloc.errors import UserInputError
from gpu_alloc.tools import opt, reader
from xdsl.dialects import arith
from xdsl.passes import ModulePass

NON_ASCII_NAME = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %f = "gpu_alloc.alloc"() <{name = "é名"}> : () -> memref<17xi32, 3 : i32>
      memref.store %v, %f[%c0] : memref<17xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""

EXECUTE_REGION = """\
func.func @f() -> i32 {
  scf.execute_region {
    %c = arith.constant 1 : i32
    scf.yield
  }
  %r = scf.execute_region -> (i32) {
    %d = arith.constant 2 : i32
    scf.yield %d : i32
  }
  func.return %r : i32
}
"""


def print_twice(tmp_path: Path, text: str, *args: str) -> tuple[str, str]:
    source = tmp_path / "in.mlir"
    source.write_text(text)
    first = run_tool("opt", [str(source), *args])
    assert first.code == 0, first.err
    printed = tmp_path / "printed.mlir"
    printed.write_text(first.out)
    second = run_tool("opt", [str(printed)])
    assert second.code == 0, second.err
    return first.out, second.out


@pytest.mark.parametrize("args", [(), ("-p", "fuse-gpu-allocs"), ("--print-op-generic",)])
def test_non_ascii_names_read_back(tmp_path: Path, args: tuple[str, ...]):
    first, second = print_twice(tmp_path, NON_ASCII_NAME, *args)
    assert r"\C3\A9\E5\90\8D" in first  # MLIR's escaping of the UTF-8 bytes
    if not args:
        assert first == second


def test_execute_region_keeps_its_yield(tmp_path: Path):
    first, second = print_twice(tmp_path, EXECUTE_REGION)
    assert first == second
    assert first.count("scf.yield") == 2


def test_stock_xdsl_opt_is_not_patched(tmp_path: Path):
    """The `xdsl.universe` entry point imports this package, which patches nothing (issue 31
    §2): the stock driver keeps xDSL 0.75's printer, which drops the region's `scf.yield`
    (docs/xdsl-upstream.md), while `gpu-alloc-opt` installs the fix at its start."""
    source = tmp_path / "in.mlir"
    source.write_text(EXECUTE_REGION)
    outputs = {}
    for tool in ("xdsl-opt", "gpu-alloc-opt"):
        result = subprocess.run(
            [str(Path(sys.executable).parent / tool), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        outputs[tool] = result.stdout
    assert outputs["xdsl-opt"].count("scf.yield") == 1
    assert outputs["gpu-alloc-opt"].count("scf.yield") == 2


class BreakDominance(ModulePass):
    """A broken pass for the test: moves a constant after its first user."""

    name = "break-dominance"

    def apply(self, ctx, op) -> None:
        constant = next(o for o in op.walk() if isinstance(o, arith.ConstantOp))
        user = next(iter(constant.result.uses)).operation
        constant.detach()
        assert user.parent_block() is not None
        user.parent_block().insert_op_after(constant, user)  # type: ignore[union-attr]


class CountVerifications:
    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.calls = 0
        original = opt.first_invalid_op

        def counting(module):
            self.calls += 1
            return original(module)

        monkeypatch.setattr(opt, "first_invalid_op", counting)  # the output, each pass
        monkeypatch.setattr(reader, "first_invalid_op", counting)  # the input


def run_main(tmp_path: Path, args: list[str], extra_pass: type[ModulePass] | None = None):
    source = tmp_path / "in.mlir"
    source.write_text(NON_ASCII_NAME)

    def body() -> None:
        main = opt.GpuAllocOptMain([str(source), *args])
        if extra_pass is not None:
            main.available_passes[extra_pass.name] = lambda: extra_pass
            main.args.passes = f"{main.args.passes},{extra_pass.name}".strip(",")
            main.setup_pipeline()
        main.run()

    return body


def test_verifies_input_and_output_only_by_default(tmp_path: Path, monkeypatch, capsys):
    counter = CountVerifications(monkeypatch)
    passes = "fuse-gpu-allocs,remove-dead-allocs,flatten-aliases"
    run_main(tmp_path, ["-p", passes])()
    assert counter.calls == 2
    counter.calls = 0
    run_main(tmp_path, ["-p", passes, "--verify-each"])()
    assert counter.calls == 4
    capsys.readouterr()


def test_invalid_pass_output_is_an_internal_error_at_the_op(tmp_path: Path, capsys):
    with pytest.raises(UserInputError) as error:
        run_main(tmp_path, [], BreakDominance)()
    first = str(error.value).splitlines()[0]
    assert first.startswith(str(tmp_path / "in.mlir") + ":7:7: error: internal error: the output")
    assert "of pass 'break-dominance' does not verify: operand #2 of 'memref.store' (%c0)" in first
