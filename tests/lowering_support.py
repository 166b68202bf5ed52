"""Shared helpers of the lowering and PTX tests: parsing, paths, running a pass."""

from __future__ import annotations

from pathlib import Path

from gpu_alloc.syntax.mlir_gpu import MlirNameParser
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LOWERING_INPUTS = ROOT / "tests" / "filecheck" / "lowering" / "inputs"


def make_context() -> Context:
    ctx = Context()
    register_dialects(ctx)  # MLIR's `gpu` syntax too (examples/mlir_transpose.mlir)
    return ctx


def parse(text: str) -> ModuleOp:
    module = MlirNameParser(make_context(), text).parse_module()
    module.verify()
    return module


def load(path: Path) -> ModuleOp:
    """The module of `path`, its MLIR buffers imported (a no-op for gpu_alloc input)."""
    from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass

    module = parse(path.read_text())
    ImportGpuAllocsPass().apply(make_context(), module)
    return module


def run_pipeline(module: ModuleOp, pipeline: str) -> ModuleOp:
    """`module` after the passes of `pipeline` (xDSL's and this project's, by name)."""
    from gpu_alloc.universe import GPU_ALLOC_UNIVERSE
    from xdsl.passes import PassPipeline
    from xdsl.transforms import get_all_passes

    passes = {**get_all_passes(), **GPU_ALLOC_UNIVERSE.all_passes}
    PassPipeline.parse_spec(passes, pipeline).apply(make_context(), module)
    return module


def lowered(module: ModuleOp) -> ModuleOp:
    from gpu_alloc.lowering import LowerGpuAllocsPass

    LowerGpuAllocsPass().apply(make_context(), module)
    module.verify()
    return module
