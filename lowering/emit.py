"""Emitting a module for a target: what `-t ptx`, `-t amdgcn` and `-t spirv` share.

Two backends produce the assembly of every `gpu.module` of a module lowered by
`lower-gpu-allocs` (a module that still holds `gpu_alloc` ops is lowered first, on a
copy, for the same target and chip):

* `llvmlite` (default, in-process, pip-only): `to_llvm` to xDSL's `llvm` dialect,
  then llvmlite's LLVM 22 target (`llvmlite_backend`);
* `mlir` (reference): MLIR 22's own lowering of the target (`mlir_backend`).

Before anything is lowered the options are checked against the target's description
(`gpu_alloc.targets`), every op against the coverage contract (`coverage`), every
symbol against what the target's assembler accepts and every math-library call against
the libraries installed, and after lowering every kernel's static shared memory against
what its chip allows: an error is one line located at the user's op, before any output.
"""

from __future__ import annotations

import re
import sys
from typing import IO, Any

from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from gpu_alloc.errors import GpuAllocPassError, pass_errors_are_raised
from gpu_alloc.lowering.coverage import check_coverage
from gpu_alloc.lowering.llvm.mlir_backend import MlirBackendError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.static_shared import check_static_shared
from gpu_alloc.lowering.toolchain import ToolchainError, find_math_library
from gpu_alloc.provenance import cloned
from gpu_alloc.targets import Device, TargetOptionError, target_named
from gpu_alloc.transforms.module_target import TARGETS_ATTRIBUTE, module_device
from gpu_alloc.transforms.pre_lowering import pre_lower
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp, StringAttr


def device_for(target: str, chip: str, backend: str, isa_version: int) -> Device:
    """The device a target's options name; `TargetOptionError` for a bad option."""
    description = target_named(target)
    if backend not in description.backends:
        raise TargetOptionError(
            f"unknown {description.backend_name} backend '{backend}' "
            f"(choose from {', '.join(description.backends)})"
        )
    device = Device(description, description.chip(chip or description.default_chip))
    description.check_isa_version(device.chip, isa_version)
    return device


def _lowered(module: ModuleOp, device: Device) -> ModuleOp:
    """A copy of `module` with its `gpu_alloc` ops lowered for `device`, and then what
    no target's lowering reads (`affine`, `index`, `scf.forall`/`parallel`) pre-lowered."""
    lowered = cloned(module)  # a diagnostic on the copy points at the user's op
    for gpu_module in _gpu_modules(lowered):  # the device is resolved: the backends' own
        gpu_module.attributes.pop(TARGETS_ATTRIBUTE, None)  # pipelines attach its target
    if any(isinstance(op, AllocOp | AliasOp | OffsetPointerOp | DeallocOp) for op in module.walk()):
        LowerGpuAllocsPass(chip=device.chip.name).apply(Context(), lowered)
    pre_lower(lowered)
    return lowered


def _gpu_modules(module: ModuleOp) -> list[gpu.ModuleOp]:
    return [op for op in module.walk() if isinstance(op, gpu.ModuleOp)]


def check_symbol_names(module: ModuleOp, device: Device) -> None:
    """Refuse a kernel, function or global inside a `gpu.module` whose name the
    target's assembler cannot spell, at the op that declares it."""
    pattern = re.compile(device.target.symbol_pattern)
    for op in module.walk():
        if not isinstance(op.parent_op(), gpu.ModuleOp):
            continue
        name = op.properties.get("sym_name", op.attributes.get("sym_name"))
        if isinstance(name, StringAttr) and not pattern.fullmatch(name.data):
            raise GpuAllocPassError(
                f"symbol name '{name.data}' is not a {device.target.output} identifier "
                f"({device.target.symbol_pattern})",
                op,
            )


def check_math_library(module: ModuleOp, device: Device) -> None:
    """Refuse the first `math` op that needs the target's math library when the library
    is not installed, naming what to install."""
    from gpu_alloc.lowering.llvm.arith import LIBRARY_MATH

    needs_library = {f"math.{name}" for name in (*LIBRARY_MATH, "fpowi")}
    for op in (op for gpu_module in _gpu_modules(module) for op in gpu_module.walk()):
        if op.name not in needs_library:
            continue
        try:
            find_math_library(device.target.math, device.chip)
        except ToolchainError as error:
            raise GpuAllocPassError(f"'{op.name}' calls the math library: {error}", op) from None
        return


