"""Lowering of the gpu_alloc dialect to the standard gpu/memref dialects, and to PTX,
AMDGPU assembly and SPIR-V.

Imported on first use (`from gpu_alloc.lowering import emit_ptx`), so that importing one
lowering module loads no backend it does not use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_EXPORTS = {
    "AmdgcnTarget": "amdgcn.target",
    "emit_amdgcn": "amdgcn.target",
    "emit_amdgcn_modules": "amdgcn.target",
    "LowerGpuAllocsPass": "lower_gpu_allocs",
    "PtxTarget": "ptx.target",
    "emit_ptx": "ptx.target",
    "emit_ptx_modules": "ptx.target",
    "OpenClTarget": "opencl.target",
    "emit_opencl_modules": "opencl.target",
    "emit_opencl_source": "opencl.target",
    "SpirvTarget": "spirv.target",
    "emit_spirv": "spirv.target",
    "emit_spirv_assembly": "spirv.target",
    "emit_spirv_modules": "spirv.target",
}

if TYPE_CHECKING:
    from gpu_alloc.lowering.amdgcn.target import AmdgcnTarget, emit_amdgcn, emit_amdgcn_modules
    from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
    from gpu_alloc.lowering.ptx.target import PtxTarget, emit_ptx, emit_ptx_modules
    from gpu_alloc.lowering.spirv.target import (
        SpirvTarget,
        emit_spirv,
        emit_spirv_assembly,
        emit_spirv_modules,
    )


def __getattr__(name: str) -> object:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)


__all__ = [
    "AmdgcnTarget",
    "LowerGpuAllocsPass",
    "PtxTarget",
    "SpirvTarget",
    "emit_amdgcn",
    "emit_amdgcn_modules",
    "emit_ptx",
    "emit_ptx_modules",
    "emit_spirv",
    "emit_spirv_assembly",
    "emit_spirv_modules",
]
