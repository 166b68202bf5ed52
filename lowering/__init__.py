"""Lowering of the gpu_alloc dialect to the standard gpu/memref dialects and to PTX."""

from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.ptx import PtxTarget, emit_ptx, emit_ptx_modules

__all__ = ["LowerGpuAllocsPass", "PtxTarget", "emit_ptx", "emit_ptx_modules"]
