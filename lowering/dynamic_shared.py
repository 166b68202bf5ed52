"""MLIR's `gpu.dynamic_shared_memory`, which xDSL 0.75's `gpu` dialect lacks.

MLIR requires its result to live in `#gpu.address_space<workgroup>` (an integer space 3
is rejected), so the lowering casts it to the `3 : i32` space this project uses with
`memref.memory_space_cast`. Both classes exist to build and print that IR; they are not
registered with xDSL's parser (the `gpu` dialect name belongs to xDSL), so reading the
printed form back into xDSL needs `--allow-unregistered-dialect`, and the PTX backends
recognise the op by its name.

Upstream fix: add `DynamicSharedMemoryOp` and `AddressSpaceAttr` to `xdsl.dialects.gpu`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, StringAttr, UnregisteredOp, i8
from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import IRDLOperation, irdl_attr_definition, irdl_op_definition, result_def
from xdsl.parser import AttrParser
from xdsl.printer import Printer


@irdl_attr_definition
class GpuAddressSpaceAttr(ParametrizedAttribute):
    """`#gpu.address_space<workgroup>` (and the other GPU address spaces)."""

    name = "gpu.address_space"

    space: StringAttr

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (StringAttr(parser.parse_identifier()),)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.space.data)


WORKGROUP = GpuAddressSpaceAttr(StringAttr("workgroup"))


@irdl_op_definition
class DynamicSharedMemoryOp(IRDLOperation):
    """The base of the block's dynamic shared memory, as `memref<?xi8, workgroup>`."""

    name = "gpu.dynamic_shared_memory"

    memref = result_def(MemRefType)

    def __init__(self):
        super().__init__(result_types=[MemRefType(i8, [DYNAMIC_INDEX], memory_space=WORKGROUP)])


def is_dynamic_shared_memory(op: Operation) -> bool:
    """This op, or the unregistered op xDSL parses from its printed form."""
    if isinstance(op, UnregisteredOp):
        return op.op_name.data == DynamicSharedMemoryOp.name and len(op.results) == 1
    return isinstance(op, DynamicSharedMemoryOp)
