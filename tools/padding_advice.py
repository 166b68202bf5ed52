"""Where `pad-shared-allocs` would remove the bank conflicts a profile found, and what it costs
(`gpu-alloc-sim --profile`).

Measured, not guessed: the pass runs on a copy of the kernel, the copy is simulated with the
same launch, and each padded Func's conflicts before and after are compared, with the bytes
the padding adds. A Func whose conflicts the pass does not touch is named with why (the pass
pads an unfused shared Func read across rows by a warp; fused or lowered IR is past the point
where it can: run it before `fuse-gpu-allocs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpu_alloc.dialect import AllocOp, MemorySpace, is_backing
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.sim.launch import SimulationResult
from gpu_alloc.sim.profile import Profile
from gpu_alloc.transforms.pad_shared_allocs import PadSharedAllocsPass
from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp


@dataclass(frozen=True)
class PaddingAdvice:
    func: str
    shape: str
    """The Func's type before (`32x32xf32`) and after (`32x33xf32`) padding."""
    padded_shape: str
    extra_bytes: int
    conflicts: int
    conflicts_after: int
    shared_bytes: int
    """The kernel's static shared bytes (its allocations added up) before and after."""
    padded_shared_bytes: int

    def describe(self) -> str:
        return (
            f"{self.func}: pad {self.shape} -> {self.padded_shape} (+{self.extra_bytes} B; "
            f"shared {self.shared_bytes} -> {self.padded_shared_bytes} B): bank conflicts "
            f"{self.conflicts} -> {self.conflicts_after}"
        )

    def as_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Advice:
    padded: list[PaddingAdvice]
    untouched: list[str]
    """Funcs with conflicts the pass leaves alone."""
    note: str | None = None
    """Why the pass cannot run here (its diagnostic), if so."""

    def as_text(self) -> str:
        if not self.padded and not self.untouched:
            return ""
        measured = "; measured on a padded copy" if self.padded else ""
        lines = [f"padding (pad-shared-allocs, before fuse-gpu-allocs{measured}):"]
        lines += [f"  {a.describe()}" for a in self.padded]
        why = self.note or (
            "no pad of the innermost dimension helps, or the IR is already fused or lowered "
            "(pad before fuse-gpu-allocs)"
        )
        lines += [
            f"  {name}: pad-shared-allocs leaves it as it is: {why}" for name in self.untouched
        ]
        return "\n".join(lines)

    def as_json(self) -> dict[str, Any]:
        return {
            "padded": [a.as_json() for a in self.padded],
            "untouched": self.untouched,
            "note": self.note,
        }


def _shared_types(module: ModuleOp) -> dict[str, MemRefType]:
    found: dict[str, MemRefType] = {}
    for op in module.walk():
        if isinstance(op, AllocOp) and op.space == MemorySpace.SHARED and not is_backing(op):
            assert isinstance(op.memref.type, MemRefType)
            found[op.alloc_name.data] = op.memref.type
    return found


def _shape(memref_type: MemRefType) -> str:
    return "x".join([*map(str, memref_type.get_shape()), str(memref_type.get_element_type())])


def _conflicts(profile: Profile | None) -> dict[str, int]:
    if profile is None:
        return {}
    return {
        f.name: f.total().bank_conflicts or 0
        for f in profile.funcs.values()
        if f.space == MemorySpace.SHARED
    }


def padding_advice(
    module: ModuleOp, result: SimulationResult, rerun: Callable[[ModuleOp], SimulationResult]
) -> Advice:
    """What padding would do for the Funcs of `result`'s profile that have bank conflicts;
    `rerun` simulates a module with the same launch (and a profile)."""
    before = {name: n for name, n in _conflicts(result.profile).items() if n}
    if not before:
        return Advice([], [])
    padded_module = module.clone()
    try:
        PadSharedAllocsPass().apply(Context(), padded_module)
    except GpuAllocPassError as error:
        return Advice([], sorted(before), error.message)
    old, new = _shared_types(module), _shared_types(padded_module)
    changed = [name for name in sorted(before) if name in old and new.get(name) != old[name]]
    if not changed:
        return Advice([], sorted(before))
    after = _conflicts(rerun(padded_module).profile)
    shared = sum(static_byte_size(t) or 0 for t in old.values())
    padded_shared = sum(static_byte_size(t) or 0 for t in new.values())
    advice = [
        PaddingAdvice(
            name,
            _shape(old[name]),
            _shape(new[name]),
            (static_byte_size(new[name]) or 0) - (static_byte_size(old[name]) or 0),
            before[name],
            after.get(name, 0),
            shared,
            padded_shared,
        )
        for name in changed
    ]
    return Advice(advice, [name for name in sorted(before) if name not in changed])
