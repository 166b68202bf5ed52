"""PTX and `ptxas -v` resources of each kernel of a module file, fused against unfused.

    python scripts/ptx_report.py examples/*.mlir [--chip sm_90] [--no-ptx]

For `make demo`: `ptx_report(path)` returns readable text with the fused PTX of every
kernel (embedded llvmlite backend) and a table of what `ptxas -v` says for each kernel,
variant (fused: fuse-gpu-allocs + flatten-aliases + lower-gpu-allocs; unfused:
lower-gpu-allocs alone, one shared global per Func) and backend (llvmlite, and mlir
when `mlir-opt-22` is installed). Missing tools are reported in one line each.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc.dialect.mlir_gpu import MlirNameParser
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering import LowerGpuAllocsPass
from gpu_alloc.lowering.lower_gpu_allocs import DYNAMIC_SHARED_BYTES
from gpu_alloc.lowering.mlir_backend import MlirBackendError
from gpu_alloc.lowering.ptx import DEFAULT_PTX_VERSION, emit_ptx
from gpu_alloc.lowering.ptxas import KernelResources, PtxasError, assemble
from gpu_alloc.lowering.targets import STATIC_SHARED_LIMIT, TargetOptionError, check_target
from gpu_alloc.lowering.toolchain import ToolchainError, have_mlir_opt
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse_gpu_allocs import FuseGpuAllocsPass
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.passes import ModulePass

VARIANTS: dict[str, tuple[type[ModulePass], ...]] = {
    "fused": (ImportGpuAllocsPass, FuseGpuAllocsPass, FlattenAliasesPass, LowerGpuAllocsPass),
    "unfused": (ImportGpuAllocsPass, LowerGpuAllocsPass),
}


@dataclass(frozen=True)
class Row:
    kernel: str
    variant: str
    backend: str
    resources: KernelResources


def _context() -> Context:
    ctx = Context()
    register_dialects(ctx)  # with MLIR's `gpu` syntax
    return ctx


def _lower(source: str, passes: tuple[type[ModulePass], ...], chip: str) -> ModuleOp:
    ctx = _context()
    module = MlirNameParser(ctx, source).parse_module()
    for pass_type in passes:
        pass_ = FuseGpuAllocsPass(chip=chip) if pass_type is FuseGpuAllocsPass else pass_type()
        pass_.apply(ctx, module)
    module.verify()
    return module


def opt_in_notes(module: ModuleOp, variant: str) -> list[str]:
    """A note per kernel whose dynamic shared memory is above 48 KiB: its launch needs
    the larger-shared-memory opt-in."""
    notes = []
    for op in module.walk():
        size = op.attributes.get(DYNAMIC_SHARED_BYTES)
        if isinstance(op, gpu.FuncOp) and isinstance(size, IntegerAttr):
            if size.value.data > STATIC_SHARED_LIMIT:
                notes.append(
                    f"{variant}: kernel '{op.sym_name.data}' uses {size.value.data} bytes of "
                    "dynamic shared memory (above 48 KiB): launch it with that many dynamic "
                    "shared bytes after setting cudaFuncAttributeMaxDynamicSharedMemorySize "
                    f"(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) to {size.value.data}"
                )
    return notes


def ptx_report(path: str | Path, chip: str = "sm_90", include_ptx: bool = True) -> str:
    """The report of one module file, as text."""
    path = Path(path)
    source = path.read_text()
    backends = ["llvmlite", "mlir"] if have_mlir_opt() else ["llvmlite"]
    lines: list[str] = []
    notes: list[str] = []
    if "mlir" not in backends:
        notes.append("mlir backend skipped: mlir-opt-22 not found (apt-get install mlir-22-tools)")
    rows: list[Row] = []
    for variant, passes in VARIANTS.items():
        try:
            module = _lower(source, passes, chip)
        except GpuAllocPassError as error:
            notes.append(f"{variant}: {error.message}")
            continue
        notes += opt_in_notes(module, variant)
        for backend in backends:
            try:
                ptx = emit_ptx(module, chip=chip, backend=backend)
            except (GpuAllocPassError, MlirBackendError) as error:
                notes.append(f"{variant} {backend}: {error}")
                continue
            if include_ptx and backend == "llvmlite" and (variant == "fused" or not rows):
                lines += [f"== {path.name}: PTX ({variant}, {backend}, {chip}) ==", ptx.rstrip()]
            try:
                resources = assemble(ptx, chip)
            except ToolchainError as error:
                return "\n".join([*lines, f"== {path.name}: ptxas -v ==", str(error), ""])
            except PtxasError as error:
                notes.append(f"{variant} {backend}: {error}")
                continue
            rows += [Row(k, variant, backend, r) for k, r in sorted(resources.items())]
    lines.append(f"== {path.name}: ptxas -v ({chip}) ==")
    lines += _table(rows)
    lines += [f"note: {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _table(rows: Sequence[Row]) -> list[str]:
    header = ("kernel", "variant", "backend", "registers", "shared bytes", "ptxas")
    body = [
        (
            r.kernel,
            r.variant,
            r.backend,
            str(r.resources.registers),
            str(r.resources.shared_bytes),
            r.resources.usage_line,
        )
        for r in rows
    ]
    widths = [max(len(cell) for cell in column) for column in zip(header, *body, strict=True)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *body)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="+", help="MLIR files holding gpu.modules")
    parser.add_argument("--chip", default="sm_90", help="sm_XX to compile for (default sm_90)")
    parser.add_argument("--no-ptx", action="store_true", help="print only the ptxas table")
    options = parser.parse_args(argv)
    try:
        check_target(options.chip, DEFAULT_PTX_VERSION)
    except TargetOptionError as error:
        parser.error(str(error))
    for file_name in options.files:
        sys.stdout.write(ptx_report(file_name, options.chip, not options.no_ptx))
    return 0


if __name__ == "__main__":
    sys.exit(main())
