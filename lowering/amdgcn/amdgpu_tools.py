"""LLVM's tools on AMDGPU assembly: `llvm-mc` assembles it, `ld.lld` links it into a code
object (what the HIP runtime loads), and the `.amdhsa_*` directives say what each kernel
uses (`.amdhsa_group_segment_fixed_size`: its static LDS bytes)."""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass

from gpu_alloc.lowering.tool_runs import run_tool
from gpu_alloc.lowering.toolchain import find_tool
from gpu_alloc.targets import Device

_KERNEL = re.compile(r"^\s*\.amdhsa_kernel\s+(\S+)\s*$(.*?)^\s*\.end_amdhsa_kernel", re.M | re.S)
_DIRECTIVE = re.compile(r"^\s*\.amdhsa_(\w+)\s+(\d+)\s*$", re.M)


@dataclass(frozen=True)
class KernelResources:
    """One kernel's `.amdhsa_*` directives."""

    kernel: str
    group_segment_bytes: int
    """Static LDS bytes (`.amdhsa_group_segment_fixed_size`)."""
    private_segment_bytes: int
    vgprs: int
    """`.amdhsa_next_free_vgpr`."""


def kernel_resources(assembly: str) -> dict[str, KernelResources]:
    """Per kernel of an AMDGPU assembly text, what its `.amdhsa_kernel` block says."""
    resources: dict[str, KernelResources] = {}
    for name, body in _KERNEL.findall(assembly):
        values = {key: int(value) for key, value in _DIRECTIVE.findall(body)}
        resources[name] = KernelResources(
            name,
            values["group_segment_fixed_size"],
            values["private_segment_fixed_size"],
            values.get("next_free_vgpr", 0),
        )
    return resources


def code_object(assembly: str, device: Device) -> bytes:
    """The code object of `assembly` for `device`: assembled by `llvm-mc`, linked by
    `ld.lld -shared`; `ToolRejected` if either refuses it."""
    with tempfile.TemporaryDirectory() as directory:
        source = os.path.join(directory, "kernel.s")
        obj = os.path.join(directory, "kernel.o")
        linked = os.path.join(directory, "kernel.hsaco")
        with open(source, "w") as stream:
            stream.write(assembly)
        triple, chip = device.target.triple, device.chip.cpu
        run_tool(
            [
                find_tool("llvm-mc"),
                f"-triple={triple}",
                f"-mcpu={chip}",
                "-filetype=obj",
                source,
                "-o",
                obj,
            ],
            "llvm-mc rejected the assembly",
        )
        run_tool([find_tool("ld.lld"), "-shared", obj, "-o", linked], "ld.lld rejected the object")
        with open(linked, "rb") as stream:
            return stream.read()
