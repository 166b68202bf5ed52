"""The target descriptions (`gpu_alloc.targets`) against the targets' own tools: every
chip is a processor LLVM 22 knows, every AMD chip's LDS limit is the one LLVM's AMDGPU
target enforces (`llc-22`: N bytes compile, N + 1 are "exceeds limit (N)"), every wave
size the one LLVM compiles for (`.amdhsa_wavefront_size32`), and NVIDIA's static-shared
limit the one ptxas enforces."""

from __future__ import annotations

import re
import subprocess

import pytest
from gpu_alloc.lowering.ptx.ptxas import PtxasError, assemble
from gpu_alloc.lowering.toolchain import find_tool
from gpu_alloc.targets import (
    DEFAULT_DEVICE,
    TARGETS,
    TargetOptionError,
    resolve,
    target_of_chip,
)

AMD = TARGETS["amdgcn"]
NVIDIA = TARGETS["ptx"]

LDS_KERNEL = """target triple = "amdgcn-amd-amdhsa"
@lds = internal addrspace(3) global [{bytes} x i8] undef, align 16
define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %i) {{
  %p = getelementptr i8, ptr addrspace(3) @lds, i32 %i
  store i8 1, ptr addrspace(3) %p
  %v = load i8, ptr addrspace(3) @lds
  store i8 %v, ptr addrspace(1) %out
  ret void
}}
"""


def _llc(text: str, triple: str, cpu: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [find_tool("llc"), f"-mtriple={triple}", f"-mcpu={cpu}", "-o", "-"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )


def _llvm_processors(triple: str) -> set[str]:
    listing = subprocess.run(
        [find_tool("llc"), f"-mtriple={triple}", "-mcpu=help"],
        capture_output=True,
        text=True,
        check=False,
    )
    text = listing.stdout + listing.stderr
    return set(re.findall(r"^\s+(\S+)\s+- Select the \S+ processor", text, re.M))


@pytest.mark.parametrize("target", [t for t in TARGETS.values() if t.chips[0].cpu])
def test_every_chip_is_a_processor_llvm_knows(target):
    processors = _llvm_processors(target.triple.format(isa_version_dotted="1.0"))
    assert {chip.cpu for chip in target.chips} <= processors


@pytest.mark.parametrize("chip", AMD.chips, ids=[c.name for c in AMD.chips])
def test_amd_lds_limit_is_the_one_llvm_enforces(chip):
    limit = chip.shared_bytes_per_block
    at_limit = _llc(LDS_KERNEL.format(bytes=limit), AMD.triple, chip.cpu)
    assert at_limit.returncode == 0, at_limit.stderr
    assert f".amdhsa_group_segment_fixed_size {limit}" in at_limit.stdout
    above = _llc(LDS_KERNEL.format(bytes=limit + 1), AMD.triple, chip.cpu)
    assert f"local memory ({limit + 1}) exceeds limit ({limit})" in above.stderr


@pytest.mark.parametrize("chip", AMD.chips, ids=[c.name for c in AMD.chips])
def test_amd_wave_size_is_the_one_llvm_compiles_for(chip):
    compiled = _llc(LDS_KERNEL.format(bytes=16), AMD.triple, chip.cpu)
    wave32 = ".amdhsa_wavefront_size32 1" in compiled.stdout
    assert chip.wave_size == (32 if wave32 else 64)


def _ptx_with_static_shared(size: int) -> str:
    return f""".version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 out)
{{
  .shared .align 16 .b8 tile[{size}];
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.shared.u32 %r1, [tile];
  ld.param.u64 %rd1, [out];
  st.global.u32 [%rd1], %r1;
  ret;
}}
"""


def test_nvidia_static_shared_limit_is_the_one_ptxas_enforces():
    limit = NVIDIA.static_shared_limit
    assert limit is not None
    assert assemble(_ptx_with_static_shared(limit))["k"].shared_bytes == limit
    with pytest.raises(PtxasError, match="too much shared data"):
        assemble(_ptx_with_static_shared(limit + 16))


def test_chip_names_are_unique_across_targets_and_imply_the_target():
    names = [chip.name for target in TARGETS.values() for chip in target.chips]
    assert len(names) == len(set(names))
    assert target_of_chip("gfx950") is AMD and resolve(chip="sm_80").target is NVIDIA


def test_resolve_defaults():
    assert resolve() is DEFAULT_DEVICE
    assert DEFAULT_DEVICE.shared_bytes_per_block == 48 * 1024
    assert resolve("amdgcn").chip.name == AMD.default_chip == "gfx942"
    assert resolve(chip="gfx950").shared_bytes_per_block == 160 * 1024
    assert resolve(chip="gfx1100").wave_size == 32
    assert resolve("spirv").wave_size is None


@pytest.mark.parametrize(
    ("target", "chip", "message"),
    [
        ("", "sm_99", "unknown chip 'sm_99' (choose from sm_50"),
        ("cuda", "", "unknown target 'cuda' (choose from ptx, amdgcn, spirv, opencl)"),
        ("amdgcn", "sm_90", "unknown chip 'sm_90' (choose from gfx908"),
    ],
)
def test_unknown_names_are_one_line_listing_the_known(target, chip, message):
    with pytest.raises(TargetOptionError) as error:
        resolve(target, chip)
    assert message in str(error.value) and "\n" not in str(error.value)
