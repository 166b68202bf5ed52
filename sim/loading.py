"""Reading a kernel file: parse and verify, with one-line diagnostics."""

from __future__ import annotations

from gpu_alloc.errors import UserInputError
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.tools.diagnostics import (
    SourceMap,
    format_op_error,
    format_span,
    parse_with_locations,
)
from gpu_alloc.tools.files import read_input
from gpu_alloc.tools.verification import first_invalid_op
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import ParseError


def make_context() -> Context:
    """A context with every dialect xDSL and its plugins (this package included) know.

    Unregistered ops are allowed: lowered kernels hold `gpu.dynamic_shared_memory`,
    which xDSL's `gpu` dialect lacks; the simulator reports any op it cannot run.
    """
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    return ctx


def load_module(path: str) -> ModuleOp:
    """Parses and verifies an MLIR file (`-`: standard input); errors come out as one-line
    diagnostics."""
    return load_located_module(path)[0]


def load_located_module(path: str) -> tuple[ModuleOp, SourceMap]:
    """`load_module`, with where each op came from (to locate simulation errors)."""
    try:
        source = read_input(path)
    except UserInputError as error:
        raise SimulationError(str(error)) from None
    return parse_located_module(source, "<stdin>" if path == "-" else path)


def parse_module(source: str | bytes, file_name: str = "<string>") -> ModuleOp:
    """Parses and verifies MLIR text; errors come out as one-line diagnostics."""
    return parse_located_module(source, file_name)[0]


def parse_located_module(
    source: str | bytes, file_name: str = "<string>"
) -> tuple[ModuleOp, SourceMap]:
    if isinstance(source, str):
        source = source.encode()
    try:
        module, source_map = parse_with_locations(make_context(), source, file_name)
    except ParseError as error:
        raise SimulationError(format_span(error.span, error.msg)) from None
    if failure := first_invalid_op(module):
        raise SimulationError(format_op_error(source_map, *failure)) from None
    return module, source_map
