"""A pass's `target`/`chip` options as the device they name (`gpu_alloc.targets`)."""

from __future__ import annotations

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.targets import Device, TargetOptionError, resolve


def device_option(pass_name: str, chip: str = "", target: str = "") -> Device:
    """The device of a pass's options; an unknown name is the pass's one-line error."""
    try:
        return resolve(target, chip)
    except TargetOptionError as error:
        option = "chip" if chip else "target"
        raise GpuAllocPassError(f"{pass_name}: option {option}: {error}") from None
