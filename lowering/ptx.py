"""PTX emission: `emit_ptx` and the `ptx` target of `xdsl-opt -t ptx`.

Two backends produce the PTX of every kernel of a module lowered by
`lower-gpu-allocs` (a module that still holds `gpu_alloc` ops is lowered first):

* `llvmlite` (default, in-process, pip-only): `to_llvm` to xDSL's `llvm` dialect,
  then xDSL's LLVM backend and llvmlite's NVPTX target (`llvmlite_backend`);
* `mlir` (reference): MLIR 22's `mlir-opt-22 --gpu-lower-to-nvvm-pipeline`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import IO

from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.toolchain import ToolchainError
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.target import Target

DEFAULT_CHIP = "sm_90"
DEFAULT_PTX_VERSION = 80
BACKENDS = ("llvmlite", "mlir")


def _lowered(module: ModuleOp) -> ModuleOp:
    if not any(
        isinstance(op, AllocOp | AliasOp | OffsetPointerOp | DeallocOp) for op in module.walk()
    ):
        return module
    lowered = module.clone()
    LowerGpuAllocsPass().apply(Context(), lowered)
    return lowered


def emit_ptx_modules(
    module: ModuleOp,
    chip: str = DEFAULT_CHIP,
    ptx_version: int = DEFAULT_PTX_VERSION,
    backend: str = "llvmlite",
) -> dict[str, str]:
    """The PTX of each `gpu.module` in `module`, by `gpu.module` name."""
    lowered = _lowered(module)
    if backend == "mlir":
        from gpu_alloc.lowering.mlir_backend import emit_ptx_with_mlir

        return emit_ptx_with_mlir(lowered, chip, ptx_version)
    if backend != "llvmlite":
        raise ValueError(f"unknown PTX backend '{backend}' (choose from {', '.join(BACKENDS)})")
    from gpu_alloc.lowering.llvmlite_backend import compile_to_ptx
    from gpu_alloc.lowering.to_llvm import lower_gpu_module_to_llvm

    return {
        op.sym_name.data: compile_to_ptx(lower_gpu_module_to_llvm(op), chip, f"+ptx{ptx_version}")
        for op in lowered.walk()
        if isinstance(op, gpu.ModuleOp)
    }


def emit_ptx(
    module: ModuleOp,
    chip: str = DEFAULT_CHIP,
    ptx_version: int = DEFAULT_PTX_VERSION,
    backend: str = "llvmlite",
) -> str:
    """The PTX of every kernel in `module`.

    One `gpu.module` gives one PTX module; several are printed one after the other,
    each after a `// gpu.module @name` line.
    """
    modules = emit_ptx_modules(module, chip, ptx_version, backend)
    if not modules:
        raise GpuAllocPassError("nothing to emit as PTX: the module has no gpu.module")
    if len(modules) == 1:
        return next(iter(modules.values()))
    return "".join(f"// gpu.module @{name}\n{ptx}" for name, ptx in modules.items())


@dataclass(frozen=True)
class PtxTarget(Target):
    """`-t 'ptx{chip=sm_90 ptx_version=80 backend=llvmlite}'`: the PTX of every kernel."""

    name = "ptx"

    chip: str = DEFAULT_CHIP
    """The `sm_XX` architecture to compile for."""
    ptx_version: int = DEFAULT_PTX_VERSION
    """The PTX ISA version times ten (80 is PTX 8.0)."""
    backend: str = "llvmlite"
    """`llvmlite` (in-process, the default) or `mlir` (MLIR 22's `mlir-opt-22`)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            output.write(emit_ptx(module, self.chip, self.ptx_version, self.backend))
        except (ToolchainError, GpuAllocPassError) as error:
            print(f"error: {error}", file=sys.stderr)
            raise SystemExit(1) from None
