"""Each target's own tools on what a backend printed: the check and the shared bytes.

`shared_bytes_by_tool(text, device, isa_version)` runs the target's assembler (and
linker or validator) on one module's assembly and returns, per kernel, the static
shared memory the tool reports: `ptxas -v`'s `bytes smem` (PTX), the code object's
`.amdhsa_group_segment_fixed_size` after `llvm-mc` and `ld.lld` (AMDGPU), the
Workgroup variables of what `spirv-as` assembled, `spirv-val` accepted and `spirv-dis`
printed (SPIR-V), the `__local` bytes PoCL reports after building it (OpenCL C). A tool that refuses the text raises `ToolRejected` (or `PtxasError`).
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc.lowering import amdgpu_tools, spirv_tools
from gpu_alloc.lowering.ptxas import assemble
from gpu_alloc.targets import Device


def _ptxas(text: str, device: Device, isa_version: int) -> dict[str, int]:
    return {name: r.shared_bytes for name, r in assemble(text, device.chip.name).items()}


def _amdgpu(text: str, device: Device, isa_version: int) -> dict[str, int]:
    amdgpu_tools.code_object(text, device)
    resources = amdgpu_tools.kernel_resources(text)
    return {name: r.group_segment_bytes for name, r in resources.items()}


def _spirv(text: str, device: Device, isa_version: int) -> dict[str, int]:
    binary = spirv_tools.assemble(text, isa_version)
    return spirv_tools.workgroup_bytes(spirv_tools.validate(binary, isa_version))


def _pocl(text: str, device: Device, isa_version: int) -> dict[str, int]:
    from gpu_alloc.lowering.opencl_tools import local_bytes

    return local_bytes(text)


TOOL_CHECKS: dict[str, Callable[[str, Device, int], dict[str, int]]] = {
    "ptx": _ptxas,
    "amdgcn": _amdgpu,
    "spirv": _spirv,
    "opencl": _pocl,
}
"""Per target (by `-t` name), its tools' check."""


def shared_bytes_by_tool(text: str, device: Device, isa_version: int) -> dict[str, int]:
    """Per kernel of `text` (one module's assembly), the static shared bytes its target's
    tools report, after they accepted it."""
    return TOOL_CHECKS[device.target.name](text, device, isa_version)
