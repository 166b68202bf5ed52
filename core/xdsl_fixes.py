"""Workarounds for xDSL 0.75 bugs that break "what a tool prints, it reads back".

Each fix is one small function that patches xDSL in place, written so that it could be
proposed upstream as is (each as an upstream change: docs/xdsl-upstream.md); `apply()`
installs all of them once. Importing the package (or registering it, or the stock
`xdsl-opt` loading it through its `xdsl.universe` entry point) installs nothing: the
project's own programs call `apply()` at their start (`gpu-alloc-opt`, `gpu-alloc-sim`,
`gpu-alloc-layout`, `scripts/`, `bench/`, the test suite's conftest), and so may a program
that embeds the package and wants to read what they read. The stock `xdsl-opt` keeps
xDSL's behaviour for each of them.

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
4. `scf.for ... iter_args(...) -> vector<4xf32>`: MLIR writes the result types like a
   function's, so one result type may go without parentheses; xDSL's parser demands
   them ("'(' expected"). The patched `scf.for` parser takes either form.
5. `vector.print`: xDSL's op has no custom syntax, a required operand and neither of
   MLIR's properties, so nothing MLIR prints for it parses. No patch: the project's own
   `vector` dialect (`gpu_alloc.syntax.mlir_vector.MLIR_VECTOR`, which its tools and
   `register` load) holds `gpu_alloc.syntax.mlir_vector_print.PrintOp` in place of xDSL's. It follows
   MLIR's VectorOps.td: an optional source (vector, integer, index or float),
   `punctuation` (`#vector.punctuation<no_punctuation|newline|comma|open|close>`,
   newline by default) and `stringLiteral`, in MLIR's custom form
   (`vector.print %v : vector<4xf32>`, `vector.print str "text"`,
   `vector.print punctuation <comma>`) and the generic one.
6. `scf.while : () -> () { ... } do { ... }`: with no loop-carried values MLIR writes no
   assignment list at all; xDSL's parser demands one ("'(' expected"). The patched
   parser takes the list as optional.
7. A pass (or target) option given twice, `fuse-gpu-allocs{chip=sm_90 chip=sm_80}` or
   `{max-shared-bytes=1 max_shared_bytes=2}`, was silently the last one (the options are
   a dict). The pipeline parser now refuses the second with `RepeatedPassOption`, an
   `ArgSpecParseError` at it naming the pass and the option, so both drivers and
   `PassPipeline.parse_spec` say so (`tools.pass_options` words it for the user).

`xdsl_fixes_mlir` holds the fixes for what else `mlir-opt-22` reads and xDSL does not
(semi-affine maps, vectors of `i1`/`index` in `arith`, string predicates, `gpu.memcpy`
shapes, empty attribute bodies); `apply()` installs those too.
"""

from __future__ import annotations

from typing import Any

from gpu_alloc import xdsl_fixes_mlir
from xdsl.dialects.builtin import IndexType
from xdsl.ir import TypeAttribute
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.arg_spec import PipelineLexer, SpecToken, SpecTokenKind
from xdsl.utils.exceptions import ArgSpecParseError

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


def _parse_result_types(parser: Parser) -> list[TypeAttribute]:
    """MLIR's function result types: `(t1, t2, ...)` or one type without parentheses."""
    types = parser.parse_optional_comma_separated_list(Parser.Delimiter.PAREN, parser.parse_type)
    return [parser.parse_type()] if types is None else types


def _fix_scf_for_result_types() -> None:
    from xdsl.dialects import scf
    from xdsl.dialects.utils import parse_assignment
    from xdsl.traits import SingleBlockImplicitTerminator, ensure_terminator

    def parse(cls: type[scf.ForOp], parser: Parser) -> scf.ForOp:
        induction_var = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        bounds = [parser.parse_unresolved_operand()]
        for keyword in ("to", "step"):
            parser.parse_keyword(keyword)
            bounds.append(parser.parse_unresolved_operand())
        start = parser.pos
        carried: list[Any] = []
        types: list[Any] = []
        if parser.parse_optional_keyword("iter_args"):
            carried = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
            )
            parser.parse_punctuation("->")
            types = _parse_result_types(parser)
        inits = parser.resolve_operands([init for _, init in carried], types, start)
        iv_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        lb, ub, step = (parser.resolve_operand(bound, iv_type) for bound in bounds)
        block_args = [arg.resolve(t) for (arg, _), t in zip(carried, types, strict=True)]
        body = parser.parse_region((induction_var.resolve(iv_type), *block_args))
        loop = cls(lb, ub, step, inits, body)
        loop.attributes |= parser.parse_optional_attr_dict()
        if not carried:
            for trait in loop.get_traits_of_type(SingleBlockImplicitTerminator):
                ensure_terminator(loop, trait)
        return loop

    scf.ForOp.parse = classmethod(parse)  # pyright: ignore[reportAttributeAccessIssue]


