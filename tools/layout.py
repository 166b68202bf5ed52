"""`gpu-alloc-layout`: draw each kernel's fused layout as a memory plan (SVG).

    gpu-alloc-layout KERNEL.mlir --svg OUT.svg [--profile-json PROFILE.json]
                     [--alignment N] [--max-shared-bytes N]

Runs `fuse-gpu-allocs` and `flatten-aliases` on the input (both leave fused or
flattened input as it is) and reads the `gpu_alloc.layout` record of every backing:
one panel per kernel and memory space (shared, heap), x = barrier stage, y = byte
offset, one labelled rectangle per Func spanning its stage interval and its bytes,
with the backing's size and the lower bound (the most bytes live in one stage). With
a profile from `gpu-alloc-sim --profile-json`, each Func of the profiled kernel is
shaded by its bank conflicts and the number is printed. Bad input: one line on stderr,
exit 1, and no file written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from gpu_alloc.dialect import LAYOUT_ATTR, AllocOp, FuncSlice, MemorySpace, read_layout
from gpu_alloc.errors import GpuAllocPassError, one_line_usage_errors, run_tool
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.loading import load_module, make_context
from gpu_alloc.tools.files import read_input, write_output
from gpu_alloc.tools.layout_svg import SpaceLayout, render_svg
from gpu_alloc.transforms.block_level_code import gpu_kernels
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse_gpu_allocs import FuseGpuAllocsPass
from gpu_alloc.transforms.kernel_ir import kernel_name
from gpu_alloc.transforms.layout_record import closed_stages, stage_count
from gpu_alloc.transforms.lifetimes import lifetime, stage_map
from xdsl.dialects import gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp

SPACE_WORDS = {MemorySpace.SHARED: "shared", MemorySpace.GLOBAL: "heap"}


class LayoutError(Exception):
    """A problem with the input, already worded for the user."""


def _backing_size(alloc: AllocOp, slices: list[FuncSlice]) -> int:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    size = static_byte_size(memref_type)
    return size if size is not None else max((s.end for s in slices), default=0)


def _kernel_layouts(kernel: gpu.FuncOp) -> list[SpaceLayout]:
    stages = stage_map(kernel)
    layouts: list[SpaceLayout] = []
    for alloc in kernel.walk():
        if not isinstance(alloc, AllocOp) or alloc.space not in SPACE_WORDS:
            continue
        record = alloc.attributes.get(LAYOUT_ATTR)
        if record is not None:
            slices = read_layout(record)
        else:  # a lone Func that fusion kept as it is
            memref_type = alloc.memref.type
            assert isinstance(memref_type, MemRefType)
            size = static_byte_size(memref_type)
            if size is None:
                continue
            span = lifetime(alloc, alloc.memref, stages)
            slices = [FuncSlice(alloc.alloc_name.data, 0, size, *closed_stages(span))]
        layouts.append(
            SpaceLayout(
                kernel_name(kernel),
                SPACE_WORDS[MemorySpace(alloc.space)],
                alloc.alloc_name.data,
                _backing_size(alloc, slices),
                stage_count(stages),
                slices,
                {},
            )
        )
    return layouts


def fused_layouts(module: ModuleOp, alignment: int = 16, max_shared_bytes: int = 49152):
    """Fuses and flattens `module` (in place) and returns every kernel's layouts."""
    ctx = make_context()
    FuseGpuAllocsPass(alignment=alignment, max_shared_bytes=max_shared_bytes).apply(ctx, module)
    FlattenAliasesPass().apply(ctx, module)
    return [layout for kernel in gpu_kernels(module) for layout in _kernel_layouts(kernel)]


def with_profile(layouts: list[SpaceLayout], profile: dict[str, Any]) -> list[SpaceLayout]:
    """The layouts with each profiled Func's bank conflicts attached."""
    by_name = {(f["space"], f["name"]): f.get("bank_conflicts") for f in profile["funcs"]}
    return [
        SpaceLayout(
            layout.kernel,
            layout.space,
            layout.backing,
            layout.size,
            layout.stages,
            layout.slices,
            {
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
    parser.add_argument("--max-shared-bytes", type=int, default=49152)
    return one_line_usage_errors(parser)


def run(options: argparse.Namespace) -> None:
    profile = read_profile(options.profile_json) if options.profile_json else None
    module = load_module(options.input)
    layouts = fused_layouts(module, options.alignment, options.max_shared_bytes)
    if profile is not None:
        layouts = with_profile(layouts, profile)
    svg = render_svg(layouts, title=Path(options.input).name)
    write_output(options.svg, svg)


def main(args: Sequence[str] | None = None) -> None:
    run_tool("gpu-alloc-layout", lambda: _main(args))


def _main(args: Sequence[str] | None) -> None:
    options = _parser().parse_args(args)
    try:
        run(options)
    except (LayoutError, SimulationError, GpuAllocPassError) as error:
        message = str(error).strip().splitlines()[0]
        prefix = "" if "error:" in message else "gpu-alloc-layout: error: "
        print(prefix + message, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
