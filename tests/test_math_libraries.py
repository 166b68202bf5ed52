"""`math` ops call each target's math library: libdevice on NVIDIA, OpenCL builtins on
SPIR-V, ROCm's ocml on AMD when ROCm's device libraries are installed (and otherwise one
located line naming what to install).

ROCm's own libraries are not vendored: the AMD tests build a stand-in folder with
llvmlite (an `ocml.bc` whose `__ocml_exp_f32` reads the `oclc` control variables the
real one reads, and one-variable control files), which is enough to show which files
are linked for which chip and that the call is resolved inside the code object.
"""

from __future__ import annotations

from pathlib import Path

import llvmlite.binding as llvm_binding
import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering import emit_amdgcn, emit_spirv_assembly
from gpu_alloc.lowering.tool_checks import shared_bytes_by_tool
from gpu_alloc.lowering.toolchain import ROCM_DEVICE_LIBS_ENV, ToolchainError, find_math_library
from gpu_alloc.targets import TARGETS, resolve
from lowering_support import parse

AMD = TARGETS["amdgcn"]

EXP_KERNEL = """
builtin.module {
  gpu.module @m {
    gpu.func @k(%x: memref<64xf32, 1>) kernel {
      %t = gpu.thread_id x
      %v = memref.load %x[%t] : memref<64xf32, 1>
      %e = math.exp %v : f32
      memref.store %e, %x[%t] : memref<64xf32, 1>
      gpu.return
    }
  }
}
"""

OCML = """target triple = "amdgcn-amd-amdhsa"
@__oclc_finite_only_opt = external addrspace(4) constant i8
@__oclc_ISA_version = external addrspace(4) constant i32
define float @__ocml_exp_f32(float %x) {
  %finite = load i8, ptr addrspace(4) @__oclc_finite_only_opt
  %isa = load i32, ptr addrspace(4) @__oclc_ISA_version
  %scale = sitofp i32 %isa to float
  %e = call float @llvm.exp.f32(float %x)
  %s = fmul float %e, %scale
  ret float %s
}
declare float @llvm.exp.f32(float)
"""


def _control(name: str, value: int, bits: int = 8) -> str:
    return (
        'target triple = "amdgcn-amd-amdhsa"\n'
        f"@{name} = linkonce_odr protected addrspace(4) constant i{bits} {value}, align 1\n"
    )


def _bitcode(text: str) -> bytes:
    module = llvm_binding.parse_assembly(text)
    module.verify()
    return module.as_bitcode()


@pytest.fixture
def rocm_device_libs(tmp_path, monkeypatch) -> Path:
    """A stand-in for ROCm's amdgcn/bitcode folder, for gfx942 (ISA version 9402)."""
    files = {
        "ocml.bc": OCML,
        "oclc_finite_only_off.bc": _control("__oclc_finite_only_opt", 0),
        "oclc_unsafe_math_off.bc": _control("__oclc_unsafe_math_opt", 0),
        "oclc_daz_opt_off.bc": _control("__oclc_daz_opt", 0),
        "oclc_correctly_rounded_sqrt_on.bc": _control("__oclc_correctly_rounded_sqrt32", 1),
        "oclc_isa_version_942.bc": _control("__oclc_ISA_version", 9402, 32),
        "oclc_wavefrontsize64_on.bc": _control("__oclc_wavefrontsize64", 1),
    }
    for name, text in files.items():
        (tmp_path / name).write_bytes(_bitcode(text))
    monkeypatch.setenv(ROCM_DEVICE_LIBS_ENV, str(tmp_path))
    return tmp_path


def test_amd_math_links_ocml_and_the_chip_files(rocm_device_libs):
    linked = find_math_library(AMD.math, AMD.chip("gfx942"))
    assert [Path(p).name for p in linked][-2:] == [
        "oclc_isa_version_942.bc",
        "oclc_wavefrontsize64_on.bc",
    ]
    assembly = emit_amdgcn(parse(EXP_KERNEL), chip="gfx942")
    assert "__ocml_exp_f32" not in assembly  # linked, inlined, internal: no call is left
    assert "v_exp_f32" in assembly
    assert "0x4612e800" in assembly  # 9402.0: the ISA version the gfx942 file holds
    assert shared_bytes_by_tool(assembly, resolve(chip="gfx942"), 0) == {"k": 0}


def test_amd_math_needs_the_chip_isa_file(rocm_device_libs):
    with pytest.raises(GpuAllocPassError) as error:
        emit_amdgcn(parse(EXP_KERNEL), chip="gfx90a")
    assert "has no oclc_isa_version_90a.bc (for gfx90a)" in error.value.message


def test_amd_math_without_rocm_names_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv(ROCM_DEVICE_LIBS_ENV, str(tmp_path))
    with pytest.raises(ToolchainError, match="apt-get install rocm-device-libs"):
        find_math_library(AMD.math, AMD.chip("gfx942"))
    with pytest.raises(GpuAllocPassError) as error:
        emit_amdgcn(parse(EXP_KERNEL))
    message = error.value.message
    assert message.startswith("'math.exp' calls the math library: ROCm's device libraries")
    assert "\n" not in message and error.value.op is not None
    assert error.value.op.name == "math.exp"


def test_spirv_math_is_an_opencl_instruction():
    assembly = emit_spirv_assembly(parse(EXP_KERNEL))
    assert 'OpExtInstImport "OpenCL.std"' in assembly
    assert " exp " in assembly


def test_nvidia_math_library_is_libdevice():
    (path,) = find_math_library(TARGETS["ptx"].math, TARGETS["ptx"].chip("sm_90"))
    assert path.endswith("libdevice.10.bc")
