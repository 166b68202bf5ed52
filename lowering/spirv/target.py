"""SPIR-V for OpenCL: `emit_spirv`, `emit_spirv_assembly` and the `spirv` target
(`-t spirv`).

OpenCL kernels: Workgroup storage for shared memory, CrossWorkgroup for global memory,
Function storage for private memory. The embedded backend uses llvmlite's SPIR-V
target; `backend=mlir` MLIR 22's `convert-gpu-to-llvm-spv` lowering, whose LLVM
bitcode the same LLVM target then compiles (MLIR's `convert-gpu-to-spirv` lowers no
`memref.view`, so no fused backing). `spirv_tools` assembles (`spirv-as`) and
validates (`spirv-val`) the result. See `gpu_alloc.lowering.emit` for the checks and the
hidden `lower-gpu-allocs` step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.emit import (
    EMIT_ERRORS,
    emit_modules,
    emit_objects,
    joined,
    write_or_exit,
)
from gpu_alloc.targets import TARGETS
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

__all__ = ["SpirvTarget", "emit_spirv", "emit_spirv_assembly", "emit_spirv_modules"]

NAME = "spirv"
DEFAULT_VERSION = TARGETS[NAME].default_isa_version


def emit_spirv_modules(
    module: ModuleOp, spirv_version: int = DEFAULT_VERSION, backend: str = "llvmlite"
) -> dict[str, bytes]:
    """The SPIR-V binary of each `gpu.module` in `module`, by `gpu.module` name."""
    return emit_objects(module, NAME, "", backend, spirv_version)


def emit_spirv(
    module: ModuleOp, spirv_version: int = DEFAULT_VERSION, backend: str = "llvmlite"
) -> bytes:
    """The SPIR-V binary of the one `gpu.module` in `module`."""
    binaries = emit_spirv_modules(module, spirv_version, backend)
    if len(binaries) != 1:
        raise GpuAllocPassError(
            f"emit_spirv needs one gpu.module, the module has {len(binaries)}: use "
            "emit_spirv_modules"
        )
    return next(iter(binaries.values()))


def emit_spirv_assembly(
    module: ModuleOp, spirv_version: int = DEFAULT_VERSION, backend: str = "llvmlite"
) -> str:
    """The SPIR-V assembly of every kernel in `module` (several `gpu.module`s one after
    the other, each after a `; gpu.module @name` line)."""
    return joined(emit_modules(module, NAME, "", backend, spirv_version), NAME)


@dataclass(frozen=True)
class SpirvTarget(Target):
    """`-t 'spirv{spirv_version=14 backend=llvmlite}'`: the SPIR-V assembly of every
    kernel, as `spirv-as` reads it.

    Hidden step: a module that still holds `gpu_alloc` ops is lowered first by
    `lower-gpu-allocs{chip=generic}`, on a copy."""

    name = NAME

    spirv_version: int = DEFAULT_VERSION
    """The SPIR-V version times ten (10 to 14)."""
    backend: str = "llvmlite"
    """`llvmlite` (in-process, the default) or `mlir` (MLIR 22's GPU-to-LLVM-SPV)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Writes the assembly, or (under stock `xdsl-opt`) one error line and exit 1."""
        try:
            text = emit_spirv_assembly(module, self.spirv_version, self.backend)
        except EMIT_ERRORS as error:
            write_or_exit(None, error, output)
            return
        write_or_exit(text, None, output)
