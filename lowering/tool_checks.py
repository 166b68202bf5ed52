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

from gpu_alloc.lowering.amdgcn import amdgpu_tools
from gpu_alloc.lowering.ptx.ptxas import assemble
from gpu_alloc.lowering.spirv import spirv_tools
from gpu_alloc.plugins import loaded
from gpu_alloc.targets import TARGETS, Device


def ptxas_check(text: str, device: Device, isa_version: int) -> dict[str, int]:
    return {name: r.shared_bytes for name, r in assemble(text, device.chip.name).items()}


def amdgpu_check(text: str, device: Device, isa_version: int) -> dict[str, int]:
    amdgpu_tools.code_object(text, device)
    resources = amdgpu_tools.kernel_resources(text)
    return {name: r.group_segment_bytes for name, r in resources.items()}


def spirv_check(text: str, device: Device, isa_version: int) -> dict[str, int]:
    binary = spirv_tools.assemble(text, isa_version)
    return spirv_tools.workgroup_bytes(spirv_tools.validate(binary, isa_version))


def pocl_check(text: str, device: Device, isa_version: int) -> dict[str, int]:
    from gpu_alloc.lowering.opencl.opencl_tools import local_bytes

    return local_bytes(text)


ToolCheck = Callable[[str, Device, int], dict[str, int]]


def tool_checks() -> dict[str, ToolCheck]:
    """Per target (by `-t` name), its tools' check: what its description's `tool_check`
    names (`gpu_alloc.plugins`)."""
    return {name: loaded(t.tool_check) for name, t in TARGETS.items() if t.tool_check}


def shared_bytes_by_tool(text: str, device: Device, isa_version: int) -> dict[str, int]:
    """Per kernel of `text` (one module's assembly), the static shared bytes its target's
    tools report, after they accepted it."""
    check: ToolCheck = loaded(device.target.tool_check)
    return check(text, device, isa_version)
