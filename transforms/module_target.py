"""The target is a fact of the module: the device a `gpu.module` says it is for.

MLIR says which chip a `gpu.module` is compiled for with target attributes in its
`targets` list: `[#nvvm.target<chip = "sm_90">]`, `[#rocdl.target<chip = "gfx942">]`,
`[#spirv.target_env<..., #spirv.resource_limits<max_compute_shared_memory_size = 65536>>]`
(or the module's `spirv.target_env` attribute, which gives SPIR-V's limits but lets an
option name another target: IMEX writes it on every module), `[#xevm.target<...>]`.
Which attribute means which target is data (`TargetDescription.mlir_target_attributes`).
Block-level code outside any `gpu.module` (a `gpu.launch` body) reads the same list on
the outermost `builtin.module`, as `gpu_alloc.targets` (MLIR has no spelling for it).

Every pass, the simulator and every backend ask `device_at(op, ...)` for the device of
the code `op` is in, giving their own `chip`/`target` options: the module's attribute
where it has one, the options where it has none, `DEFAULT_DEVICE` where neither says;
a module attribute and an option that disagree are one error at the `gpu.module`,
naming both. `attach_target` writes a device into the modules that have none (what
`-t X{chip=...}` and a pass fused for a chip do, as MLIR's `nvvm-attach-target`).
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass, replace

from gpu_alloc.dialect.attributes import HOST_CODE_TARGET
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.syntax.mlir_attributes import opaque_attribute_type
from gpu_alloc.targets import (
    DEFAULT_DEVICE,
    TARGETS,
    Device,
    TargetDescription,
    TargetOptionError,
    resolve,
)
from gpu_alloc.transforms.block_level_code import block_level_code
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp, StringAttr, UnregisteredAttr
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.printer import Printer

TARGETS_ATTRIBUTE = "targets"
"""The `gpu.module` attribute holding MLIR's target attributes."""


_CHIP = re.compile(r'\bchip\s*=\s*"([^"]*)"')


@dataclass(frozen=True)
class DeclaredTarget:
    """What a `gpu.module`'s target attribute says: the device and how it was spelled."""

    device: Device
    spelling: str
    """The attribute as written (`#nvvm.target<chip = "sm_90">`), for messages."""
    module: Operation
    """The `gpu.module` (or, for host code, the `builtin.module`) that says it."""
    binding: bool = True
    """False for a `spirv.target_env` attribute outside the `targets` list (the SPIR-V
    environment the module would have: its limits), or an attribute naming a chip the
    project does not model: not a target the module must be compiled for; an option
    naming another target then wins."""


def _text(attribute: Attribute) -> str:
    stream = io.StringIO()
    Printer(stream=stream).print_attribute(attribute)
    return stream.getvalue()


def _target_of_attribute(name: str) -> TargetDescription | None:
    for target in TARGETS.values():
        if name in target.mlir_target_attributes:
            return target
    return None


def _called(module: Operation) -> str:
    """How messages name a module: `gpu.module @m`, or `the module` (host code)."""
    if isinstance(module, gpu.ModuleOp):
        return f"gpu.module @{module.sym_name.data}"
    return "the module"


def _models_chip(attribute: Attribute, target: TargetDescription) -> bool:
    """Whether the chip `attribute` names (or MLIR's default) is one of `target`'s."""
    found = _CHIP.search(_text(attribute))
    chip_name = found.group(1) if found else target.mlir_default_chip
    return any(chip.name == chip_name for chip in target.chips)


def _device_of(attribute: Attribute, target: TargetDescription, module: Operation) -> Device:
    text = _text(attribute)
    found = _CHIP.search(text)
    chip_name = found.group(1) if found else target.mlir_default_chip
    names = {chip.name for chip in target.chips}
    if chip_name not in names:  # Intel's chips (`#xevm.target<chip = "pvc">`) are SPIR-V's
        chip_name = target.mlir_default_chip if len(target.chips) == 1 else chip_name
    try:
        chip = target.chip(chip_name)
    except TargetOptionError as error:
        message = f"{_called(module)}: {text}: {error}"
        raise GpuAllocPassError(message, module) from None
    if key := target.mlir_shared_limit_key:
        limit = re.search(rf"\b{key}\s*=\s*(\d+)", text)
        if limit or _attribute_name(attribute) == target.mlir_target_attributes[0]:
            chip = replace(
                chip,
                shared_bytes_per_block=int(limit.group(1))
                if limit
                else target.mlir_shared_limit_default,
            )
    return Device(target, chip)


def _attribute_name(attribute: Attribute) -> str:
    if isinstance(attribute, UnregisteredAttr):  # `--allow-unregistered-dialect`
        return attribute.attr_name.data
    return getattr(attribute, "name", "")


def declared_target(gpu_module: Operation) -> DeclaredTarget | None:
    """The target `gpu_module`'s attributes name (a `builtin.module`'s: its
    `HOST_CODE_TARGET`), or None; two that name different devices are an error at it."""
    found: list[tuple[Attribute, TargetDescription]] = []
    name = TARGETS_ATTRIBUTE if isinstance(gpu_module, gpu.ModuleOp) else HOST_CODE_TARGET
    listed = gpu_module.attributes.get(name)
    candidates = list(listed.data) if isinstance(listed, ArrayAttr) else []
    for attribute in candidates:
        if (target := _target_of_attribute(_attribute_name(attribute))) is not None:
            found.append((attribute, target))
    # A chip the project does not model (`#xevm.target<chip = "pvc">`, read as SPIR-V's
    # generic device) gives that device's limits but binds no target either.
    binding = bool(found) and all(_models_chip(a, t) for a, t in found)
    if not found:  # an environment as a module attribute: `spirv.target_env = ...`
        for target in TARGETS.values():
            for name in target.mlir_target_attributes:
                if (environment := gpu_module.attributes.get(name)) is not None:
                    found.append((environment, target))
    if not found:
        return None
    declared = [
        DeclaredTarget(_device_of(a, t, gpu_module), _text(a), gpu_module, binding)
        for a, t in found
    ]
    first = declared[0]
    for other in declared[1:]:
        if not _same(first.device, other.device):
            raise GpuAllocPassError(
                f"{_called(gpu_module)} names two targets: {first.spelling} and {other.spelling}",
                gpu_module,
            )
    return first


