"""Lowering of the gpu_alloc dialect to the standard gpu/memref dialects, and to PTX,
AMDGPU assembly and SPIR-V."""

from gpu_alloc.lowering.amdgcn import AmdgcnTarget, emit_amdgcn, emit_amdgcn_modules
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.ptx import PtxTarget, emit_ptx, emit_ptx_modules
from gpu_alloc.lowering.spirv import (
    SpirvTarget,
    emit_spirv,
    emit_spirv_assembly,
    emit_spirv_modules,
)

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
