"""The types of MLIR's `nvgpu` dialect (see `mlir_nvgpu`), with their parameters kept as
MLIR's text (`mlir_syntax.OpaqueParametersType`), and the parse helpers the `nvgpu` op
modules share."""

from __future__ import annotations

from typing import ClassVar

from gpu_alloc.dialect.mlir_syntax import OpaqueParametersType
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import Parser

# ------------------------------------------------------------------------------- types


@irdl_attr_definition
class DeviceAsyncTokenType(OpaqueParametersType):
    """`!nvgpu.device.async.token`: a group of asynchronous copies in flight."""

    name = "nvgpu.device.async.token"
    BARE: ClassVar[bool] = True


@irdl_attr_definition
class MBarrierTokenType(OpaqueParametersType):
    """`!nvgpu.mbarrier.token`"""

    name = "nvgpu.mbarrier.token"
    BARE: ClassVar[bool] = True


@irdl_attr_definition
class MBarrierGroupType(OpaqueParametersType):
    """`!nvgpu.mbarrier.group<memorySpace = ..., num_barriers = N>`"""

    name = "nvgpu.mbarrier.group"


@irdl_attr_definition
class TensorMapDescriptorType(OpaqueParametersType):
    """`!nvgpu.tensormap.descriptor<tensor = memref<...>, swizzle = ..., ...>`"""

    name = "nvgpu.tensormap.descriptor"


@irdl_attr_definition
class WarpgroupDescriptorType(OpaqueParametersType):
    """`!nvgpu.warpgroup.descriptor<tensor = memref<...>>`"""

    name = "nvgpu.warpgroup.descriptor"


@irdl_attr_definition
class WarpgroupAccumulatorType(OpaqueParametersType):
    """`!nvgpu.warpgroup.accumulator<fragmented = vector<...>>`"""

    name = "nvgpu.warpgroup.accumulator"


TYPES = (
    DeviceAsyncTokenType,
    MBarrierTokenType,
    MBarrierGroupType,
    TensorMapDescriptorType,
    WarpgroupDescriptorType,
    WarpgroupAccumulatorType,
)

INDEX = IndexType()


def with_attributes(parser: Parser, op: Operation) -> Operation:
    op.attributes |= parser.parse_optional_attr_dict()
    return op


def move_properties(op: Operation, names: tuple[str, ...]) -> Operation:
    """MLIR's inherent attributes written in the attribute dictionary of the custom
    form (`{numGroups = 1 : i32}`) are properties of the generic form."""
    for name in names:
        if name in op.attributes:
            op.properties[name] = op.attributes.pop(name)
    return op
