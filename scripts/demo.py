"""`make demo`: fuse, flatten, lower and emit PTX for every example, with a report, and
draw each example's fused layout to `build/layouts/<example>.svg` (`gpu-alloc-layout`)."""

from __future__ import annotations

import sys
from pathlib import Path

from gpu_alloc.syntax.mlir_gpu import MlirNameParser
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass, fuse_module
from gpu_alloc.transforms.fuse.report import format_report
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer


def context() -> Context:
    ctx = Context()
    register_dialects(ctx)  # MLIR's `gpu` syntax too (examples/mlir_transpose.mlir)
    return ctx


def parse(ctx: Context, path: Path) -> ModuleOp:
    return MlirNameParser(ctx, path.read_text(), str(path)).parse_module()


def banner(text: str) -> None:
    print(f"\n{'=' * 78}\n{text}\n{'=' * 78}")


def demo(path: Path) -> None:
    ctx = context()
    module = parse(ctx, path)
    ImportGpuAllocsPass().apply(ctx, module)  # MLIR's buffers to gpu_alloc; else a no-op
    banner(f"{path.name}: import-gpu-allocs, fuse-gpu-allocs")
    print(format_report(fuse_module(module, FuseGpuAllocsPass())))
    FlattenAliasesPass().apply(ctx, module)
    module.verify()
    banner(f"{path.name}: after flatten-aliases (kernel entry)")
    kernel_entry_lines(module)
    lower_and_emit(path)
    draw_layout(path)


def draw_layout(path: Path, folder: Path = Path("build/layouts")) -> None:
    """The example's fused layout as a picture (what `gpu-alloc-layout` draws)."""
    from gpu_alloc.tools.layout import fused_layouts
    from gpu_alloc.tools.layout_svg import render_svg
    from gpu_alloc.tools.sim_loading import load_module

    folder.mkdir(parents=True, exist_ok=True)
    out = folder / f"{path.stem}.svg"
    out.write_text(render_svg(fused_layouts(load_module(str(path))), title=path.name))
    banner(f"{path.name}: layout picture written to {out}")


def kernel_entry_lines(module: ModuleOp, limit: int = 12) -> None:
    """The first ops of each kernel: where the backing and its views are."""
    from io import StringIO

    from gpu_alloc.transforms.block_level_code import gpu_kernels

    for kernel in gpu_kernels(module):
        out = StringIO()
        printer = Printer(stream=out)
        print(f"@{kernel.sym_name.data}:")
        for op in list(kernel.body.blocks[0].ops)[:limit]:
            out.seek(0)
            out.truncate()
            printer.print_op(op)
            print("  " + out.getvalue().strip().splitlines()[0])


def lower_and_emit(path: Path) -> None:
    try:
        from target_report import target_report  # scripts/target_report.py
    except ImportError:
        print("(lowering and PTX: not available yet)")
        return
    banner(f"{path.name}: PTX, fused vs unfused")
    print(target_report(path))


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "examples")
    sys.path.insert(0, str(Path(__file__).parent))
    for path in sorted(folder.glob("*.mlir")):
        demo(path)


if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    main()
