"""Passes over the gpu_alloc dialect, and the packing algorithm they share."""

from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse_gpu_allocs import FuseGpuAllocsPass
from gpu_alloc.transforms.pad_shared_allocs import PadSharedAllocsPass
from gpu_alloc.transforms.partition_loops import PartitionLoopsPass
from gpu_alloc.transforms.remove_dead_allocs import RemoveDeadAllocsPass
from gpu_alloc.transforms.stripe_lane_allocs import StripeLaneAllocsPass

__all__ = [
    "FlattenAliasesPass",
    "FuseGpuAllocsPass",
    "PadSharedAllocsPass",
    "PartitionLoopsPass",
    "RemoveDeadAllocsPass",
    "StripeLaneAllocsPass",
]
