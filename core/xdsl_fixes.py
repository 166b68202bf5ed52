"""Workarounds for xDSL 0.75 bugs that break "what a tool prints, it reads back".

Each fix is one small function that patches xDSL in place, written so that it could be
proposed upstream as is; `apply()` installs all of them once. The package installs them
when it is imported, so `gpu-alloc-opt`, `gpu-alloc-sim`, the PTX backends and the stock
`xdsl-opt` (which imports this package through its `xdsl.universe` entry point) all get
them.

1. Non-ASCII strings. The printer writes a string attribute's UTF-8 bytes as hex escapes
   (`"é"` becomes `"\\C3\\A9"`, as MLIR does), but the lexer then calls any literal whose
   escaped bytes are not ASCII a *bytes* literal, so the attribute parses back as bytes
   and fails verification. MLIR, and the lexer's own docstring, call a literal a string
   when its bytes decode as UTF-8: `_lex_string_literal` now does exactly that.
2. `scf.execute_region` without results is printed without its `scf.yield`, which the
   parser then refuses (the op has no implicit terminator). MLIR always prints the
   region's terminators; so does the patched `print`.
3. Pass options: `fuse-gpu-allocs{time-limit=2}` is refused because `2` lexes as an int
   and the option is a float. An integer is now accepted wherever a float is expected,
   as in MLIR's pass options.
"""

from __future__ import annotations

from typing import Any

_applied = False


def _fix_utf8_string_literals() -> None:
    from xdsl.utils import mlir_lexer
    from xdsl.utils.lexer import Token

    original = mlir_lexer.MLIRLexer._lex_string_literal

    def _lex_string_literal(self: mlir_lexer.MLIRLexer, start_pos: int) -> Any:
        token = original(self, start_pos)
        if token.kind is mlir_lexer.MLIRTokenKind.BYTES_LIT:
            try:
                mlir_lexer.StringLiteral.from_span(token.span).bytes_contents.decode("utf-8")
            except UnicodeDecodeError:
                return token
            return Token(mlir_lexer.MLIRTokenKind.STRING_LIT, token.span)
        return token

    mlir_lexer.MLIRLexer._lex_string_literal = _lex_string_literal


def _fix_execute_region_printer() -> None:
    from xdsl.dialects import scf
    from xdsl.printer import Printer

    def print(self: scf.ExecuteRegionOp, printer: Printer) -> None:
        if self.outs:
            printer.print_string(" -> (")
            printer.print_list(self.outs.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.region, print_entry_block_args=False, print_block_terminators=True
        )
        if self.attributes:
            printer.print_attr_dict(self.attributes)

    scf.ExecuteRegionOp.print = print


def _fix_int_for_float_options() -> None:
    from xdsl.utils import arg_spec

    original = arg_spec._convert_arg_to_type

    def _convert_arg_to_type(value: Any, dest_type: Any) -> Any:
        try:
            return original(value, dest_type)
        except ValueError:
            if not value or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                raise
            return original(tuple(float(v) for v in value), dest_type)

    arg_spec._convert_arg_to_type = _convert_arg_to_type


def apply() -> None:
    """Installs every fix (once)."""
    global _applied
    if _applied:
        return
    _applied = True
    _fix_utf8_string_literals()
    _fix_execute_region_printer()
    _fix_int_for_float_options()
