"""Per-Func profile of a simulated launch: loads, stores, bytes and bank conflicts.

Every `memref.load`/`memref.store` that touches an allocation (shared, heap or private
memory; kernel arguments are not Funcs) is attributed to a Func and to the static
barrier stage of the op (`gpu_alloc.transforms.lifetimes.stage_map`), and counted at
thread level: one load per active thread, `itemsize` bytes each, summed over all
blocks of the launch (so a heap Func's per-block figures are summed over blocks).

Attribution: memory that carries a `gpu_alloc.layout` record (a flattened or lowered
backing, see `gpu_alloc.dialect.layout`) names the Func whose byte range holds the
accessed byte and whose stage interval holds the op's stage (two co-live Funcs on one
byte, possible only in hand-written IR, are told apart by the view's name); other
memory is named by the view the access goes through: the allocation's or alias's name.
So the profile names the same Funcs before and after `fuse-gpu-allocs`,
`flatten-aliases` and `lower-gpu-allocs`.

Bank conflicts (shared memory only) follow `gpu_alloc.banks`: per warp-level access (32
consecutive linear thread ids), over the 4-byte words it touches, counted from the
start of the shared allocation (taken as 128-byte aligned: a uniform shift only
permutes the banks, so fusing Funcs at other offsets changes no count).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from gpu_alloc.banks import DEFAULT_BANK_MODEL, bank_conflicts
from gpu_alloc.dialect import FuncSlice, read_layout
from gpu_alloc.dialect.kernels import KernelFunction
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.memory import Arena, MemRefView
from gpu_alloc.targets import BankModel
from gpu_alloc.transforms.layout_record import (
    barrier_lines,
    describe_barriers,
    stage_count,
    stage_of,
)
from gpu_alloc.transforms.lifetimes import StageMap, stage_map
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import VerifyException

SPACE_NAMES = {1: "heap", 3: "shared", 5: "private"}
COUNTERS = ("loads", "stores", "bytes_loaded", "bytes_stored", "bank_conflicts")


@dataclass
class Counts:
    """What one Func did in one stage (or in all of them)."""

    loads: int = 0
    stores: int = 0
    bytes_loaded: int = 0
    bytes_stored: int = 0
    bank_conflicts: int | None = None

    def add(self, other: Counts) -> None:
        self.loads += other.loads
        self.stores += other.stores
        self.bytes_loaded += other.bytes_loaded
        self.bytes_stored += other.bytes_stored
        if other.bank_conflicts is not None:
            self.bank_conflicts = (self.bank_conflicts or 0) + other.bank_conflicts

    def as_dict(self) -> dict[str, int | None]:
        return {key: getattr(self, key) for key in COUNTERS}


@dataclass
class FuncProfile:
    name: str
    space: int
    stages: dict[int, Counts] = field(default_factory=dict[int, Counts])

    def total(self) -> Counts:
        total = Counts(bank_conflicts=0 if self.space == 3 else None)
        for counts in self.stages.values():
            total.add(counts)
        return total


def _bank_model_json(model: BankModel | None) -> dict[str, int] | None:
    if model is None:
        return None
    return {"banks": model.banks, "bank_bytes": model.bank_bytes, "warp_size": model.lanes}


@dataclass(frozen=True)
class _ArenaLayout:
    slices: list[FuncSlice]
    block_bytes: int | None
    """For memory shared by all blocks (a heap backing): the bytes of each block's
    slice; the record's offsets are within one slice."""


