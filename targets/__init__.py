"""GPU targets as data: NVIDIA (`ptx`), AMD (`amdgcn`), SPIR-V (`spirv`), OpenCL C (`opencl`).

One `TargetDescription` per target (`description`), one module per vendor (`nvidia`,
`amd`, `spirv`, `opencl`). This package imports nothing but the standard library, so the passes,
the simulator, the lowering and both backends all read their facts here: memory
spaces, shared bytes per block, the static-shared limit, bank model, warp or wavefront
size, ids/barrier/fence intrinsics, kernel ABI, math library, chips and ISA versions.
A fourth target is a new module here, its entry in `TARGETS`, and its code: the
description names its `-t` driver (`driver`) and its tools' check (`tool_check`) as
`module:attribute` text, and MLIR's target attributes that mean it
(`mlir_target_attributes`); every registry that lists targets (the xDSL universe, the
tool checks, the coverage columns, `--help`) is built from `TARGETS`
(`tests/test_target_plugin.py` adds a test-only one).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.targets.amd import AMD
from gpu_alloc.targets.description import (
    KIB,
    AddressSpaces,
    BankModel,
    Call,
    Chip,
    Fence,
    Ids,
    IdSource,
    ImplicitArgument,
    Intrinsic,
    KernelAbi,
    MaskedLaneCount,
    MathLibrary,
    MlirPipeline,
    TargetDescription,
    TargetOptionError,
)
from gpu_alloc.targets.nvidia import BASELINE, NVIDIA
from gpu_alloc.targets.opencl import OPENCL
from gpu_alloc.targets.spirv import SPIRV

TARGETS: dict[str, TargetDescription] = {
    target.name: target for target in (NVIDIA, AMD, SPIRV, OPENCL)
}
"""Every target, by its `-t` name."""


@dataclass(frozen=True)
class Device:
    """A target and one of its chips: what a pass, the simulator or a backend works for."""

    target: TargetDescription
    chip: Chip

    @property
    def shared_bytes_per_block(self) -> int:
        return self.chip.shared_bytes_per_block

    @property
    def static_shared_limit(self) -> int | None:
        return self.target.static_shared_limit

    @property
    def wave_size(self) -> int | None:
        return self.chip.wave_size

    @property
    def bank_model(self) -> BankModel | None:
        return self.chip.bank_model

    def describe(self) -> str:
        """`amdgcn gfx942`, or `ptx (any sm_XX)` for the baseline."""
        return f"{self.target.name} {self.chip.name or f'({self.chip.isa})'}"


DEFAULT_DEVICE = Device(NVIDIA, BASELINE)
"""Neither target nor chip named: what every NVIDIA chip allows (48 KiB of shared
memory, warps of 32, 32 banks of 4 bytes), the project's limits before targets."""


def largest_shared_bytes_per_block() -> int:
    """The most shared memory any chip of any target gives one block."""
    return max(chip.shared_bytes_per_block for t in TARGETS.values() for chip in t.chips)


def target_named(name: str) -> TargetDescription:
    """The target called `name`, or a `TargetOptionError` listing the known ones."""
    try:
        return TARGETS[name]
    except KeyError:
        known = ", ".join(TARGETS)
        raise TargetOptionError(f"unknown target '{name}' (choose from {known})") from None


def target_of_chip(name: str) -> TargetDescription:
    """The target that has a chip called `name` (chip names are unique across targets)."""
    for target in TARGETS.values():
        if any(chip.name == name for chip in target.chips):
            return target
    known = ", ".join(chip.name for target in TARGETS.values() for chip in target.chips)
    raise TargetOptionError(f"unknown chip '{name}' (choose from {known})")


def resolve(target: str = "", chip: str = "") -> Device:
    """The device of a `target`/`chip` option pair: a chip implies its target; a target
    alone means its default chip; neither means `DEFAULT_DEVICE`."""
    if chip:
        description = target_named(target) if target else target_of_chip(chip)
        return Device(description, description.chip(chip))
    if target:
        description = target_named(target)
        return Device(description, description.chip(description.default_chip))
    return DEFAULT_DEVICE


__all__ = [
    "DEFAULT_DEVICE",
    "KIB",
    "TARGETS",
    "AddressSpaces",
    "BankModel",
    "Call",
    "Chip",
    "Device",
    "Fence",
    "IdSource",
    "Ids",
    "ImplicitArgument",
    "Intrinsic",
    "KernelAbi",
    "MaskedLaneCount",
    "MathLibrary",
    "MlirPipeline",
    "TargetDescription",
    "TargetOptionError",
    "largest_shared_bytes_per_block",
    "resolve",
    "target_named",
    "target_of_chip",
]
