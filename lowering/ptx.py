"""PTX emission: `emit_ptx` and the `ptx` target of `xdsl-opt -t ptx`.

Two backends produce the PTX of every kernel of a module lowered by
`lower-gpu-allocs` (a module that still holds `gpu_alloc` ops is lowered first):

* `llvmlite` (default, in-process, pip-only): `to_llvm` to xDSL's `llvm` dialect,
  then xDSL's LLVM backend and llvmlite's NVPTX target (`llvmlite_backend`);
* `mlir` (reference): MLIR 22's `mlir-opt-22 --gpu-lower-to-nvvm-pipeline`.

Before anything is lowered, the chip and PTX version are checked against `targets`
and every op against the coverage contract (`coverage.check_coverage`), so an error
points at the user's op. The target prints every error as one line and exits with 1.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import IO

from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage import BACKENDS, check_coverage
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.mlir_backend import MlirBackendError
from gpu_alloc.lowering.pre_lowering import pre_lower
from gpu_alloc.lowering.targets import TargetOptionError, check_target
from gpu_alloc.lowering.toolchain import ToolchainError
from gpu_alloc.provenance import cloned
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.utils.target import Target

DEFAULT_CHIP = "sm_90"
DEFAULT_PTX_VERSION = 80


_RAISE_PASS_ERRORS: ContextVar[bool] = ContextVar("raise_pass_errors", default=False)


@contextmanager
def pass_errors_raised() -> Iterator[None]:
    """Within this, the `ptx` target raises `GpuAllocPassError` for the driver to print
    at the op's source location (`gpu-alloc-opt` does) instead of printing it."""
    token = _RAISE_PASS_ERRORS.set(True)
    try:
        yield
    finally:
        _RAISE_PASS_ERRORS.reset(token)


def _lowered(module: ModuleOp) -> ModuleOp:
    if not any(
        isinstance(op, AllocOp | AliasOp | OffsetPointerOp | DeallocOp) for op in module.walk()
    ):
        return module
    lowered = cloned(module)
    LowerGpuAllocsPass().apply(Context(), lowered)
    return lowered


PTX_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+")
"""What PTX accepts as a symbol name (LLVM's NVPTX backend aborts on anything else)."""


def check_symbol_names(module: ModuleOp) -> None:
    """Refuse a kernel, function or global inside a `gpu.module` whose name PTX
    cannot spell, at the op that declares it."""
    for op in module.walk():
        if not isinstance(op.parent_op(), gpu.ModuleOp):
            continue
        name = op.properties.get("sym_name", op.attributes.get("sym_name"))
        if isinstance(name, StringAttr) and not PTX_IDENTIFIER.fullmatch(name.data):
            raise GpuAllocPassError(
                f"symbol name '{name.data}' is not a PTX identifier (letters, digits, "
                "'_' and '$', not starting with a digit)",
                op,
            )


def emit_ptx_modules(
    module: ModuleOp,
    chip: str = DEFAULT_CHIP,
    ptx_version: int = DEFAULT_PTX_VERSION,
    backend: str = "llvmlite",
) -> dict[str, str]:
    """The PTX of each `gpu.module` in `module`, by `gpu.module` name.

    Raises `TargetOptionError` for an unknown backend, chip or PTX version,
    `GpuAllocPassError` (at the op) for an op the backend does not lower."""
    if backend not in BACKENDS:
        raise TargetOptionError(
            f"unknown PTX backend '{backend}' (choose from {', '.join(BACKENDS)})"
        )
    check_target(chip, ptx_version)
    check_coverage(module, backend)
    check_symbol_names(module)
    lowered = _lowered(module)
    if lowered is module:
        lowered = cloned(module)
    pre_lower(lowered)  # affine, index, scf.forall/parallel: for both backends
    if backend == "mlir":
        from gpu_alloc.lowering.mlir_backend import emit_ptx_with_mlir

        return emit_ptx_with_mlir(lowered, chip, ptx_version)
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
    """`-t 'ptx{chip=sm_90 ptx_version=80 backend=llvmlite}'`: the PTX of every kernel.

    Hidden step: a module that still holds `gpu_alloc` ops is lowered first by
    `lower-gpu-allocs` (which flattens aliases first), on a copy: `-t ptx` on fused
    IR gives the PTX of `-p flatten-aliases,lower-gpu-allocs -t ptx`."""

    name = "ptx"

    chip: str = DEFAULT_CHIP
    """The `sm_XX` architecture to compile for."""
    ptx_version: int = DEFAULT_PTX_VERSION
    """The PTX ISA version times ten (80 is PTX 8.0)."""
    backend: str = "llvmlite"
    """`llvmlite` (in-process, the default) or `mlir` (MLIR 22's `mlir-opt-22`)."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        """Writes the PTX, or (under stock `xdsl-opt`) one error line and exit 1.

        `gpu-alloc-opt` catches `GpuAllocPassError` itself, to print it at the op's
        line and column, so that one is only re-raised when this driver runs."""
        try:
            ptx = emit_ptx(module, self.chip, self.ptx_version, self.backend)
        except GpuAllocPassError as error:
            if _RAISE_PASS_ERRORS.get():
                raise
            print(f"error: {error.message}", file=sys.stderr)
            raise SystemExit(1) from None
        except (ToolchainError, TargetOptionError, MlirBackendError) as error:
            print(f"error: {error}", file=sys.stderr)
            raise SystemExit(1) from None
        output.write(ptx)
