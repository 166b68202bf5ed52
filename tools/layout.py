"""`gpu-alloc-layout`: draw each kernel's fused layout as a memory plan (SVG).

    gpu-alloc-layout KERNEL.mlir --svg OUT.svg [--profile-json PROFILE.json]
                     [--alignment N] [--max-shared-bytes N]

Runs `import-gpu-allocs`, `fuse-gpu-allocs` and `flatten-aliases` on the input (all
three leave imported, fused or flattened input as it is, so MLIR's own forms are drawn
too) and draws what `gpu_alloc.api.fusion_result` reads back for every kernel fuse
fuses (`gpu.func` kernels, `gpu.launch` bodies, workgroup `func.func`s): one panel per
kernel and memory space (shared, heap), x = barrier stage, y = byte offset, one
labelled rectangle per Func spanning its stage interval and its bytes; the heading gives
unfused -> fused bytes, the saving, the lower bound and whether it is proven optimal, and
the barrier that begins each stage is drawn with its source line (`tools/layout_svg.py`
says how). With a profile from `gpu-alloc-sim --profile-json`, each Func of the profiled
kernel is coloured by its bank conflicts (white: none) and the number is printed. Bad
input: one line on stderr, exit 1, and no file written.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gpu_alloc import xdsl_fixes
from gpu_alloc.dialect import FuncSlice
from gpu_alloc.errors import GpuAllocPassError, one_line_usage_errors, run_tool
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.tools.diagnostics import SourceMap, format_op_error
from gpu_alloc.tools.files import read_input, write_output
from gpu_alloc.tools.layout_svg import SpaceLayout, render_svg
from gpu_alloc.tools.sim_loading import load_located_module, make_context
from gpu_alloc.version import add_version_option
from xdsl.dialects.builtin import ModuleOp

if TYPE_CHECKING:
    from gpu_alloc.transforms.fuse.result import FuncPlacement


class LayoutError(Exception):
    """A problem with the input, already worded for the user."""


def fused_layouts(module: ModuleOp, alignment: int = 16, max_shared_bytes: int | None = None):
    """Imports, fuses and flattens `module` (in place) and returns every kernel's layouts: what
    `gpu_alloc.api.fusion_result` reads back, with the barrier that begins each stage."""
    # The passes, loaded when there is a module to fuse (not for --help or a bad option).
    from gpu_alloc.transforms.block_level_code import block_level_code
    from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
    from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass
    from gpu_alloc.transforms.fuse.result import read_fusion_result
    from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
    from gpu_alloc.transforms.kernel_ir import kernel_name
    from gpu_alloc.transforms.layout_record import barrier_lines, describe_barriers
    from gpu_alloc.transforms.lifetimes import stage_map

    ctx = make_context()
    ImportGpuAllocsPass().apply(ctx, module)
    FuseGpuAllocsPass(alignment=alignment, max_shared_bytes=max_shared_bytes).apply(ctx, module)
    FlattenAliasesPass().apply(ctx, module)
    barriers = {
        kernel_name(kernel): {
            stage: describe_barriers(lines)
            for stage, lines in barrier_lines(stage_map(kernel)).items()
        }
        for kernel in block_level_code(module)
    }
    return [
        SpaceLayout(
            kernel.kernel,
            space.space,
            space.backing,
            space.fused_bytes,
            kernel.stages,
            [_slice(f) for f in space.funcs],
            {},
            unfused=space.unfused_bytes,
            proven=space.proven,
            proven_bound=space.lower_bound,
            barriers=barriers.get(kernel.kernel, {}),
        )
        for kernel in read_fusion_result(module).kernels
        for space in kernel.spaces
    ]


def _slice(func: FuncPlacement) -> FuncSlice:
    assert func.offset is not None and func.bytes is not None  # recorded Funcs are static
    return FuncSlice(func.name, func.offset, func.bytes, func.first_stage, func.last_stage)


def with_profile(layouts: list[SpaceLayout], profile: dict[str, Any]) -> list[SpaceLayout]:
    """The layouts with each profiled Func's bank conflicts attached."""
    by_name = {(f["space"], f["name"]): f.get("bank_conflicts") for f in profile["funcs"]}
    return [
        dataclasses.replace(
            layout,
            conflicts={
                s.name: by_name.get((layout.space, s.name))
                for s in layout.slices
                if layout.kernel == profile["kernel"]
            },
        )
        for layout in layouts
    ]


def read_profile(path: str) -> dict[str, Any]:
    try:
        data = json.loads(read_input(path))
    except json.JSONDecodeError as error:
        raise LayoutError(f"{path}: not JSON: {error}") from None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("kernel"), str)
        or not isinstance(data.get("funcs"), list)
        or not all(isinstance(f, dict) and "name" in f and "space" in f for f in data["funcs"])
    ):
        raise LayoutError(f"{path}: not a gpu-alloc-sim --profile-json file")
    return data


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-layout", description="Draw each kernel's fused layout as an SVG."
    )
    parser.add_argument("input", help="MLIR file with gpu.module kernels")
    parser.add_argument("--svg", required=True, metavar="OUT.svg", help="picture to write")
    parser.add_argument("--profile-json", help="a gpu-alloc-sim --profile-json file")
    parser.add_argument("--alignment", type=int, default=16, help="fuse-gpu-allocs alignment")
    parser.add_argument(
        "--max-shared-bytes",
        type=int,
        default=None,
        help="shared bytes a kernel may use (default: fuse-gpu-allocs's, 48 KiB)",
    )
    add_version_option(parser, "gpu-alloc-layout")
    return one_line_usage_errors(parser)


def run(options: argparse.Namespace, module: ModuleOp) -> None:
    """Writes the picture of `module` (the input, parsed)."""
    profile = read_profile(options.profile_json) if options.profile_json else None
    layouts = fused_layouts(module, options.alignment, options.max_shared_bytes)
    if profile is not None:
        layouts = with_profile(layouts, profile)
    svg = render_svg(layouts, title=Path(options.input).name)
    write_output(options.svg, svg)


def main(args: Sequence[str] | None = None) -> None:
    xdsl_fixes.apply()  # this process is ours: read what MLIR prints (docs/xdsl-upstream.md)
    run_tool("gpu-alloc-layout", lambda: _main(args))


def _main(args: Sequence[str] | None) -> None:
    options = _parser().parse_args(args)
    source_map: SourceMap | None = None
    try:
        module, source_map = load_located_module(options.input, "gpu-alloc-layout")
        run(options, module)
    except (LayoutError, SimulationError, GpuAllocPassError) as error:
        print(_error_line(error, source_map), file=sys.stderr)
        sys.exit(1)


def _error_line(
    error: LayoutError | SimulationError | GpuAllocPassError, source_map: SourceMap | None
) -> str:
    """A pass's error at its op's `file:line:col`, else `gpu-alloc-layout: error:`."""
    message = str(error).strip().splitlines()[0]
    if "error:" in message:  # already located (a parse or verify error)
        return message
    op = getattr(error, "op", None)
    if op is not None and source_map is not None:
        return format_op_error(source_map, op, message)
    return f"gpu-alloc-layout: error: {message}"


if __name__ == "__main__":
    main()
