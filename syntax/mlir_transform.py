"""Transform-dialect scripts, read and printed back unchanged.

MLIR's tests carry transform scripts beside the kernels they transform
(`transform.sequence`, `transform.named_sequence @__transform_main`, ...). A script is not
kernel code: no pass of this project looks into it, but a tool must read the file and
print the script back so that `mlir-opt -transform-interpreter` can still run it. xDSL
0.75 defines only a few transform ops and none with MLIR's custom syntax, while a script
may use any of MLIR's hundreds of transform ops (`transform.structured.*`,
`transform.nvgpu.*`, `transform.apply_patterns.*`). So:

- a transform op in custom form is kept as its text (`ScriptOp`): from after its name to
  the end of the op (the `}` closing its region, or the end of its line), with the type
  and attribute aliases it uses (`!t = !transform.any_op`) written out, since the printed
  module has no aliases. It prints that text back after its name. A script is isolated
  from the IR around it (it has no operands and no results), which is what makes keeping
  it as text sound;
- a transform op in generic form (what `mlir-opt --mlir-print-op-generic` prints) is an
  unregistered op, read and printed generically, with or without
  `--allow-unregistered-dialect`, so xDSL's partial definitions never reject MLIR's.

`script_op_type(name, quoted)` is the rule the parser applies
(`mlir_gpu.MlirNameParser`). Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, UnregisteredOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, irdl_op_definition, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.lexer import Span, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

SCRIPT_DIALECTS = ("transform",)
"""Dialects whose ops are scripts, never kernel code."""

_OPEN = (MLIRTokenKind.L_PAREN, MLIRTokenKind.L_SQUARE, MLIRTokenKind.L_BRACE)
_CLOSE = (MLIRTokenKind.R_PAREN, MLIRTokenKind.R_SQUARE, MLIRTokenKind.R_BRACE)


class _ScriptOpBase(IRDLOperation):
    """A transform op in MLIR's custom form, kept as the text after its name."""

    name: ClassVar[str] = "transform.script"

    text = prop_def(StringAttr)

    @classmethod  # no format: any of MLIR's transform ops, kept as its text
    def parse(cls, parser: Parser) -> Operation:
        return cls.create(properties={"text": StringAttr(read_op_text(parser))})

    def print(self, printer: Printer) -> None:
        printer.print_string(" " + self.text.data)


_SCRIPT_OPS: dict[str, type[Operation]] = {}
_GENERIC_OPS: dict[str, type[Operation]] = {}


def script_op_type(name: str, quoted: bool) -> type[Operation] | None:
    """The op class the parser uses for `name`: a `ScriptOp` for a custom-form op of a
    script dialect, an unregistered op for a generic-form one, None for other ops."""
    if name.split(".", 1)[0] not in SCRIPT_DIALECTS:
        return None
    if quoted:
        if name not in _GENERIC_OPS:
            _GENERIC_OPS[name] = UnregisteredOp.with_name(name)
        return _GENERIC_OPS[name]
    if name not in _SCRIPT_OPS:
        namespace = {"name": name, "__doc__": _ScriptOpBase.__doc__}
        _SCRIPT_OPS[name] = irdl_op_definition(type("ScriptOp", (_ScriptOpBase,), namespace))
    return _SCRIPT_OPS[name]


def read_op_text(parser: Parser) -> str:
    """Consumes the rest of a custom-form op (the parser stands after its name) and
    returns its text, aliases written out: up to the `}` that closes the op's last
    region when the next token starts a line, or up to the end of its last line. Its
    lines are indented relative to the op's line, as the printer indents them."""
    source = parser.lexer.input
    pieces: list[str] = []
    depth = 0
    start = position = parser._current_token.span.start  # pyright: ignore[reportPrivateUsage]
    closed_region = False
    while True:
        token = parser._current_token  # pyright: ignore[reportPrivateUsage]
        gap = Span(position, token.span.start, source).text  # the input is str or bytes
        new_line = "\n" in gap
        if token.kind is MLIRTokenKind.EOF or (depth == 0 and token.kind in _CLOSE):
            break
        if depth == 0 and new_line and position > start and (closed_region or _starts_op(token)):
            break
        if token.kind in _OPEN:
            depth += 1
        elif token.kind in _CLOSE:
            depth -= 1
        closed_region = depth == 0 and token.kind is MLIRTokenKind.R_BRACE
        pieces.append(gap)
        pieces.append(_token_text(parser.attribute_aliases, token))
        position = token.span.end
        parser._consume_token()  # pyright: ignore[reportPrivateUsage]
    if depth:
        parser.raise_error("unbalanced brackets in a transform op")
    line = Span(source.get_start_of_line(start), start, source).text
    indent = line[: len(line) - len(line.lstrip())]
    text = "".join(pieces).strip()
    return text.replace("\n" + indent, "\n") if indent else text


def _starts_op(token: Token[MLIRTokenKind]) -> bool:
    kind = token.kind
    return kind in (MLIRTokenKind.PERCENT_IDENT, MLIRTokenKind.STRING_LIT) or (
        kind is MLIRTokenKind.BARE_IDENT and "." in token.text
    )


def _token_text(aliases: Mapping[str, Attribute], token: Token[MLIRTokenKind]) -> str:
    """A token's text; an alias (`!t`, `#map`) is replaced by what it stands for."""
    text = token.text
    kind = token.kind
    if kind in (MLIRTokenKind.EXCLAMATION_IDENT, MLIRTokenKind.HASH_IDENT) and "." not in text:
        value = aliases.get(text)
        if value is not None:
            stream = io.StringIO()
            Printer(stream=stream).print_attribute(value)
            return stream.getvalue()
    return text
