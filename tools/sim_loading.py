"""Reading a kernel file for the simulator and the picture tool: the one reader
(`gpu_alloc.tools.reader`), with one-line diagnostics as `SimulationError`s."""

from __future__ import annotations

from gpu_alloc.errors import UserInputError
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.tools.diagnostics import SourceMap
from gpu_alloc.tools.files import read_input
from gpu_alloc.tools.reader import read
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


def make_context() -> Context:
    """A context with every dialect xDSL and its plugins (this package included) know.

    Unregistered ops are allowed: lowered kernels hold `gpu.dynamic_shared_memory`,
    which xDSL's `gpu` dialect lacks; the simulator reports any op it cannot run.
    """
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    return ctx


def load_module(path: str, tool: str = "gpu-alloc-sim") -> ModuleOp:
    """Parses and verifies an MLIR file (`-`: standard input); errors come out as one-line
    diagnostics."""
    return load_located_module(path, tool)[0]


def load_located_module(path: str, tool: str = "gpu-alloc-sim") -> tuple[ModuleOp, SourceMap]:
    """`load_module`, with where each op came from (to locate simulation errors)."""
    try:
        source = read_input(path)
    except UserInputError as error:
        raise SimulationError(str(error)) from None
    return parse_located_module(source, "<stdin>" if path == "-" else path, tool)


def parse_module(source: str | bytes, file_name: str = "<string>") -> ModuleOp:
    """Parses and verifies MLIR text; errors come out as one-line diagnostics."""
    return parse_located_module(source, file_name)[0]


def parse_located_module(
    source: str | bytes, file_name: str = "<string>", tool: str = "gpu-alloc-sim"
) -> tuple[ModuleOp, SourceMap]:
    """The one reader (`gpu_alloc.tools.reader`, the MLIR bridge included), its error as
    a `SimulationError`."""
    try:
        return read(make_context(), source, file_name, tool=tool)
    except UserInputError as error:
        raise SimulationError(str(error)) from None
