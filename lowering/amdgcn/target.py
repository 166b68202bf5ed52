"""AMDGPU assembly for AMD GPUs: `emit_amdgcn` and the `amdgcn` target (`-t amdgcn`).

The embedded backend uses llvmlite's AMDGPU target (`amdgpu_kernel`, LDS in address
space 3, private memory in 5, workgroup fences around `s_barrier`), the MLIR backend
MLIR 22's ROCDL path (`convert-gpu-to-rocdl`, `rocdl-attach-target`,
`gpu-module-to-binary{format=isa}`). `amdgpu_tools` assembles and links the result
into a code object with LLVM's `llvm-mc` and `ld.lld`. See `gpu_alloc.lowering.emit`
for the checks and the hidden `lower-gpu-allocs` step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from gpu_alloc.lowering.emit import EMIT_ERRORS, emit_modules, joined, write_or_exit
from gpu_alloc.targets import TARGETS
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

__all__ = ["AmdgcnTarget", "emit_amdgcn", "emit_amdgcn_modules"]

NAME = "amdgcn"
DEFAULT_CHIP = TARGETS[NAME].default_chip


def emit_amdgcn_modules(
    module: ModuleOp, chip: str = "", backend: str = "llvmlite"
) -> dict[str, str]:
    """The AMDGPU assembly of each `gpu.module` in `module`, by `gpu.module` name."""
    return emit_modules(module, NAME, chip, backend, 0)


def emit_amdgcn(module: ModuleOp, chip: str = "", backend: str = "llvmlite") -> str:
    """The AMDGPU assembly of every kernel in `module` (several `gpu.module`s one after
    the other, each after a `; gpu.module @name` line)."""
    return joined(emit_amdgcn_modules(module, chip, backend), NAME)


@dataclass(frozen=True)
class AmdgcnTarget(Target):
    """`-t 'amdgcn{chip=gfx942 backend=llvmlite}'`: the AMDGPU assembly of every kernel.

    Hidden step: a module that still holds `gpu_alloc` ops is lowered first by
    `lower-gpu-allocs{chip=...}`, on a copy."""

    name = NAME

    chip: str = ""
    """The `gfxNNN` processor to compile for (gfx90a, gfx942, gfx950, gfx1100, ...; default:
    the `gpu.module`'s `#rocdl.target`, else gfx942); attached to modules without one."""
    backend: str = "llvmlite"
    """`llvmlite` (in-process, the default) or `mlir` (MLIR 22's ROCDL path)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Writes the assembly, or (under stock `xdsl-opt`) one error line and exit 1."""
        try:
            text = emit_amdgcn(module, self.chip, self.backend)
        except EMIT_ERRORS as error:
            write_or_exit(None, error, output)
            return
        write_or_exit(text, None, output)