def check_chip_ops(module: ModuleOp, device: Device) -> None:
    """Refuse the first op that only other chips of the target have."""
    for op in module.walk():
        chips = device.target.chip_only_ops.get(op.name)
        if chips is not None and device.chip.name not in chips:
            raise GpuAllocPassError(
                f"'{op.name}' needs chip {' or '.join(chips)} (the chip is {device.chip.name})",
                op,
            )


def prepared(
    module: ModuleOp, target: str, chip: str, backend: str, isa_version: int
) -> tuple[ModuleOp, Device]:
    """The module lowered for the device the options name, after every check.

    Raises `TargetOptionError` for a bad option, `GpuAllocPassError` (at the op) for an
    op the backend does not lower or a kernel over its chip's limits."""
    device = device_for(target, chip, backend, isa_version)
    check_coverage(module, device.target, backend)
    device = module_device(module, f"-t {target}", chip, target)  # the module's own target
    device.target.check_isa_version(device.chip, isa_version)
    check_chip_ops(module, device)
    check_symbol_names(module, device)
    check_math_library(module, device)
    lowered = _lowered(module, device)
    check_static_shared(lowered, device, module)
    return lowered, device


def emit_modules(
    module: ModuleOp, target: str, chip: str, backend: str, isa_version: int
) -> dict[str, str]:
    """The assembly of each `gpu.module` in `module`, by `gpu.module` name."""
    return _emitted(module, target, chip, backend, isa_version, objects=False)


def emit_objects(
    module: ModuleOp, target: str, chip: str, backend: str, isa_version: int
) -> dict[str, bytes]:
    """The object (a SPIR-V binary, an AMDGPU ELF object) of each `gpu.module`, by name:
    LLVM's object emission instead of its assembly printer."""
    return _emitted(module, target, chip, backend, isa_version, objects=True)


def _emitted(
    module: ModuleOp, target: str, chip: str, backend: str, isa_version: int, objects: bool
) -> dict[str, Any]:
    lowered, device = prepared(module, target, chip, backend, isa_version)
    if backend == "c":  # OpenCL C: source, which the device's driver compiles
        from gpu_alloc.lowering.opencl.c import emit_opencl

        return {name: m.source for name, m in emit_opencl(lowered, device).items()}
    if backend == "mlir":
        from gpu_alloc.lowering.llvm.mlir_backend import emit_with_mlir, objects_with_mlir

        return (objects_with_mlir if objects else emit_with_mlir)(lowered, device, isa_version)
    from gpu_alloc.lowering.llvm.llvmlite_backend import compile_to_assembly, compile_to_object
    from gpu_alloc.lowering.llvm.to_llvm import lower_gpu_module_to_llvm

    compile = compile_to_object if objects else compile_to_assembly
    return {
        op.sym_name.data: compile(lower_gpu_module_to_llvm(op, device), device, isa_version)
        for op in _gpu_modules(lowered)
    }


def joined(modules: dict[str, str], target: str) -> str:
    """One text for every module: a module alone as it is, several each after a
    `<comment> gpu.module @name` line."""
    description = target_named(target)
    if not modules:
        raise GpuAllocPassError(
            f"nothing to emit as {description.output}: the module has no gpu.module"
        )
    if len(modules) == 1:
        return next(iter(modules.values()))
    return "".join(
        f"{description.comment} gpu.module @{name}\n{text}" for name, text in modules.items()
    )


def write_or_exit(text: str | None, error: Exception | None, output: IO[str]) -> None:
    """What a target's `emit` does with its result: write it, or (under stock
    `xdsl-opt`) print one error line and exit 1. `gpu-alloc-opt` catches
    `GpuAllocPassError` itself, to print it at the op's line and column."""
    if isinstance(error, GpuAllocPassError):
        if pass_errors_are_raised():
            raise error
        print(f"error: {error.message}", file=sys.stderr)
        raise SystemExit(1) from None
    if error is not None:
        print(f"error: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    assert text is not None
    output.write(text)


EMIT_ERRORS = (GpuAllocPassError, ToolchainError, TargetOptionError, MlirBackendError)
"""What emitting may raise for a user's input or machine: each is one line."""
