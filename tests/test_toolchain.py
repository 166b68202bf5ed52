"""Finding mlir-opt-22 and ptxas, and reading mlir-opt's PTX back."""

from __future__ import annotations

import pytest
from gpu_alloc.lowering import toolchain
from gpu_alloc.lowering.llvm.mlir_backend import ptx_from_mlir_output, unescape_mlir_string
from gpu_alloc.lowering.toolchain import ToolchainError, find_mlir_opt, find_ptxas


@pytest.fixture
def empty_path(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv(toolchain.MLIR_OPT_ENV, raising=False)
    monkeypatch.delenv(toolchain.PTXAS_ENV, raising=False)
    monkeypatch.setattr(toolchain, "_wheel_ptxas", lambda: None)
    return tmp_path


def test_missing_mlir_opt_says_what_to_install(empty_path):
    with pytest.raises(ToolchainError) as error:
        find_mlir_opt()
    message = str(error.value)
    assert "\n" not in message
    assert "apt-get install mlir-22-tools" in message and "XDSL_MLIR_OPT" in message


def test_missing_ptxas_says_what_to_install(empty_path):
    with pytest.raises(ToolchainError) as error:
        find_ptxas()
    message = str(error.value)
    assert "\n" not in message
    assert "pip install 'gpu-alloc[ptx]'" in message


def test_xdsl_mlir_opt_comes_before_path(empty_path, monkeypatch):
    tool = empty_path / "my-mlir-opt"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    (empty_path / "mlir-opt-22").write_text("#!/bin/sh\n")
    (empty_path / "mlir-opt-22").chmod(0o755)
    monkeypatch.setenv(toolchain.MLIR_OPT_ENV, "my-mlir-opt")
    assert find_mlir_opt() == str(tool)


def test_ptxas_from_the_nvcc_wheel_when_not_on_path(empty_path, monkeypatch):
    wheel = empty_path / "nvidia" / "cu13" / "bin" / "ptxas"
    monkeypatch.setattr(toolchain, "_wheel_ptxas", lambda: wheel)
    assert find_ptxas() == str(wheel)


def test_mlir_string_escapes_are_undone():
    assert unescape_mlir_string(r"a\0A\09b\22c\\d") == 'a\n\tb"c\\d'


def test_ptx_is_read_per_gpu_binary():
    output = (
        'module {\n  gpu.binary @one  [#gpu.object<#nvvm.target<chip = "sm_90">, '
        'properties = {O = 2 : i32}, assembly = ".version 8.0\\0A.entry a\\0A">]\n'
        '  gpu.binary @two  [#gpu.object<#nvvm.target<chip = "sm_90">, '
        'assembly = "// \\22quoted\\22\\0A">]\n}\n'
    )
    assert ptx_from_mlir_output(output) == {
        "one": ".version 8.0\n.entry a\n",
        "two": '// "quoted"\n',
    }


@pytest.fixture
def no_libdevice(empty_path, monkeypatch):
    for variable in (toolchain.LIBDEVICE_ENV, *toolchain.CUDA_HOME_VARIABLES):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setattr(toolchain, "DEFAULT_CUDA_HOME", str(empty_path / "no-cuda"))
    monkeypatch.setattr(toolchain, "_wheel_file", lambda relatives, executable: None)
    return empty_path


def test_missing_libdevice_is_named_with_what_to_install(no_libdevice):
    with pytest.raises(ToolchainError) as error:
        toolchain.find_libdevice()
    message = str(error.value)
    assert "\n" not in message
    assert "libdevice.10.bc" in message and "nvidia-cuda-nvcc-cu12" in message
    assert "CUDA_HOME" in message and toolchain.LIBDEVICE_ENV in message


def test_libdevice_is_found_under_cuda_home(no_libdevice, monkeypatch):
    library = no_libdevice / "cuda" / "nvvm" / "libdevice" / "libdevice.10.bc"
    library.parent.mkdir(parents=True)
    library.write_bytes(b"BC")
    monkeypatch.setenv("CUDA_HOME", str(no_libdevice / "cuda"))
    assert toolchain.find_libdevice() == str(library)
    monkeypatch.setenv(toolchain.LIBDEVICE_ENV, str(no_libdevice / "missing.bc"))
    with pytest.raises(ToolchainError, match="GPU_ALLOC_LIBDEVICE=.*is not a file"):
        toolchain.find_libdevice()


def test_mlir_backend_links_libdevice_for_math_only(no_libdevice, monkeypatch):
    from gpu_alloc.lowering.llvm.mlir_backend import pipeline
    from gpu_alloc.targets import resolve
    from lowering_support import parse

    monkeypatch.setenv(toolchain.LIBDEVICE_ENV, __file__)
    sm_80 = resolve(chip="sm_80")
    math = parse(
        "builtin.module {\n  gpu.module @m {\n    gpu.func @k(%x: f32) kernel {\n"
        "      %y = math.exp %x : f32\n      gpu.return\n    }\n  }\n}\n"
    )
    option = f"--nvvm-attach-target=chip=sm_80 features=+ptx78 l={__file__}"
    assert pipeline(sm_80, 78, math)[0] == option
    plain = parse("builtin.module {\n  gpu.module @m {\n  }\n}\n")
    assert option not in pipeline(sm_80, 78, plain)
