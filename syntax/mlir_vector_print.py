"""MLIR's `vector.print` (VectorOps.td), which xDSL 0.75's op cannot spell: an optional
source (vector, integer, index or float), `punctuation`
(`#vector.punctuation<no_punctuation|newline|comma|open|close>`, newline by default) and
`stringLiteral`, in MLIR's custom form (`vector.print %v : vector<4xf32>`,
`vector.print str "text"`, `vector.print punctuation <comma>`) and the generic one.
`mlir_vector.MLIR_VECTOR` holds this `PrintOp` in place of xDSL's. Parsed by hand: MLIR's
format uses `oilist`, which xDSL's formats lack. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AnyFloatConstr,
    IndexType,
    IntegerType,
    StringAttr,
    VectorType,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    opt_operand_def,
    opt_prop_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class PrintPunctuation(StrEnum):
    """What `vector.print` prints after its source (MLIR's `PrintPunctuation`)."""

    NO_PUNCTUATION = "no_punctuation"
    NEWLINE = "newline"
    COMMA = "comma"
    OPEN = "open"
    CLOSE = "close"


@irdl_attr_definition
class PrintPunctuationAttr(EnumAttribute[PrintPunctuation]):
    """`#vector.punctuation<comma>`."""

    name = "vector.punctuation"

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> PrintPunctuation:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(PrintPunctuation)


@irdl_op_definition
class PrintOp(IRDLOperation):
    """`vector.print`, as MLIR defines it (this module's text)."""

    name = "vector.print"

    SOURCE: ClassVar = base(VectorType) | base(IntegerType) | base(IndexType) | AnyFloatConstr

    source = opt_operand_def(SOURCE)
    punctuation = opt_prop_def(PrintPunctuationAttr)
    string_literal = opt_prop_def(StringAttr, prop_name="stringLiteral")

    def __init__(
        self,
        source: Any = None,
        punctuation: PrintPunctuation | None = None,
        string_literal: str | None = None,
    ):
        properties: dict[str, Any] = {}
        if punctuation is not None:
            properties["punctuation"] = PrintPunctuationAttr(punctuation)
        if string_literal is not None:
            properties["stringLiteral"] = StringAttr(string_literal)
        super().__init__(operands=[[] if source is None else [source]], properties=properties)

    @classmethod
    def parse(cls, parser: Parser) -> PrintOp:
        source = None
        if (operand := parser.parse_optional_unresolved_operand()) is not None:
            parser.parse_punctuation(":")
            source = parser.resolve_operand(operand, parser.parse_type())
        punctuation: PrintPunctuation | None = None
        text: str | None = None
        while (keyword := parser.parse_optional_keyword_in(("str", "punctuation"))) is not None:
            if (keyword == "str" and text is not None) or (
                keyword == "punctuation" and punctuation is not None
            ):
                parser.raise_error(f"'{keyword}' given twice")
            if keyword == "str":
                text = parser.parse_str_literal()
            else:
                parser.parse_punctuation("<")
                punctuation = parser.parse_str_enum(PrintPunctuation)
                parser.parse_punctuation(">")
        op = cls(source, punctuation, text)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def verify_(self) -> None:
        punctuated = (
            self.punctuation is not None and self.punctuation.data != PrintPunctuation.NEWLINE
        )
        if self.string_literal is not None and (self.source is not None or punctuated):
            raise VerifyException("a source or a punctuation cannot be printed with a string")

    def print(self, printer: Printer) -> None:
        if self.source is not None:
            printer.print_string(" ")
            printer.print_operand(self.source)
            printer.print_string(" : ")
            printer.print_attribute(self.source.type)
        if self.string_literal is not None:
            printer.print_string(" str ")
            printer.print_string_literal(self.string_literal.data)
        if self.punctuation is not None and self.punctuation.data != PrintPunctuation.NEWLINE:
            printer.print_string(f" punctuation <{self.punctuation.data.value}>")
        printer.print_op_attributes(self.attributes)