class Profile:
    """Collects the counts of one launch; see the module docstring."""

    def __init__(
        self,
        kernel: str,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        bank_model: BankModel | None = DEFAULT_BANK_MODEL,
    ):
        self.kernel = kernel
        self.grid = grid
        self.block = block
        self.bank_model = bank_model
        """The chip's (`gpu_alloc.targets`); None: no bank conflicts are counted."""
        self.funcs: dict[tuple[str, int], FuncProfile] = {}
        self._layouts: weakref.WeakKeyDictionary[Arena, _ArenaLayout] = weakref.WeakKeyDictionary()
        self._excluded: weakref.WeakSet[Arena] = weakref.WeakSet()
        self.stages: StageMap | None = None

    def exclude(self, arenas: Iterable[Arena]) -> None:
        """Kernel arguments: not Funcs, not profiled."""
        for arena in arenas:
            self._excluded.add(arena)

    def note_layout(
        self, arena: Arena, record: Attribute | None, block_bytes: int | None = None
    ) -> None:
        """`arena` is a backing described by the layout `record` (if any)."""
        if record is None:
            return
        try:
            slices = read_layout(record)
        except VerifyException as error:
            raise SimulationError(f"'{arena.name}': {error}") from None
        self._layouts[arena] = _ArenaLayout(slices, block_bytes)

    def access(
        self,
        op: Operation,
        view: MemRefView,
        addresses: np.ndarray,
        lanes: np.ndarray,
        is_write: bool,
        linear_block: int,
    ) -> None:
        """Count one load or store executed by the threads `lanes` of one block."""
        arena = view.arena
        if arena.space not in SPACE_NAMES or arena in self._excluded or lanes.size == 0:
            return
        stage = 0 if self.stages is None else stage_of(self.stages, op) or 0
        name = self._func_name(view, int(addresses[0]), stage, linear_block)
        func = self.funcs.setdefault((name, arena.space), FuncProfile(name, arena.space))
        counts = func.stages.setdefault(stage, Counts())
        size = view.dtype.itemsize
        if is_write:
            counts.stores += int(lanes.size)
            counts.bytes_stored += int(lanes.size) * size
        else:
            counts.loads += int(lanes.size)
            counts.bytes_loaded += int(lanes.size) * size
        if arena.space == 3 and self.bank_model is not None:
            conflicts = bank_conflicts(addresses, size, lanes, self.bank_model)
            counts.bank_conflicts = (counts.bank_conflicts or 0) + conflicts

    def _func_name(self, view: MemRefView, address: int, stage: int, linear_block: int) -> str:
        layout = self._layouts.get(view.arena)
        if layout is None:
            return view.name
        if view.arena.space == 5 and len(layout.slices) == 1:
            return layout.slices[0].name  # one slice per thread: the Func is the arena
        if layout.block_bytes is not None:
            address -= linear_block * layout.block_bytes
        covering = [s for s in layout.slices if s.covers(address)]
        live = [s for s in covering if s.live_at(stage)] or covering
        if len(live) > 1:
            named = [s for s in live if s.name == view.name]
            live = named or live
        return live[0].name if live else view.name

    # ---- output ---------------------------------------------------------------------

    def ordered(self) -> list[FuncProfile]:
        order = {3: 0, 1: 1, 5: 2}
        return sorted(self.funcs.values(), key=lambda f: (order.get(f.space, 3), f.name))

    def total(self) -> Counts:
        total = Counts(bank_conflicts=0)
        for func in self.funcs.values():
            total.add(func.total())
        return total

    def barrier_lines(self) -> list[tuple[int, list[int | None]]]:
        """Each stage and the source lines of the barriers that begin it (none for stage 0;
        None for a barrier a pass inserted)."""
        if self.stages is None:
            return [(0, [])]
        found = barrier_lines(self.stages)
        return [(t, found.get(t, [])) for t in range(stage_count(self.stages))]

    def stage_legend(self) -> list[str]:
        """One line per barrier stage, naming it by the barriers around it."""
        stages = self.barrier_lines()
        if len(stages) == 1:
            return ["stages: one (no barrier)"]
        legend = ["stages:"]
        for (stage, lines), (_, following) in zip(stages, [*stages[1:], (0, [])], strict=True):
            start = "the kernel entry" if stage == 0 else f"the {describe_barriers(lines)}"
            end = f"the {describe_barriers(following)}" if following else "the kernel's end"
            legend.append(f"  {stage}: from {start} to {end}")
        return legend

    def as_json(self) -> dict[str, Any]:
        """The JSON form; docs/simulator.md documents its schema."""
        return {
            "kernel": self.kernel,
            "grid": list(self.grid),
            "block": list(self.block),
            "bank_model": _bank_model_json(self.bank_model),
            "stages": [
                {"stage": stage, "barrier_lines": lines} for stage, lines in self.barrier_lines()
            ],
            "funcs": [
                {
                    "name": f.name,
                    "space": SPACE_NAMES[f.space],
                    **f.total().as_dict(),
                    "stages": [
                        {"stage": stage, **counts.as_dict()}
                        for stage, counts in sorted(f.stages.items())
                    ],
                }
                for f in self.ordered()
            ],
            "total": self.total().as_dict(),
        }

    def as_text(self) -> str:
        """A table: one row per Func and stage, one per Func in all, one for the kernel."""
        grid = "x".join(map(str, self.grid))
        block = "x".join(map(str, self.block))
        rows: list[list[str]] = [["func", "space", "stage", *COUNTERS]]
        for f in self.ordered():
            for stage, counts in sorted(f.stages.items()):
                rows.append([f.name, SPACE_NAMES[f.space], str(stage), *_cells(counts)])
            rows.append([f.name, SPACE_NAMES[f.space], "all", *_cells(f.total())])
        rows.append(["(kernel)", "", "all", *_cells(self.total())])
        widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
        model = self.bank_model
        banks = (
            "no bank model"
            if model is None
            else f"bank model: {model.banks} banks x {model.bank_bytes} bytes, "
            f"warps of {model.lanes}"
        )
        lines = [
            f"profile of kernel '{self.kernel}' (grid {grid}, block {block}; {banks})",
            *self.stage_legend(),
        ]
        for row in rows:
            left = [cell.ljust(width) for cell, width in zip(row[:3], widths, strict=False)]
            right = [cell.rjust(width) for cell, width in zip(row[3:], widths[3:], strict=True)]
            lines.append("  ".join(left + right).rstrip())
        return "\n".join(lines)


def new_profile(
    kernel: KernelFunction,
    grid: tuple[int, ...],
    block: tuple[int, ...],
    bank_model: BankModel | None = DEFAULT_BANK_MODEL,
) -> Profile:
    """An empty profile of `kernel`, with its barrier stages numbered, counting bank
    conflicts with `bank_model` (None: none)."""
    profile = Profile(kernel.sym_name.data, grid, block, bank_model)
    profile.stages = stage_map(kernel)
    return profile


def _cells(counts: Counts) -> list[str]:
    return ["-" if (value := getattr(counts, key)) is None else str(value) for key in COUNTERS]