def _fix_scf_while_without_arguments() -> None:
    from xdsl.dialects import scf
    from xdsl.dialects.utils import parse_assignment

    def parse(cls: type[scf.WhileOp], parser: Parser) -> scf.WhileOp:
        assignments = parser.parse_optional_comma_separated_list(
            Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
        )
        carried = assignments or []
        parser.parse_punctuation(":")
        type_pos = parser.pos
        function_type = parser.parse_function_type()
        inputs = function_type.inputs.data
        if len(carried) != len(inputs):
            parser.raise_error(
                f"Mismatch between block argument count ({len(carried)}) and operand count "
                f"({len(inputs)})",
                type_pos,
                parser.pos,
            )
        block_args = [arg.resolve(t) for (arg, _), t in zip(carried, inputs, strict=True)]
        arguments = [
            parser.resolve_operand(v, t) for (_, v), t in zip(carried, inputs, strict=True)
        ]
        before_region = parser.parse_region(block_args)
        parser.parse_characters("do")
        after_region = parser.parse_region()
        loop = cls(arguments, function_type.outputs.data, before_region, after_region)
        attributes = parser.parse_optional_attr_dict_with_keyword()
        if attributes is not None:
            loop.attributes |= attributes.data
        return loop

    scf.WhileOp.parse = classmethod(parse)  # pyright: ignore[reportAttributeAccessIssue]


class RepeatedPassOption(ArgSpecParseError):
    """A pass option given twice in one pass's options (fix 7)."""

    def __init__(self, token: SpecToken, pass_name: str, option: str):
        super().__init__(token, f"option '{option}' of '{pass_name}' is given twice")
        self.pass_name = pass_name
        self.option = option
        """Kebab-case, as `--help` lists it."""


class _RecordingLexer:
    """A `PipelineLexer` that keeps every token it hands out."""

    def __init__(self, lexer: PipelineLexer):
        self.lexer = lexer
        self.tokens: list[SpecToken] = []

    def lex(self) -> SpecToken:
        token = self.lexer.lex()
        self.tokens.append(token)
        return token

    def peek(self) -> SpecToken:
        return self.lexer.peek()


def _option_keys(tokens: list[SpecToken]) -> list[SpecToken]:
    """The option names among one pass's tokens: an identifier right after `{` or after
    the space between two options (values follow `=` or `,`)."""
    kinds = [t.kind for t in tokens]
    start = kinds.index(SpecTokenKind.L_BRACE) if SpecTokenKind.L_BRACE in kinds else len(kinds)
    return [
        token
        for previous, token in zip(tokens[start:], tokens[start + 1 :], strict=False)
        if token.kind is SpecTokenKind.IDENT
        and previous.kind in (SpecTokenKind.L_BRACE, SpecTokenKind.SPACE)
    ]


def _fix_repeated_pass_options() -> None:
    from xdsl.utils import arg_spec

    original = arg_spec._parse_spec  # pyright: ignore[reportPrivateUsage]

    def _parse_spec(lexer: PipelineLexer) -> arg_spec.ArgSpec:
        recording = _RecordingLexer(lexer)
        spec = original(recording)  # pyright: ignore[reportArgumentType]
        seen: set[str] = set()
        for key in _option_keys(recording.tokens):
            option = key.span.text.replace("_", "-")
            if option in seen:
                raise RepeatedPassOption(key, spec.name, option)
            seen.add(option)
        return spec

    arg_spec._parse_spec = _parse_spec  # pyright: ignore[reportPrivateUsage]


def apply() -> None:
    """Installs every fix (once)."""
    global _applied
    if _applied:
        return
    _applied = True
    _fix_utf8_string_literals()
    _fix_execute_region_printer()
    _fix_int_for_float_options()
    _fix_scf_for_result_types()
    _fix_scf_while_without_arguments()
    _fix_repeated_pass_options()
    xdsl_fixes_mlir.apply()
