"""`gpu.shuffle` and `gpu.printf`: two ops real kernels use that xDSL 0.75 does not define.

Both read MLIR's custom form and print the generic form, which `mlir-opt` reads:

- `%v, %valid = gpu.shuffle xor %x, %offset, %width : f32` is
  `"gpu.shuffle"(%x, %offset, %width) <{mode = #gpu<shuffle_mode xor>}>`. Its results
  differ between the lanes of a warp, so the thread-dependence analysis counts them as
  thread ids (`kernel_ir.THREAD_ID_OPS`);
- `gpu.printf "x = %d\\n", %x : i32` is `"gpu.printf"(%x) <{format = "x = %d\\0A"}>`.

Neither touches a memref, so they need no memory effect. Like `mlir_gpu`, this module is
written so that it could be proposed to xDSL as it is.
"""

from __future__ import annotations

from enum import auto

from xdsl.dialects.builtin import I1, I32, IntegerType, StringAttr, i32
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum


class ShuffleMode(StrEnum):
    XOR = auto()
    UP = auto()
    DOWN = auto()
    IDX = auto()


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """`#gpu<shuffle_mode xor|up|down|idx>`"""

    name = "gpu.shuffle_mode"


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%v, %valid = gpu.shuffle MODE %value, %offset, %width : TYPE`: `%value` of another
    lane of the warp, and whether that lane is within `%width`."""

    name = "gpu.shuffle"

    value = operand_def()
    offset = operand_def(I32)
    width = operand_def(I32)
    mode = prop_def(ShuffleModeAttr)
    shuffle_result = result_def()
    valid = result_def(I1)

    def __init__(self, mode: ShuffleMode, value: SSAValue, offset: SSAValue, width: SSAValue):
        super().__init__(
            operands=[value, offset, width],
            properties={"mode": ShuffleModeAttr(mode)},
            result_types=[value.type, IntegerType(1)],
        )

    @classmethod
    def parse(cls, parser: Parser) -> ShuffleOp:
        mode = parser.parse_str_enum(ShuffleMode)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_operand(i32)
        parser.parse_punctuation(",")
        width = parser.parse_operand(i32)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        op = cls(mode, parser.resolve_operand(value, value_type), offset, width)
        op.attributes.update(attributes)
        return op

    def verify_(self) -> None:
        if self.shuffle_result.type != self.value.type:
            raise VerifyException(
                f"gpu.shuffle result type {self.shuffle_result.type} differs from its value "
                f"type {self.value.type}"
            )


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """`gpu.printf "format", %a, %b : T1, T2`: prints from every thread that runs it."""

    name = "gpu.printf"

    args = var_operand_def()
    format = prop_def(StringAttr)

    @classmethod
    def parse(cls, parser: Parser) -> PrintfOp:
        text = parser.parse_str_literal()
        unresolved = []
        if parser.parse_optional_punctuation(","):
            unresolved = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
        attributes = parser.parse_optional_attr_dict()
        types: list[Attribute] = []
        if unresolved:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(Parser.Delimiter.NONE, parser.parse_type)
        if len(types) != len(unresolved):
            parser.raise_error(f"gpu.printf has {len(unresolved)} arguments but {len(types)} types")
        args = [parser.resolve_operand(a, t) for a, t in zip(unresolved, types, strict=True)]
        op = cls.create(operands=args, properties={"format": StringAttr(text)})
        op.attributes.update(attributes)
        return op


LANE_OPS: tuple[type[Operation], ...] = (ShuffleOp, PrintfOp)
LANE_ATTRIBUTES: tuple[type[Attribute], ...] = (ShuffleModeAttr,)
