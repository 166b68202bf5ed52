"""The stock `xdsl-opt` on equal terms with `gpu-alloc-opt` (installed by
`gpu_alloc.stock_driver`): located one-line errors, and the `mlir-gpu` frontend.

- `report`: what the `sys.excepthook` prints for an error that escaped `xDSLOptMain`, at the
  op's line: the driver's module was read by xDSL's own `mlir` frontend, which records no
  source positions (and the plugin does not patch it), so `report` reads the same chunk of
  the input again with a parser that does and pairs the ops in walk order (a failing pass
  leaves the module as it was read);
- `MlirGpuFrontend`: `xdsl-opt -f mlir-gpu kernel.mlir` reads MLIR's custom syntax for `gpu`
  and `memref` (`gpu.module @k {`, `#gpu.address_space<workgroup>`), which xDSL's built-in
  dialects cannot and a plugin may not replace (dialect names are unique across plugins).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from types import FrameType, TracebackType
from typing import IO, Any

from gpu_alloc.errors import TRACEBACK_VARIABLE, GpuAllocPassError, UserInputError
from gpu_alloc.source_lines import RecordedSpans, remember
from gpu_alloc.tools.diagnostics import SourceMap, format_op_error, format_span
from gpu_alloc.tools.pass_options import pipeline_problem, spec_error, unparsable_spec
from gpu_alloc.tools.verification import first_invalid_op
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.frontend import Frontend
from xdsl.utils.lexer import Span

DRIVER_MODULE = "xdsl_opt_main.py"


class _RememberingParser(Parser):
    def __init__(self, ctx: Context, source: bytes | str, name: str):
        super().__init__(ctx, source, name)
        self.spans: dict[Operation, Span[Any]] = {}

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        op = super().parse_operation()
        self.spans[op] = span
        return op


def remember_by_reading_again(driver: Any, module: ModuleOp, offset: int) -> None:
    """Records, for each op of `module` (parsed by the driver from its input chunk at line
    `offset`), the span of the same op in a second reading of that chunk. Nothing is
    recorded when the input cannot be read again (standard input) or reads differently."""
    try:
        chunks, _ = driver.prepare_input()
        texts = []
        for chunk, chunk_offset in chunks:
            if chunk_offset == offset:
                texts.append(chunk.read())
            chunk.close()
        parser = _RememberingParser(driver.ctx, texts[0], driver.get_input_name())
        again = parser.parse_module(not driver.args.no_implicit_module)
    except Exception:  # the report falls back to an unlocated line
        return
    ops, twins = list(module.walk()), list(again.walk())
    if len(ops) == len(twins) and all(a.name == b.name for a, b in zip(ops, twins, strict=True)):
        remember(
            {
                op: parser.spans[twin]
                for op, twin in zip(ops, twins, strict=True)
                if twin in parser.spans
            }
        )


@dataclass(frozen=True)
class MlirGpuFrontend(Frontend):
    """`-f mlir-gpu`: MLIR with MLIR's `gpu`/`memref` syntax, as `gpu-alloc-opt` reads it."""

    name = "mlir-gpu"

    no_implicit_module: bool = False

    def parse(self, ctx: Context, input: IO[bytes], input_name: str = "input") -> ModuleOp:
        from gpu_alloc.tools.reader import read
        from gpu_alloc.universe import register_dialects

        own = Context(allow_unregistered=ctx.allow_unregistered)
        register_dialects(own)  # MLIR's gpu/memref syntax; the stock context keeps xDSL's
        return read(own, input.read(), input_name, tool="xdsl-opt", verify=False)[0]


def _driver_frames(traceback: TracebackType | None) -> list[FrameType]:
    frames: list[FrameType] = []
    while traceback is not None:
        if traceback.tb_frame.f_code.co_filename.endswith(DRIVER_MODULE):
            frames.append(traceback.tb_frame)
        traceback = traceback.tb_next
    return frames


def _located(op: Operation | None, message: str, file_name: str, line_offset: int) -> str:
    source_map = SourceMap(file_name, line_offset, RecordedSpans())
    return format_op_error(source_map, op, message)


def report(error: BaseException, traceback: TracebackType | None) -> bool:
    """Prints `error`, raised out of the stock driver, as one located diagnostic; False
    (nothing printed) for an error that is not the user's or not from the driver."""
    frames = _driver_frames(traceback)
    if not frames or os.environ.get(TRACEBACK_VARIABLE):
        return False
    driver = next((f.f_locals["self"] for f in frames if "self" in f.f_locals), None)
    if driver is None:
        return False
    in_pipeline = any(f.f_code.co_name == "setup_pipeline" for f in frames)
    run = next((f.f_locals for f in frames if f.f_code.co_name == "run"), {})
    name, offset = driver.get_input_name(), int(run.get("offset", 0))
    if isinstance(run.get("module"), ModuleOp):
        remember_by_reading_again(driver, run["module"], offset)
    if in_pipeline and isinstance(error, ValueError | ArgSpecParseError):
        passes = driver.args.passes
        problem = pipeline_problem(passes, driver.available_passes)
        message = problem or (
            spec_error(error, "pass")
            if isinstance(error, ArgSpecParseError)
            else " ".join(str(error).split())
        )
        print(f"xdsl-opt: error: -p '{passes}': {message}", file=sys.stderr)
    elif isinstance(error, ArgSpecParseError):  # -t or -f, parsed before the pipeline
        flag, kind = unparsable_spec(driver.args.target, driver.args.frontend)
        print(f"xdsl-opt: error: {flag}: {spec_error(error, kind)}", file=sys.stderr)
    elif isinstance(error, UserInputError):  # the one reader's line, already located
        print(str(error).strip().splitlines()[0], file=sys.stderr)
    elif isinstance(error, GpuAllocPassError):
        print(_located(error.op, error.message, name, offset), file=sys.stderr)
    elif isinstance(error, ParseError):
        print(format_span(error.span, error.msg), file=sys.stderr)
    elif isinstance(error, DiagnosticException):
        module = run.get("module")
        failure = first_invalid_op(module) if isinstance(module, ModuleOp) else None
        message = failure[1] if failure else str(error)
        print(_located(failure[0] if failure else None, message, name, offset), file=sys.stderr)
    else:
        return False
    return True
