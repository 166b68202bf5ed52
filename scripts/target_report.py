"""The shared bytes of each kernel of a module file on every target and backend, fused
against unfused, as each target's own tools report them; and the fused PTX.

    python scripts/target_report.py examples/*.mlir [--no-ptx]

For `make demo`: `target_report(path)` returns readable text with the fused PTX of every
kernel (embedded llvmlite backend, sm_90) and a table, one row per kernel and variant
(fused: fuse-gpu-allocs + flatten-aliases + lower-gpu-allocs; unfused: lower-gpu-allocs
alone, one shared global per Func), one column per target and backend, of the static
shared bytes `ptxas -v` (sm_90), the `.amdhsa_group_segment_fixed_size` of the code
object `ld.lld` links (gfx942), and the Workgroup variables `spirv-val` accepted
(SPIR-V 1.4) report. Each target is compiled for its default chip; a missing tool or a
refusal is a note (one line each), and the cell says why in a word.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage import BACKENDS, COLUMNS
from gpu_alloc.lowering.emit import EMIT_ERRORS, device_for, emit_modules
from gpu_alloc.lowering.lower_gpu_allocs import DYNAMIC_SHARED_BYTES
from gpu_alloc.lowering.ptx.ptxas import PtxasError
from gpu_alloc.lowering.tool_checks import shared_bytes_by_tool
from gpu_alloc.lowering.tool_runs import ToolRejected
from gpu_alloc.syntax.mlir_gpu import MlirNameParser
from gpu_alloc.targets import TARGETS
from gpu_alloc.targets.nvidia import STATIC_SHARED_LIMIT
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.passes import ModulePass

VARIANTS: dict[str, tuple[type[ModulePass], ...]] = {
    "fused": (ImportGpuAllocsPass, FuseGpuAllocsPass, FlattenAliasesPass),
    "unfused": (ImportGpuAllocsPass,),
}
"""The passes before each target's own `lower-gpu-allocs{chip=...}` (its hidden step)."""


def _variant(source: str, passes: tuple[type[ModulePass], ...]) -> ModuleOp:
    ctx = Context()
    register_dialects(ctx)  # with MLIR's `gpu` syntax
    module = MlirNameParser(ctx, source).parse_module()
    for pass_type in passes:
        pass_type().apply(ctx, module)
    module.verify()
    return module


def _column_bytes(module: ModuleOp, column: str) -> dict[str, int] | str:
    """Per kernel, the static shared bytes the column's tools report, or why none."""
    target, backend = column.split("/")
    version = TARGETS[target].default_isa_version
    try:
        device = device_for(target, "", backend, version)
        reported: dict[str, int] = {}
        for text in emit_modules(module, target, "", backend, version).values():
            reported.update(shared_bytes_by_tool(text, device, version))
    except (*EMIT_ERRORS, ToolRejected, PtxasError) as error:
        return str(error.message if isinstance(error, GpuAllocPassError) else error)
    return reported


def opt_in_notes(module: ModuleOp, variant: str) -> list[str]:
    """A note per kernel whose dynamic shared memory is above 48 KiB on NVIDIA: its launch
    needs the larger-shared-memory opt-in."""
    lowered = module.clone()
    from gpu_alloc.lowering import LowerGpuAllocsPass

    LowerGpuAllocsPass().apply(Context(), lowered)
    notes = []
    for op in lowered.walk():
        size = op.attributes.get(DYNAMIC_SHARED_BYTES)
        if isinstance(op, gpu.FuncOp) and isinstance(size, IntegerAttr):
            if size.value.data > STATIC_SHARED_LIMIT:
                notes.append(
                    f"{variant}: kernel '{op.sym_name.data}' uses {size.value.data} bytes of "
                    "dynamic shared memory on NVIDIA (above 48 KiB): launch it with that many "
                    "dynamic shared bytes after setting cudaFuncAttributeMaxDynamicSharedMemorySize "
                    f"(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) to {size.value.data}"
                )
    return notes


def target_report(path: str | Path, include_ptx: bool = True) -> str:
    """The report of one module file, as text."""
    path = Path(path)
    source = path.read_text()
    lines: list[str] = []
    notes: list[str] = []
    rows: list[list[str]] = []
    for variant, passes in VARIANTS.items():
        try:
            module = _variant(source, passes)
            notes += opt_in_notes(module, variant)
        except GpuAllocPassError as error:
            notes.append(f"{variant}: {error.message}")
            continue
        if include_ptx and variant == "fused":
            try:
                ptx = emit_modules(
                    module, "ptx", "", "llvmlite", TARGETS["ptx"].default_isa_version
                )
                lines.append(
                    f"== {path.name}: PTX ({variant}, llvmlite, {TARGETS['ptx'].default_chip}) =="
                )
                lines += [text.rstrip() for text in ptx.values()]
            except EMIT_ERRORS as error:
                notes.append(f"{variant} PTX: {error}")
        by_column = {column: _column_bytes(module, column) for column in COLUMNS}
        kernels = sorted({k for v in by_column.values() if isinstance(v, dict) for k in v})
        for kernel in kernels:
            rows.append([kernel, variant, *(_cell(by_column[c], kernel) for c in COLUMNS)])
        for column, value in by_column.items():
            if isinstance(value, str):
                notes.append(f"{variant} {column}: {value}")
    chips = ", ".join(f"{name} {t.default_chip}" for name, t in TARGETS.items())
    lines.append(f"== {path.name}: static shared bytes as each target's tools report ({chips}) ==")
    lines += _table(["kernel", "variant", *COLUMNS], rows)
    lines += [f"note: {note}" for note in notes]
    return "\n".join(lines) + "\n"


def _cell(value: dict[str, int] | str, kernel: str) -> str:
    if isinstance(value, str):
        return "refused"
    return str(value[kernel]) if kernel in value else "-"


def _table(header: Sequence[str], body: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(cell) for cell in column) for column in zip(header, *body, strict=True)]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in (header, *body)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("files", nargs="+", help="MLIR files holding gpu.modules")
    parser.add_argument("--no-ptx", action="store_true", help="print only the bytes table")
    options = parser.parse_args(argv)
    for file_name in options.files:
        sys.stdout.write(target_report(file_name, not options.no_ptx))
    return 0


__all__ = ["BACKENDS", "main", "target_report"]

if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    sys.exit(main())
