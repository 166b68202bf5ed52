"""LLVM dialect ops that xDSL 0.75's `llvm` dialect lacks, for what `to_llvm` emits.

The casts subclass xDSL's own `GenericCastOp`, so they print like the other casts; the
others are minimal IRDL ops. The llvmlite translation in `llvmlite_backend` knows them
all (`EXTRA_CASTS` and the `convert_extra_op` cases there).

Upstream fix: add `FPToSIOp`, `FPToUIOp`, `UIToFPOp`, `ExtractElementOp`,
`AtomicRMWOp`, `SwitchOp` and `FenceOp` to `xdsl.dialects.llvm` and to `xdsl.backend.llvm.convert_op`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, StringAttr
from xdsl.dialects.llvm import GenericCastOp
from xdsl.ir import Attribute, Block, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    successor_def,
    traits_def,
    var_successor_def,
)
from xdsl.traits import IsTerminator


@irdl_op_definition
class FPToSIOp(GenericCastOp):
    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(GenericCastOp):
    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(GenericCastOp):
    name = "llvm.uitofp"


EXTRA_CASTS: dict[type[GenericCastOp], str] = {
    FPToSIOp: "fptosi",
    FPToUIOp: "fptoui",
    UIToFPOp: "uitofp",
}
"""Each extra cast and the llvmlite `IRBuilder` method that emits it."""


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`extractelement`: one lane of a vector."""

    name = "llvm.extractelement"

    vector = operand_def()
    position = operand_def()
    res = result_def()

    def __init__(self, vector: SSAValue, position: SSAValue, result_type: Attribute):
        super().__init__(operands=[vector, position], result_types=[result_type])


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`atomicrmw <bin_op> ptr, val monotonic`, the old value as result (like MLIR's
    lowering of `memref.atomic_rmw`, whose ordering is `acq_rel`)."""

    name = "llvm.atomicrmw"

    bin_op = prop_def(StringAttr)
    ptr = operand_def()
    val = operand_def()
    res = result_def()

    def __init__(self, bin_op: str, ptr: SSAValue, val: SSAValue):
        super().__init__(
            operands=[ptr, val],
            result_types=[val.type],
            properties={"bin_op": StringAttr(bin_op)},
        )


@irdl_op_definition
class FenceOp(IRDLOperation):
    """`fence syncscope("<scope>") <ordering>`."""

    name = "llvm.fence"

    ordering = prop_def(StringAttr)
    syncscope = prop_def(StringAttr)

    def __init__(self, ordering: str, syncscope: str):
        super().__init__(
            properties={"ordering": StringAttr(ordering), "syncscope": StringAttr(syncscope)}
        )


@irdl_op_definition
class SwitchOp(IRDLOperation):
    """`switch` on an integer; its successors take no arguments (`to_llvm` adds a
    block that branches with them where a `cf.switch` case passes some)."""

    name = "llvm.switch"

    value = operand_def()
    case_values = prop_def(ArrayAttr[IntegerAttr])
    default_destination = successor_def()
    case_destinations = var_successor_def()

    traits = traits_def(IsTerminator())

    def __init__(
        self,
        value: SSAValue,
        default: Block,
        cases: Sequence[tuple[IntegerAttr, Block]],
    ):
        super().__init__(
            operands=[value],
            successors=[default, [block for _, block in cases]],
            properties={"case_values": ArrayAttr([v for v, _ in cases])},
        )
