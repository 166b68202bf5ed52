"""THE list of the project's passes: every other list of them is derived from this one.

`PASSES` names each pass, the module and class that define it, and its place in the
project's pipeline. The xDSL universe (`gpu_alloc.universe.ALL_PASSES`), the public API
(`gpu_alloc.api.PASSES`), `gpu-alloc-opt --list-passes` and the test harnesses read it;
importing this module loads no pass (`PassEntry.load` imports one on first use), so the
tools start fast.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from xdsl.passes import ModulePass


@dataclass(frozen=True)
class PassEntry:
    """One pass: its command-line name and where its class lives."""

    name: str
    module: str
    class_name: str
    in_pipeline: bool
    """Whether the pass is a stage of the project's own pipeline (`fuse-gpu-allocs`,
    `flatten-aliases`, ...), rather than an optional pass a user adds."""

    def load(self) -> type[ModulePass]:
        """The pass class, importing its module on first use."""
        return getattr(importlib.import_module(self.module), self.class_name)


PASSES: tuple[PassEntry, ...] = (
    PassEntry(
        "import-gpu-allocs", "gpu_alloc.transforms.import_gpu_allocs", "ImportGpuAllocsPass", False
    ),
    PassEntry(
        "pad-shared-allocs", "gpu_alloc.transforms.pad_shared_allocs", "PadSharedAllocsPass", False
    ),
    PassEntry(
        "fuse-gpu-allocs", "gpu_alloc.transforms.fuse.fuse_gpu_allocs", "FuseGpuAllocsPass", True
    ),
    PassEntry(
        "remove-dead-allocs",
        "gpu_alloc.transforms.remove_dead_allocs",
        "RemoveDeadAllocsPass",
        True,
    ),
    PassEntry(
        "partition-loops", "gpu_alloc.transforms.partition_loops", "PartitionLoopsPass", True
    ),
    PassEntry(
        "stripe-lane-allocs",
        "gpu_alloc.transforms.stripe_lane_allocs",
        "StripeLaneAllocsPass",
        False,
    ),
    PassEntry(
        "flatten-aliases", "gpu_alloc.transforms.flatten_aliases", "FlattenAliasesPass", True
    ),
    PassEntry(
        "lower-gpu-allocs", "gpu_alloc.lowering.lower_gpu_allocs", "LowerGpuAllocsPass", True
    ),
)
"""Every pass, in the order the project's pipeline runs them (`import-gpu-allocs` and
`pad-shared-allocs` before fusion, `stripe-lane-allocs` between partitioning and flattening)."""

PIPELINE: tuple[str, ...] = tuple(p.name for p in PASSES if p.in_pipeline)
"""The passes whose composition, in this order, is the project's pipeline after import."""


def pass_entry(name: str) -> PassEntry:
    """The entry of the pass called `name`; `KeyError` if there is none."""
    for entry in PASSES:
        if entry.name == name:
            return entry
    raise KeyError(name)
