"""What each NVIDIA chip allows: the PTX targets both backends accept, and shared memory.

One table serves `fuse-gpu-allocs{chip=...}` (its default `max-shared-bytes`), the PTX
target's option check (`-t 'ptx{chip=... ptx_version=...}'`) and `lower-gpu-allocs`
(a static shared backing above `STATIC_SHARED_LIMIT` becomes dynamic shared memory).
"""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024

STATIC_SHARED_LIMIT = 48 * KIB
"""Static (`.shared` global) bytes a PTX kernel may declare; more needs dynamic shared
memory and the launch's `cudaFuncAttributeMaxDynamicSharedMemorySize` opt-in."""


@dataclass(frozen=True)
class Chip:
    """One `sm_XX` architecture."""

    name: str
    shared_bytes_per_block: int
    """The most shared memory one block may use (with the opt-in above 48 KiB)."""
    min_ptx_version: int
    """The oldest PTX ISA (times ten) that knows this architecture."""


CHIPS: dict[str, Chip] = {
    chip.name: chip
    for chip in (
        Chip("sm_50", 48 * KIB, 40),
        Chip("sm_52", 48 * KIB, 41),
        Chip("sm_53", 48 * KIB, 42),
        Chip("sm_60", 48 * KIB, 50),
        Chip("sm_61", 48 * KIB, 50),
        Chip("sm_62", 48 * KIB, 50),
        Chip("sm_70", 96 * KIB, 60),
        Chip("sm_72", 96 * KIB, 61),
        Chip("sm_75", 64 * KIB, 63),
        Chip("sm_80", 163 * KIB, 70),
        Chip("sm_86", 99 * KIB, 71),
        Chip("sm_87", 163 * KIB, 74),
        Chip("sm_89", 99 * KIB, 78),
        Chip("sm_90", 227 * KIB, 78),
        Chip("sm_90a", 227 * KIB, 80),
        Chip("sm_100", 227 * KIB, 86),
        Chip("sm_120", 99 * KIB, 87),
    )
}
"""Chips that LLVM 22's NVPTX target (both backends) compiles for."""

PTX_VERSIONS = (
    *(32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65),
    *(70, 71, 72, 73, 74, 75, 76, 77, 78),
    *(80, 81, 82, 83, 84, 85, 86, 87, 88),
)
"""PTX ISA versions (times ten) that LLVM 22's NVPTX target emits."""


class TargetOptionError(ValueError):
    """An unknown chip or PTX version; the message is one line listing what is known."""


def chip_named(name: str) -> Chip:
    """The chip called `name`, or a `TargetOptionError` listing the known ones."""
    try:
        return CHIPS[name]
    except KeyError:
        raise TargetOptionError(f"unknown chip '{name}' (choose from {', '.join(CHIPS)})") from None


def shared_bytes_per_block(chip: str | None) -> int:
    """What one block of `chip` may use; 48 KiB when no chip is named."""
    if not chip:
        return STATIC_SHARED_LIMIT
    return chip_named(chip).shared_bytes_per_block


def check_target(chip: str, ptx_version: int) -> None:
    """Raise `TargetOptionError` unless both backends can emit `ptx_version` for `chip`."""
    known = chip_named(chip)
    if ptx_version not in PTX_VERSIONS:
        raise TargetOptionError(
            f"unknown ptx_version {ptx_version} (PTX ISA x10; choose from "
            f"{', '.join(map(str, PTX_VERSIONS))})"
        )
    if ptx_version < known.min_ptx_version:
        newer = [str(v) for v in PTX_VERSIONS if v >= known.min_ptx_version]
        raise TargetOptionError(
            f"ptx_version {ptx_version} is older than {chip} allows "
            f"(choose from {', '.join(newer)})"
        )
