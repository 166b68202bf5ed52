"""PTX for NVIDIA GPUs: `emit_ptx` and the `ptx` target of `xdsl-opt -t ptx`.

See `gpu_alloc.lowering.emit` for what every target does: the backends (llvmlite's
NVPTX target, or MLIR 22's `--gpu-lower-to-nvvm-pipeline`), the checks, the hidden
`lower-gpu-allocs` step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from gpu_alloc.errors import pass_errors_raised
from gpu_alloc.lowering.emit import (
    EMIT_ERRORS,
    emit_modules,
    joined,
    write_or_exit,
)
from gpu_alloc.targets import TARGETS
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

__all__ = ["PtxTarget", "emit_ptx", "emit_ptx_modules", "pass_errors_raised"]

NAME = "ptx"
DEFAULT_CHIP = TARGETS[NAME].default_chip
DEFAULT_PTX_VERSION = TARGETS[NAME].default_isa_version


def emit_ptx_modules(
    module: ModuleOp,
    chip: str = "",
    ptx_version: int = DEFAULT_PTX_VERSION,
    backend: str = "llvmlite",
) -> dict[str, str]:
    """The PTX of each `gpu.module` in `module`, by `gpu.module` name."""
    return emit_modules(module, NAME, chip, backend, ptx_version)


def emit_ptx(
    module: ModuleOp,
    chip: str = "",
    ptx_version: int = DEFAULT_PTX_VERSION,
    backend: str = "llvmlite",
) -> str:
    """The PTX of every kernel in `module`: one `gpu.module` gives one PTX module;
    several are printed one after the other, each after a `// gpu.module @name` line."""
    return joined(emit_ptx_modules(module, chip, ptx_version, backend), NAME)


@dataclass(frozen=True)
class PtxTarget(Target):
    """`-t 'ptx{chip=sm_90 ptx_version=80 backend=llvmlite}'`: the PTX of every kernel.

    Hidden step: a module that still holds `gpu_alloc` ops is lowered first by
    `lower-gpu-allocs{chip=...}` (which flattens aliases first), on a copy."""

    name = NAME

    chip: str = ""
    """The `sm_XX` architecture to compile for (default: the `gpu.module`'s
    `#nvvm.target`, else the target's default chip, sm_90); attached to modules without one."""
    ptx_version: int = DEFAULT_PTX_VERSION
    """The PTX ISA version times ten (80 is PTX 8.0)."""
    backend: str = "llvmlite"
    """`llvmlite` (in-process, the default) or `mlir` (MLIR 22's `mlir-opt-22`)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Writes the PTX, or (under stock `xdsl-opt`) one error line and exit 1."""
        try:
            text = emit_ptx(module, self.chip, self.ptx_version, self.backend)
        except EMIT_ERRORS as error:
            write_or_exit(None, error, output)
            return
        write_or_exit(text, None, output)
