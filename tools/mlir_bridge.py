"""The MLIR bridge: what the embedded parser cannot read, read through `mlir-opt-22`.

The rule (`read_module`): the input is parsed by the embedded parser (xDSL with this
project's MLIR syntax). If that stops at a parse error, and `--mlir-bridge` is `auto`
(the default) and MLIR 22's `mlir-opt` is found (`$XDSL_MLIR_OPT`, `mlir-opt-22`,
`mlir-opt`), the same text goes through
`mlir-opt --mlir-print-op-generic --mlir-print-debuginfo --mlir-print-local-scope`
(with `--allow-unregistered-dialect` when it was given), and MLIR's generic output is
parsed instead; a remark on stderr says so and where the embedded parser stopped. Ops of
MLIR's own dialects that this project does not define (`xegpu.*`, `spirv.*`, ...) come
through as unregistered ops, since MLIR has checked them: passes treat them as unknown
ops (`transforms/memory_effects.py`). Diagnostics keep pointing at the user's file:
every op carries the location MLIR printed for it.

If MLIR rejects the text too, the embedded parser's error is the one line reported, with
MLIR's first error (located in the user's file) appended. Without MLIR (or with
`--mlir-bridge=never`), the embedded parser's error stands, with a note naming what
would read it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from typing import Any

from gpu_alloc.errors import UserInputError
from gpu_alloc.lowering.toolchain import MLIR_OPT_ENV, ToolchainError, find_mlir_opt
from gpu_alloc.source_lines import remember
from gpu_alloc.tools.diagnostics import SourceMap, format_span, parse_with_locations
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

BRIDGE_MODES = ("auto", "never")
MLIR_TIMEOUT_SECONDS = 300
MLIR_GENERIC_FLAGS = (
    "--mlir-print-op-generic",
    "--mlir-print-debuginfo",
    "--mlir-print-local-scope",
)
_MLIR_ERROR = re.compile(r"^(?:<stdin>|-):(\d+):(\d+): error: (.*)$", re.MULTILINE)


def add_bridge_argument(arg_parser: argparse.ArgumentParser) -> None:
    arg_parser.add_argument(
        "--mlir-bridge",
        choices=BRIDGE_MODES,
        default="auto",
        help="auto (default): read input the embedded parser cannot read through "
        "mlir-opt-22 --mlir-print-op-generic, when MLIR 22 is installed; never: only the "
        "embedded parser",
    )


def read_module(
    ctx: Context, source: bytes, file_name: str, line_offset: int = 0, mode: str = "auto"
) -> tuple[ModuleOp, SourceMap]:
    """Parses `source` (one chunk of `file_name`, starting at `line_offset`) by the rule
    of the module docstring; raises UserInputError with the one diagnostic line."""
    try:
        return parse_with_locations(ctx, source, file_name, line_offset)
    except ParseError as error:
        embedded = error
    mlir_opt, hint = _mlir_opt() if mode == "auto" else (None, "")
    if mlir_opt is None:
        raise UserInputError(_embedded_error(embedded, source, line_offset, hint)) from None
    generic, mlir_error = _through_mlir(mlir_opt, ctx, source, line_offset)
    if generic is None:
        note = f" ({mlir_opt} cannot read it either: {mlir_error})"
        raise UserInputError(_embedded_error(embedded, source, line_offset, note)) from None
    at = embedded.span.get_location()
    print(
        f"gpu-alloc-opt: remark: {file_name}:{at.line + line_offset}:{at.col}: the "
        f"embedded parser stops here ({_first_line(embedded.msg)}); read through "
        f"{mlir_opt} --mlir-print-op-generic",
        file=sys.stderr,
    )
    allowed, ctx.allow_unregistered = ctx.allow_unregistered, True  # MLIR checked them
    try:
        module, _ = parse_with_locations(ctx, generic, file_name, line_offset)
    except ParseError as error:  # what MLIR prints, the embedded parser must read
        message = f"internal error: cannot read what {mlir_opt} printed: {_first_line(error.msg)}"
        raise UserInputError(f"{file_name}: error: {message}") from None
    finally:
        ctx.allow_unregistered = allowed
    return module, _source_map_from_locations(module, source, file_name, line_offset)


def _mlir_opt() -> tuple[str | None, str]:
    """MLIR's mlir-opt, or None and a note saying what would read the input."""
    try:
        return find_mlir_opt(), ""
    except ToolchainError as error:
        if os.environ.get(MLIR_OPT_ENV):  # the user named one that is not there
            return None, f" (the MLIR bridge cannot run: {error})"
        return (
            None,
            " (with MLIR 22's mlir-opt-22 installed, gpu-alloc-opt reads such input through it)",
        )


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return lines[0] if lines else "error"


def _embedded_error(error: ParseError, source: bytes, line_offset: int, note: str) -> str:
    message = _first_line(error.msg)
    if not source[error.span.start :].strip():
        message = f"unexpected end of input ({message})"
    return format_span(error.span, message + note, line_offset)


def _through_mlir(
    mlir_opt: str, ctx: Context, source: bytes, line_offset: int
) -> tuple[bytes | None, str]:
    """MLIR's generic form of `source`, or None and MLIR's first error as `line:col:
    message` (lines counted in the user's file)."""
    flags = [*MLIR_GENERIC_FLAGS]
    if ctx.allow_unregistered:
        flags.append("--allow-unregistered-dialect")
    try:
        done = subprocess.run(
            [mlir_opt, *flags, "-"],
            input=source,
            capture_output=True,
            timeout=MLIR_TIMEOUT_SECONDS,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return None, f"{mlir_opt} failed: {error}"
    if done.returncode == 0:
        return done.stdout, ""
    stderr = done.stderr.decode("utf-8", errors="replace")
    if (found := _MLIR_ERROR.search(stderr)) is None:
        return None, _first_line(stderr)
    return None, f"{int(found[1]) + line_offset}:{found[2]}: {found[3]}"


def _span_at(source: bytes, file_name: str, line: int, column: int) -> Span[Any]:
    """The span of one character of `source` at a 1-based line and column."""
    start = 0
    for _ in range(max(line, 1) - 1):
        newline = source.find(b"\n", start)
        if newline < 0:
            break
        start = newline + 1
    end_of_line = source.find(b"\n", start)
    end_of_line = len(source) if end_of_line < 0 else end_of_line
    position = min(start + max(column, 1) - 1, end_of_line)
    return Span(position, position + 1, Input(source, file_name))


def _source_map_from_locations(
    module: ModuleOp, source: bytes, file_name: str, line_offset: int
) -> SourceMap:
    """Each op located where MLIR says it came from in `source`."""
    spans: dict[Operation, Span[Any]] = {}
    for op in module.walk():
        location = op.location
        if isinstance(location, FileLineColLoc):
            line, column = location.line.data, location.column.data
            if line > 0:
                spans[op] = _span_at(source, file_name, line, column)
    remember(spans, line_offset)  # not where they are in MLIR's output
    return SourceMap(file_name, line_offset, spans)
