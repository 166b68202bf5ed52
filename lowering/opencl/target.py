"""OpenCL C: `emit_opencl_modules`, `emit_opencl_source` and the `opencl` target
(`-t opencl`).

The source of every kernel after `lower-gpu-allocs` (`c`), checked like the
other targets' output before it is printed (`emit.prepared`: options, coverage,
symbols, the chip's shared bytes); `opencl_tools` builds it with PoCL and
`gpu-alloc-run` runs it on PoCL or Oclgrind. See `gpu_alloc.lowering.emit` for the
checks and the hidden `lower-gpu-allocs` step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from gpu_alloc.lowering.emit import EMIT_ERRORS, joined, prepared, write_or_exit
from gpu_alloc.lowering.opencl.c import OpenClModule, emit_opencl
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

__all__ = ["OpenClTarget", "emit_opencl_modules", "emit_opencl_source"]

NAME = "opencl"
BACKEND = "c"


def emit_opencl_modules(module: ModuleOp, chip: str = "") -> dict[str, OpenClModule]:
    """Each `gpu.module` of `module` as OpenCL C (with its kernels' parameters and the
    op of each line), by `gpu.module` name."""
    lowered, device = prepared(module, NAME, chip, BACKEND, 0)
    return emit_opencl(lowered, device)


def emit_opencl_source(module: ModuleOp, chip: str = "") -> str:
    """The OpenCL C of every `gpu.module` in `module` (several one after the other, each
    after a `// gpu.module @name` line)."""
    modules = emit_opencl_modules(module, chip)
    return joined({name: m.source for name, m in modules.items()}, NAME)


@dataclass(frozen=True)
class OpenClTarget(Target):
    """`-t opencl`: OpenCL C 1.2 source of every kernel, as PoCL, Oclgrind and OpenCL
    drivers build it.

    Hidden step: a module that still holds `gpu_alloc` ops is lowered first by
    `lower-gpu-allocs{chip=opencl1.2}`, on a copy."""

    name = NAME

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Writes the source, or (under stock `xdsl-opt`) one error line and exit 1."""
        try:
            text = emit_opencl_source(module)
        except EMIT_ERRORS as error:
            write_or_exit(None, error, output)
            return
        write_or_exit(text, None, output)
