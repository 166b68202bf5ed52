"""Passes over the gpu_alloc dialect.

The passes are imported on first use (`from gpu_alloc.transforms import
FuseGpuAllocsPass`), so that importing an analysis loads no pass. The packing
algorithm fusion uses is a package of its own, `gpu_alloc.packing` (no xDSL).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

_PASSES = {
    "FlattenAliasesPass": "flatten_aliases",
    "FuseGpuAllocsPass": "fuse.fuse_gpu_allocs",
    "PadSharedAllocsPass": "pad_shared_allocs",
    "PartitionLoopsPass": "partition_loops",
    "RemoveDeadAllocsPass": "remove_dead_allocs",
    "StripeLaneAllocsPass": "stripe_lane_allocs",
}

if TYPE_CHECKING:
    from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
    from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass
    from gpu_alloc.transforms.pad_shared_allocs import PadSharedAllocsPass
    from gpu_alloc.transforms.partition_loops import PartitionLoopsPass
    from gpu_alloc.transforms.remove_dead_allocs import RemoveDeadAllocsPass
    from gpu_alloc.transforms.stripe_lane_allocs import StripeLaneAllocsPass


def __getattr__(name: str) -> object:
    if name not in _PASSES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_PASSES[name]}"), name)


__all__ = [
    "FlattenAliasesPass",
    "FuseGpuAllocsPass",
    "PadSharedAllocsPass",
    "PartitionLoopsPass",
    "RemoveDeadAllocsPass",
    "StripeLaneAllocsPass",
]
