"""The MLIR bridge (tools/mlir_bridge.py): what the embedded parser cannot read goes
through mlir-opt-22, with a remark; diagnostics still point into the user's file; without
MLIR, or with --mlir-bridge=never, the embedded parser's error stands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.errors import UserInputError
from gpu_alloc.lowering import toolchain
from gpu_alloc.lowering.toolchain import have_mlir_opt
from gpu_alloc.source_lines import source_line
from gpu_alloc.tools import mlir_bridge
from gpu_alloc.tools.mlir_bridge import read_module
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import UnregisteredOp

needs_mlir = pytest.mark.skipif(not have_mlir_opt(), reason="mlir-opt-22 is not installed")

# xegpu is one of MLIR's dialects that this project does not define: line 4 is custom
# form only MLIR reads. %f and %g have disjoint lifetimes.
KERNEL = """\
gpu.module @m {
  gpu.func @k(%a: memref<8x16xf16>, %out: memref<64xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %t = xegpu.create_nd_tdesc %a[%c0, %c0] : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>
    %tid = gpu.thread_id x
    %f = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %g = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %z = arith.constant 1.0 : f32
    memref.store %z, %f[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %f[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    memref.store %v, %g[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %w = memref.load %g[%tid] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tid] : memref<64xf32>
    gpu.return
  }
}
"""
STOPS_AT = ":4:10: the embedded parser stops here (operation 'xegpu.create_nd_tdesc' is not defined"
THREAD_SIZED = KERNEL.replace(
    "    %z = arith.constant",
    "    %h = memref.alloc(%tid) : memref<?xf32, #gpu.address_space<workgroup>>\n    %z = arith.constant",
)
BAD_FOR_MLIR_TOO = KERNEL.replace("xegpu.create_nd_tdesc %a", "xegpu.no_such_op %a")


def run_opt(
    path: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "gpu_alloc.tools.opt", str(path), *args]
    return subprocess.run(command, capture_output=True, text=True, check=False, env=env)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "kernel.mlir"
    path.write_text(text)
    return path


@needs_mlir
def test_bridged_kernel_is_fused_with_a_remark_where_the_embedded_parser_stopped(tmp_path: Path):
    path = write(tmp_path, KERNEL)
    done = run_opt(path, "-p", "import-gpu-allocs,fuse-gpu-allocs")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"gpu-alloc-opt: remark: {path}{STOPS_AT}")
    assert "read through" in done.stderr and "--mlir-print-op-generic" in done.stderr
    assert '"xegpu.create_nd_tdesc"(' in done.stdout  # kept, as MLIR's generic form
    assert done.stdout.count("gpu_alloc.alloc ") == 1 and "backing" in done.stdout
    lowered = run_opt(
        path, "-p", "import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs"
    )
    assert (
        'sym_name = "k__shared_alloc", type = memref<256xi8, #gpu.address_space<workgroup>>'
        in lowered.stdout
    )
    reread = subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "-o", "/dev/null"],
        input=lowered.stdout,
        capture_output=True,
        text=True,
        check=False,
    )
    assert reread.returncode == 0, reread.stderr


@needs_mlir
def test_pass_error_in_a_bridged_file_points_at_the_users_line(tmp_path: Path):
    path = write(tmp_path, "\n// -----\n" + THREAD_SIZED)  # the kernel is the second chunk
    done = run_opt(path, "--split-input-file", "-p", "import-gpu-allocs,fuse-gpu-allocs")
    assert f"{path}:{2 + 4}:10: the embedded parser stops here" in done.stderr
    lines = done.stderr.splitlines()
    error = next(line for line in lines if ": error: " in line)
    assert error.startswith(f"{path}:{2 + 8}:10: error: the size of allocation 'h' depends")
    assert "%h = memref.alloc(%tid)" in lines[lines.index(error) + 1]


@needs_mlir
def test_when_mlir_cannot_read_it_either_both_errors_are_one_line(tmp_path: Path):
    path = write(tmp_path, "\n// -----\n" + BAD_FOR_MLIR_TOO)
    done = run_opt(path, "--split-input-file", "-p", "import-gpu-allocs")
    assert done.returncode == 1 and "remark" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{path}:6:10: error: operation 'xegpu.no_such_op' is not defined")
    assert "cannot read it either: 6:10: custom op 'xegpu.no_such_op' is unknown" in first


@needs_mlir
@pytest.mark.parametrize(
    ("ptr", "column", "message"),
    [
        ("<>", 41, "attribute expected"),
        ('<"x">', 41, 'takes a memory space number (1, 3 or 5), got "x"'),
    ],
)
def test_what_mlir_only_passes_through_is_the_embedded_parsers_located_error(
    tmp_path: Path, ptr: str, column: int, message: str
):
    """MLIR reads a `gpu_alloc` type as an unregistered one, so its generic form holds
    the same mistake: the user's line is the diagnostic, never an internal error."""
    path = write(tmp_path, f'%p = "test.op"() : () -> !gpu_alloc.ptr{ptr}\n')
    done = run_opt(path, "--allow-unregistered-dialect")
    assert done.returncode == 1 and done.stdout == "" and "remark" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{path}:1:{column}: error: ")
    assert message in first and "internal error" not in done.stderr
    assert first.endswith("passes it through unchecked)")


def test_never_mode_keeps_the_embedded_error_and_asks_mlir_nothing(tmp_path: Path):
    path = write(tmp_path, KERNEL)
    done = run_opt(path, "--mlir-bridge=never", "-p", "import-gpu-allocs")
    assert done.returncode == 1 and "remark" not in done.stderr
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{path}:4:10: error: operation 'xegpu.create_nd_tdesc' is not defined")
    assert first.endswith("as mlir-opt --mlir-print-op-generic writes it)")


def test_a_named_mlir_opt_that_is_not_there_is_said(tmp_path: Path):
    path = write(tmp_path, KERNEL)
    env = {**__import__("os").environ, toolchain.MLIR_OPT_ENV: str(tmp_path / "no-mlir-opt")}
    done = run_opt(path, "-p", "import-gpu-allocs", env=env)
    assert done.returncode == 1
    assert "(the MLIR bridge cannot run: XDSL_MLIR_OPT=" in done.stderr.splitlines()[0]


def test_without_mlir_the_error_names_what_would_read_the_input(monkeypatch: pytest.MonkeyPatch):
    def missing() -> str:
        raise toolchain.ToolchainError("mlir-opt-22 not found")

    monkeypatch.setattr(mlir_bridge, "find_mlir_opt", missing)
    monkeypatch.delenv(toolchain.MLIR_OPT_ENV, raising=False)
    ctx = Context()
    register_dialects(ctx)
    with pytest.raises(UserInputError) as info:
        read_module(ctx, KERNEL.encode(), "kernel.mlir")
    message = str(info.value)
    assert message.startswith("kernel.mlir:4:10: error: operation 'xegpu.create_nd_tdesc'")
    assert (
        "with MLIR 22's mlir-opt-22 installed, gpu-alloc-opt reads such input through it" in message
    )


def test_what_the_embedded_parser_reads_never_goes_to_mlir(monkeypatch: pytest.MonkeyPatch):
    def must_not_run() -> str:
        raise AssertionError("mlir-opt was asked")

    monkeypatch.setattr(mlir_bridge, "find_mlir_opt", must_not_run)
    ctx = Context()
    register_dialects(ctx)
    text = KERNEL.replace(
        "    %t = xegpu.create_nd_tdesc %a[%c0, %c0] : memref<8x16xf16> -> !xegpu.tensor_desc<8x16xf16>\n",
        "",
    )
    module, _ = read_module(ctx, text.encode(), "kernel.mlir")
    assert not any(isinstance(op, UnregisteredOp) for op in module.walk())


@needs_mlir
def test_bridged_ops_are_located_in_the_users_file():
    ctx = Context()
    register_dialects(ctx)
    module, source_map = read_module(
        ctx, ("\n" * 5 + KERNEL).encode(), "kernel.mlir", line_offset=10
    )
    assert not ctx.allow_unregistered  # restored after reading MLIR's output
    xegpu = next(op for op in module.walk() if isinstance(op, UnregisteredOp))
    span = source_map.op_spans[xegpu]
    assert span.get_location().line == 5 + 4
    assert span.text == "x"  # MLIR locates an op at its name
    barrier = next(op for op in module.walk() if op.name == "gpu.barrier")
    assert source_line(barrier) == 10 + 5 + 10  # for the profile and the pictures
