"""The types of MLIR's `nvgpu` dialect (see `mlir_nvgpu`), with their parameters kept as
MLIR's text (`mlir_syntax.OpaqueParametersType`)."""

from __future__ import annotations

from typing import ClassVar

from gpu_alloc.syntax.mlir_syntax import OpaqueParametersType
from xdsl.irdl import irdl_attr_definition

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
