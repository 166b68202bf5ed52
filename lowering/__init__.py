"""Lowering of the gpu_alloc dialect to the standard gpu/memref dialects and to PTX."""

from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass

__all__ = ["LowerGpuAllocsPass"]
