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

MLIR 22 properties that xDSL's definition of an op lacks (`alignment` and
`nontemporal` on `memref.load`/`store`, as `flatten-aliases` writes them in custom form)
become the op's attributes, which is where the embedded parser puts them when it reads
the custom form; input the embedded parser reads with such a property goes through MLIR
too, so that MLIR checks it. `#llvm.cconv<ptx_kernelcc>` and MLIR 22's other calling
conventions are read by `syntax.mlir_llvm`.

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
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpu_alloc.errors import UserInputError
from gpu_alloc.lowering.toolchain import MLIR_OPT_ENV, ToolchainError, find_mlir_opt
from gpu_alloc.source_lines import remember
from gpu_alloc.tools.diagnostics import SourceMap, format_span, parse_with_locations
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation
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


Parse = Callable[[Context, bytes, str, int], tuple[ModuleOp, SourceMap]]
"""How a tool's embedded parser reads one chunk (`parse_with_locations` by default)."""


def read_module(
    ctx: Context,
    source: bytes,
    file_name: str,
    line_offset: int = 0,
    mode: str = "auto",
    tool: str = "gpu-alloc-opt",
    parse: Parse = parse_with_locations,
) -> tuple[ModuleOp, SourceMap]:
    """Parses `source` (one chunk of `file_name`, starting at `line_offset`) by the rule
    of the module docstring; raises UserInputError with the one diagnostic line. `tool`
    names the program in the remark that says the bridge was used."""
    try:
        module, source_map = parse(ctx, source, file_name, line_offset)
    except ParseError as error:
        embedded = _Stop(error.span, error.msg)
    else:
        if (undefined := undefined_property(module)) is None:
            return module, source_map
        op, name = undefined
        span = source_map.span_of(op)
        if span is None:
            return module, source_map  # the verifier names it
        embedded = _Stop(span, f"property '{name}' is not defined by xDSL's '{op.name}'")
    mlir_opt, hint = _mlir_opt(tool) if mode == "auto" else (None, "")
    if mlir_opt is None:
        raise UserInputError(_embedded_error(embedded, source, line_offset, hint)) from None
    generic, mlir_error = _through_mlir(mlir_opt, ctx, source, line_offset)
    if generic is None:
        note = f" ({mlir_opt} cannot read it either: {mlir_error})"
        raise UserInputError(_embedded_error(embedded, source, line_offset, note)) from None
    allowed, ctx.allow_unregistered = ctx.allow_unregistered, True  # MLIR checked them
    try:
        module, _ = parse_with_locations(ctx, generic, file_name, line_offset)
    except ParseError as error:
        # MLIR reads it but the embedded parser cannot read MLIR's generic form either:
        # a construct MLIR only passes through (a `gpu_alloc` type, which MLIR keeps
        # unregistered) or one this project does not read; the user's input is what
        # to point at, where the embedded parser stopped
        again = _first_line(error.msg)
        unchecked = again == _first_line(embedded.message)
        note = (
            f" ({mlir_opt} passes it through unchecked)"
            if unchecked
            else (
                f" ({mlir_opt} reads it, but its generic form stops the embedded parser: {again})"
            )
        )
        raise UserInputError(_embedded_error(embedded, source, line_offset, note)) from None
    finally:
        ctx.allow_unregistered = allowed
    at = embedded.span.get_location()
    print(
        f"{tool}: remark: {file_name}:{at.line + line_offset}:{at.col}: the "
        f"embedded parser stops here ({_first_line(embedded.message)}); read through "
        f"{mlir_opt} --mlir-print-op-generic",
        file=sys.stderr,
    )
    properties_as_attributes(module)
    restore_value_names(module, source)
    return module, _source_map_from_locations(module, source, file_name, line_offset)


@dataclass(frozen=True)
class _Stop:
    """Where and why the embedded parser could not read the input."""

    span: Span[Any]
    message: str


def undefined_property(module: Operation) -> tuple[Operation, str] | None:
    """The first op holding a property its xDSL definition lacks, and the property."""
    for op in module.walk():
        if isinstance(op, IRDLOperation):
            defined = op.get_irdl_definition().properties
            for name in op.properties:
                if name not in defined:
                    return op, name
    return None


def properties_as_attributes(module: Operation) -> None:
    """Moves every property an op's xDSL definition lacks into its attributes (an
    attribute already there of the same name stays)."""
    for op in module.walk():
        if isinstance(op, IRDLOperation):
            defined = op.get_irdl_definition().properties
            for name in [name for name in op.properties if name not in defined]:
                value = op.properties.pop(name)
                op.attributes.setdefault(name, value)


def _mlir_opt(tool: str) -> tuple[str | None, str]:
    """MLIR's mlir-opt, or None and a note saying what would read the input."""
    try:
        return find_mlir_opt(), ""
    except ToolchainError as error:
        if os.environ.get(MLIR_OPT_ENV):  # the user named one that is not there
            return None, f" (the MLIR bridge cannot run: {error})"
        return (
            None,
            f" (with MLIR 22's mlir-opt-22 installed, {tool} reads such input through it)",
        )


def _first_line(message: str) -> str:
    lines = message.strip().splitlines()
    return lines[0] if lines else "error"


def _embedded_error(error: _Stop, source: bytes, line_offset: int, note: str) -> str:
    message = _first_line(error.message)
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


_NAME = rb"%([A-Za-z_$.-][\w$.-]*|\d+)(?::(\d+))?"
_RESULTS = re.compile(rb"(" + _NAME + rb"(?:\s*,\s*" + _NAME + rb")*)\s*=\s*$")
_ONE_NAME = re.compile(_NAME)


def restore_value_names(module: ModuleOp, source: bytes) -> None:
    """Gives the values MLIR renamed (`%0`, `%arg0`) the names they have in `source`:
    a block argument's location is its `%name`, an op's is its name after `%name =`
    (`%a, %b =`, `%a:2 =`). Numbered names stay numbered; a result list that does not
    match the op's results leaves them unnamed."""
    lines = source.split(b"\n")

    def text_at(location: object) -> tuple[bytes, bytes] | None:
        if not isinstance(location, FileLineColLoc):
            return None
        line, column = location.line.data, location.column.data
        if not 0 < line <= len(lines) or column < 1:
            return None
        text = lines[line - 1]
        return text[: column - 1], text[column - 1 :]

    for op in module.walk():
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    at = text_at(arg.location)
                    if at is not None and (found := _ONE_NAME.match(at[1])):
                        _name(arg, found[1])
        at = text_at(op.location)
        if at is None or not op.results or (found := _RESULTS.search(at[0])) is None:
            continue
        names = [(m[1], m[2]) for m in _ONE_NAME.finditer(found[1])]
        if len(names) == len(op.results) and all(count is None for _, count in names):
            for result, (name, _) in zip(op.results, names, strict=True):
                _name(result, name)
        elif len(names) == 1 and names[0][1] is not None:
            if int(names[0][1]) == len(op.results):
                for result in op.results:
                    _name(result, names[0][0])


_NUMBERED = re.compile(r"_\d+$")


def _name(value: SSAValue, name: bytes) -> None:
    """`name` as `value`'s hint, unless xDSL's printer could print it as another value's
    name: the hint drops one `_N` suffix, and `%a_1_0` (hint `a_1`) would print as the
    second `%a` does."""
    text = name.decode("utf-8", errors="replace")
    if text.isdigit() or not SSAValue.is_valid_name(text):
        return
    if _NUMBERED.search(SSAValue.extract_valid_name(text)):
        return
    value.name_hint = text


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
