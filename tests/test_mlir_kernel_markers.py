"""Issue 27: a kernel in any spelling of `dialect.kernels` is an entry point on every
target's MLIR backend, not only on the embedded one (`mlir_backend.kernels_as_mlir_reads_them`).

MLIR 22's pipelines make entry points of `gpu.func` kernels and of `llvm.func`s carrying
the target's marker: a `func.func {gpu.kernel}` or an `llvm.func` with another vendor's
marker used to come out as a plain device function, with exit code 0.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

OPT = str(Path(sys.executable).parent / "gpu-alloc-opt")

ENTRY = {"ptx": ".entry k(", "amdgcn": ".amdhsa_kernel k", "spirv": "OpEntryPoint Kernel %"}

FUNC_KERNEL = """gpu.module @m {{
  func.func @k(%o: memref<4xf32>) attributes {{{marker}}} {{
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %o[%c0] : memref<4xf32>
    return
  }}
}}
"""

LLVM_KERNEL = """gpu.module @m {{
  llvm.func @k(%p: !llvm.ptr<1>) attributes {{{marker}}} {{
    %c = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %c, %p : f32, !llvm.ptr<1>
    llvm.return
  }}
}}
"""


def _emit(text: str, target: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "k.mlir"
    source.write_text(text)
    return subprocess.run(
        [OPT, "-t", f"{target}{{backend=mlir}}", str(source)],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize("target", list(ENTRY))
@pytest.mark.parametrize("marker", ["gpu.kernel", "nvvm.kernel", "rocdl.kernel"])
def test_a_func_func_kernel_is_an_entry_point(tmp_path: Path, target: str, marker: str):
    done = _emit(FUNC_KERNEL.format(marker=marker), target, tmp_path)
    assert done.returncode == 0, done.stderr
    assert ENTRY[target] in done.stdout


@pytest.mark.parametrize("target", ["ptx", "amdgcn"])
@pytest.mark.parametrize("marker", ["gpu.kernel", "nvvm.kernel", "rocdl.kernel"])
def test_an_llvm_func_kernel_is_an_entry_point(tmp_path: Path, target: str, marker: str):
    done = _emit(LLVM_KERNEL.format(marker=marker), target, tmp_path)
    assert done.returncode == 0, done.stderr
    assert ENTRY[target] in done.stdout


def test_an_llvm_func_kernel_without_spirvs_convention_is_a_located_error(tmp_path: Path):
    done = _emit(LLVM_KERNEL.format(marker="nvvm.kernel"), "spirv", tmp_path)
    assert done.returncode == 1
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'k.mlir'}:2:3: error: kernel 'k' is an llvm.func")
    assert "spir_kernelcc" in first
    assert not done.stdout
