"""`gpu.shuffle` and `gpu.printf`: two ops real kernels use that xDSL 0.75 does not define.

Both read and print MLIR's custom form (the formats of GPUOps.td):

- `%v, %valid = gpu.shuffle xor %x, %offset, %width : f32` is
  `"gpu.shuffle"(%x, %offset, %width) <{mode = #gpu<shuffle_mode xor>}>`. Its results
  differ between the lanes of a warp, so the thread-dependence analysis counts them as
  thread ids (`kernel_ir.THREAD_ID_OPS`);
- `gpu.printf "x = %d\\n" {attrs}, %x : i32` is `"gpu.printf"(%x) <{format = "x = %d\\0A"}>`.

Neither touches a memref, so they need no memory effect. Like `mlir_gpu`, this module is
written so that it could be proposed to xDSL as it is.
"""

from __future__ import annotations

from enum import auto
from typing import ClassVar

from xdsl.dialects.builtin import I1, I32, IntegerType, StringAttr
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, Operation, SpacedOpaqueSyntaxAttribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    VarConstraint,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
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

    T: ClassVar = VarConstraint("T", AnyAttr())

    value = operand_def(T)
    offset = operand_def(I32)
    width = operand_def(I32)
    mode = prop_def(ShuffleModeAttr)
    shuffle_result = result_def(T)
    valid = result_def(I1)

    assembly_format = "$mode $value `,` $offset `,` $width attr-dict `:` type($value)"  # GPUOps.td

    def __init__(self, mode: ShuffleMode, value: SSAValue, offset: SSAValue, width: SSAValue):
        super().__init__(
            operands=[value, offset, width],
            properties={"mode": ShuffleModeAttr(mode)},
            result_types=[value.type, IntegerType(1)],
        )

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

    assembly_format = "$format attr-dict (`,` $args^ `:` type($args))?"  # GPUOps.td


LANE_OPS: tuple[type[Operation], ...] = (ShuffleOp, PrintfOp)
LANE_ATTRIBUTES: tuple[type[Attribute], ...] = (ShuffleModeAttr,)
