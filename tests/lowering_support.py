"""Shared helpers of the lowering and PTX tests: parsing, paths, running a pass."""

from __future__ import annotations

from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.universe import Universe

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
LOWERING_INPUTS = ROOT / "tests" / "filecheck" / "lowering" / "inputs"


def make_context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def parse(text: str) -> ModuleOp:
    module = Parser(make_context(), text).parse_module()
    module.verify()
    return module


def load(path: Path) -> ModuleOp:
    return parse(path.read_text())


def lowered(module: ModuleOp) -> ModuleOp:
    from gpu_alloc.lowering import LowerGpuAllocsPass

    LowerGpuAllocsPass().apply(make_context(), module)
    module.verify()
    return module