def _same(one: Device, other: Device) -> bool:
    return (
        one.target.name == other.target.name
        and one.chip.name == other.chip.name
        and one.shared_bytes_per_block == other.shared_bytes_per_block
    )


def enclosing_gpu_module(op: Operation) -> gpu.ModuleOp | None:
    current: Operation | None = op
    while current is not None and not isinstance(current, gpu.ModuleOp):
        current = current.parent_op()
    return current


def _declared_at(op: Operation) -> DeclaredTarget | None:
    """What the `gpu.module` around `op` declares, or for code outside any, the
    outermost `builtin.module`'s `HOST_CODE_TARGET`."""
    gpu_module = op if isinstance(op, gpu.ModuleOp) else enclosing_gpu_module(op)
    if gpu_module is not None:
        return declared_target(gpu_module)
    top: Operation = op
    while (parent := top.parent_op()) is not None:
        top = parent
    return declared_target(top) if isinstance(top, ModuleOp) else None


def device_at(
    op: Operation, what: str, chip: str = "", target: str = "", given: str = ""
) -> Device:
    """The device the code at `op` is for: its `gpu.module`'s target attribute, else the
    `chip`/`target` options of `what` (a pass name, `-t ptx`), else `DEFAULT_DEVICE`.

    An option naming another target or chip than the module's attribute is an error at
    the `gpu.module` naming both (`given`: how the option was spelled, if not as a pass
    option); an unknown option value is `what`'s one-line error."""
    try:
        option = resolve(target, chip) if chip or target else None
    except TargetOptionError as error:
        raise GpuAllocPassError(f"{what}: option {'chip' if chip else 'target'}: {error}") from None
    declared = _declared_at(op)
    if declared is None:
        return option or DEFAULT_DEVICE
    if option is None:
        return declared.device
    agrees = option.target.name == declared.device.target.name and (
        not chip or option.chip.name == declared.device.chip.name
    )
    if not agrees and not declared.binding:
        return option  # a SPIR-V environment does not bind another target
    if not agrees:
        if not given:  # how the option was spelled: `fuse-gpu-allocs{chip=sm_90}`
            given = f"{what}{{chip={chip}}}" if chip else what
            if not chip and not what.startswith("-t"):
                given = f"{what}{{target={target}}}"
        named = f"{option.target.name} {option.chip.name}" if chip else option.target.name
        raise GpuAllocPassError(
            f"{_called(declared.module)} is for {declared.device.describe()} "
            f"({declared.spelling}), but {given} is for {named}",
            declared.module,
        )
    return declared.device


def gpu_modules(module: Operation) -> list[gpu.ModuleOp]:
    return [op for op in module.walk() if isinstance(op, gpu.ModuleOp)]


def module_device(module: ModuleOp, what: str, chip: str = "", target: str = "") -> Device:
    """The one device of every `gpu.module` in `module` (`device_at` of each; the options'
    or `DEFAULT_DEVICE` without one); modules for different devices are an error at the
    second, naming both. For passes that work for a single device."""
    devices = [(m, device_at(m, what, chip, target)) for m in gpu_modules(module)]
    if not devices:
        return device_at(module, what, chip, target)
    first_module, first = devices[0]
    for other_module, other in devices[1:]:
        if not _same(first, other):
            raise GpuAllocPassError(
                f"{what}: gpu.module @{other_module.sym_name.data} is for {other.describe()} "
                f"and @{first_module.sym_name.data} for {first.describe()}: run it on each",
                other_module,
            )
    return first


def target_attribute(ctx: Context, device: Device) -> Attribute | None:
    """MLIR's target attribute for `device` (`#nvvm.target<chip = "sm_90">`), or None
    where the target has none this project writes (SPIR-V's environment needs more than
    a chip)."""
    names = device.target.mlir_target_attributes
    if not names or device.target.mlir_shared_limit_key or not device.chip.name:
        return None
    kind = opaque_attribute_type(ctx, names[0], is_type=False)
    if kind is None or not issubclass(kind, ParametrizedAttribute):
        return None
    parameters = (StringAttr(f'chip = "{device.chip.name}"'), IntAttr(1))  # `#name<text>`
    return kind.new(parameters)


def attach_target(ctx: Context, module: Operation, device: Device) -> None:
    """Give every `gpu.module` of `module` without a target attribute `device`'s (as
    `nvvm-attach-target` does); modules that have one keep it."""
    attribute = target_attribute(ctx, device)
    if attribute is None:
        return
    for gpu_module in gpu_modules(module):
        declared = declared_target(gpu_module)
        if declared is None or not declared.binding:
            _append(gpu_module, TARGETS_ATTRIBUTE, attribute)
    host_code = [op for op in block_level_code(module) if enclosing_gpu_module(op) is None]
    if isinstance(module, ModuleOp) and host_code and declared_target(module) is None:
        _append(module, HOST_CODE_TARGET, attribute)


def _append(op: Operation, name: str, attribute: Attribute) -> None:
    listed = op.attributes.get(name)
    kept = list(listed.data) if isinstance(listed, ArrayAttr) else []
    op.attributes[name] = ArrayAttr([*kept, attribute])
