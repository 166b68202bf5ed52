"""MLIR's `nvgpu` barriers, TMA and warpgroup ops (see `mlir_nvgpu`): `mbarrier.*`,
`tma.*`, `warpgroup.*`, as Hopper GEMMs write them. Each declares NVGPUOps.td's
`assemblyFormat`, its nvgpu-typed `type(...)` directives read and printed without the
`!nvgpu.` prefix as MLIR does (`custom<StrippedType>`, `mlir_directives`)."""

from __future__ import annotations

from gpu_alloc.syntax.mlir_directives import StrippedType
from gpu_alloc.syntax.mlir_nvgpu_types import (
    MBarrierGroupType,
    MBarrierTokenType,
    TensorMapDescriptorType,
    WarpgroupAccumulatorType,
    WarpgroupDescriptorType,
)
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    UnrankedMemRefType,
    i1,
    i16,
)
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)

_INDEX = IndexType()

# ------------------------------------------------------------------------- mbarriers


def _stripped(name: str) -> str:
    """MLIR's `type($name)` of an nvgpu type, which it writes without `!nvgpu.<name>`."""
    return f"custom<StrippedType>(type(${name}))"


@irdl_op_definition
class MBarrierCreateOp(IRDLOperation):
    """`%b = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<...>`: barriers in shared
    memory that the lowering allocates itself (not a memref, so never fused)."""

    name = "nvgpu.mbarrier.create"

    barriers = result_def(MBarrierGroupType)

    custom_directives = (StrippedType,)
    assembly_format = f"attr-dict `->` {_stripped('barriers')}"  # NVGPUOps.td


@irdl_op_definition
class MBarrierInitOp(IRDLOperation):
    """`nvgpu.mbarrier.init %b[%i], %count (, predicate = %p)? : group-type`"""

    name = "nvgpu.mbarrier.init"

    barriers = operand_def(MBarrierGroupType)
    count = operand_def(_INDEX)
    mbarId = operand_def(_INDEX)
    predicate = opt_operand_def(i1)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$barriers `[` $mbarId `]` `,` $count (`,` `predicate` `=` $predicate^)? attr-dict"
        f" `:` {_stripped('barriers')}"
    )


@irdl_op_definition
class MBarrierArriveOp(IRDLOperation):
    """`%t = nvgpu.mbarrier.arrive %b[%i] : group-type -> !nvgpu.mbarrier.token`"""

    name = "nvgpu.mbarrier.arrive"

    barriers = operand_def(MBarrierGroupType)
    mbarId = operand_def(_INDEX)
    token = result_def(MBarrierTokenType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$barriers `[` $mbarId `]` attr-dict `:` {_stripped('barriers')} `->` type($token)"
    )


@irdl_op_definition
class MBarrierArriveNoCompleteOp(IRDLOperation):
    """`%t = nvgpu.mbarrier.arrive.nocomplete %b[%i], %count : group-type -> token`"""

    name = "nvgpu.mbarrier.arrive.nocomplete"

    barriers = operand_def(MBarrierGroupType)
    mbarId = operand_def(_INDEX)
    count = operand_def(_INDEX)
    token = result_def(MBarrierTokenType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$barriers `[` $mbarId `]` `,` $count attr-dict `:` {_stripped('barriers')} `->` type($token)"
    )


@irdl_op_definition
class MBarrierArriveExpectTxOp(IRDLOperation):
    """`nvgpu.mbarrier.arrive.expect_tx %b[%i], %tx (, predicate = %p)? : group-type`"""

    name = "nvgpu.mbarrier.arrive.expect_tx"

    barriers = operand_def(MBarrierGroupType)
    txcount = operand_def(_INDEX)
    mbarId = operand_def(_INDEX)
    predicate = opt_operand_def(i1)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$barriers `[` $mbarId `]` `,` $txcount (`,` `predicate` `=` $predicate^)?"
        f" attr-dict `:` {_stripped('barriers')}"
    )


@irdl_op_definition
class MBarrierTryWaitParityOp(IRDLOperation):
    """`nvgpu.mbarrier.try_wait.parity %b[%i], %parity, %ticks : group-type`"""

    name = "nvgpu.mbarrier.try_wait.parity"

    barriers = operand_def(MBarrierGroupType)
    phaseParity = operand_def(i1)
    ticks = operand_def(_INDEX)
    mbarId = operand_def(_INDEX)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$barriers `[` $mbarId `]` `,` $phaseParity `,` $ticks attr-dict `:` {_stripped('barriers')}"
    )


@irdl_op_definition
class MBarrierTestWaitOp(IRDLOperation):
    """`%done = nvgpu.mbarrier.test.wait %b[%i], %token : group-type, token-type`"""

    name = "nvgpu.mbarrier.test.wait"

    barriers = operand_def(MBarrierGroupType)
    token = operand_def(MBarrierTokenType)
    mbarId = operand_def(_INDEX)
    waitComplete = result_def(i1)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$barriers `[` $mbarId `]` `,` $token attr-dict `:` {_stripped('barriers')} `,` type($token)"
    )


# ------------------------------------------------------------------------------- tma


@irdl_op_definition
class TmaCreateDescriptorOp(IRDLOperation):
    """`%d = nvgpu.tma.create.descriptor %m box[%a, %b] : memref<*x...> -> tensor-map`"""

    name = "nvgpu.tma.create.descriptor"

    tensor = operand_def(UnrankedMemRefType)
    boxDimensions = var_operand_def(_INDEX)
    tensorMap = result_def(TensorMapDescriptorType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$tensor `box` `[` $boxDimensions `]` attr-dict"
        f" `:` type($tensor) `->` {_stripped('tensorMap')}"
    )


@irdl_op_definition
class TmaFenceOp(IRDLOperation):
    """`nvgpu.tma.fence.descriptor %d : tensor-map`"""

    name = "nvgpu.tma.fence.descriptor"

    tensorMapDescriptor = operand_def(TensorMapDescriptorType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$tensorMapDescriptor attr-dict `:` {_stripped('tensorMapDescriptor')}"
    )


@irdl_op_definition
class TmaPrefetchOp(IRDLOperation):
    """`nvgpu.tma.prefetch.descriptor %d (, predicate = %p)? : tensor-map`"""

    name = "nvgpu.tma.prefetch.descriptor"

    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    predicate = opt_operand_def(i1)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$tensorMapDescriptor (`,` `predicate` `=` $predicate^)? attr-dict"
        f" `:` {_stripped('tensorMapDescriptor')}"
    )


@irdl_op_definition
class TmaAsyncLoadOp(IRDLOperation):
    """`nvgpu.tma.async.load %d[%x, ...], %b[%i] to %dst (multicast_mask = %m)?
    (, predicate = %p)? : tensor-map, group-type -> memref<...>`: the bytes arrive in
    `dst` when the barrier completes its phase."""

    name = "nvgpu.tma.async.load"

    dst = operand_def(MemRefType)
    barriers = operand_def(MBarrierGroupType)
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(_INDEX)
    mbarId = operand_def(_INDEX)
    multicastMask = opt_operand_def(i16)
    predicate = opt_operand_def(i1)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$tensorMapDescriptor `[` $coordinates `]` `,` $barriers `[` $mbarId `]`"
        " `to` $dst (`multicast_mask` `=` $multicastMask^)?"
        " (`,` `predicate` `=` $predicate^)? attr-dict"
        f" `:` {_stripped('tensorMapDescriptor')} `,` {_stripped('barriers')} `->` type($dst)"
    )


@irdl_op_definition
class TmaAsyncStoreOp(IRDLOperation):
    """`nvgpu.tma.async.store %src to %d[%x, ...] (, predicate = %p)? : memref -> map`"""

    name = "nvgpu.tma.async.store"

    src = operand_def(MemRefType)
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(_INDEX)
    predicate = opt_operand_def(i1)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$src `to` $tensorMapDescriptor `[` $coordinates `]`"
        " (`,` `predicate` `=` $predicate^)? attr-dict"
        f" `:` type($src) `->` {_stripped('tensorMapDescriptor')}"
    )


# ------------------------------------------------------------------------- warpgroups


@irdl_op_definition
class WarpgroupGenerateDescriptorOp(IRDLOperation):
    """`%d = nvgpu.warpgroup.generate.descriptor %m, %map : memref, map -> descriptor`"""

    name = "nvgpu.warpgroup.generate.descriptor"

    tensor = operand_def(MemRefType)
    tensorMap = operand_def(TensorMapDescriptorType)
    descriptor = result_def(WarpgroupDescriptorType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$tensor `,` $tensorMap attr-dict"
        f" `:` type($tensor) `,` {_stripped('tensorMap')} `->` {_stripped('descriptor')}"
    )


@irdl_op_definition
class WarpgroupMmaOp(IRDLOperation):
    """`%d = nvgpu.warpgroup.mma %a, %b, %c {transposeB}? : descA, descB, acc -> acc`"""

    name = "nvgpu.warpgroup.mma"

    descriptorA = operand_def(WarpgroupDescriptorType)
    descriptorB = operand_def(WarpgroupDescriptorType)
    matrixC = operand_def(WarpgroupAccumulatorType)
    waitGroup = opt_prop_def(IntegerAttr)
    transposeA = opt_prop_def(UnitAttr)
    transposeB = opt_prop_def(UnitAttr)
    matrixD = result_def(WarpgroupAccumulatorType)

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        "$descriptorA `,` $descriptorB `,` $matrixC attr-dict"
        f" `:` {_stripped('descriptorA')} `,` {_stripped('descriptorB')} `,` {_stripped('matrixC')}"
        f" `->` {_stripped('matrixD')}"
    )


@irdl_op_definition
class WarpgroupMmaStoreOp(IRDLOperation):
    """`nvgpu.warpgroup.mma.store %acc, %m : accumulator to memref<...>`"""

    name = "nvgpu.warpgroup.mma.store"

    matrixD = operand_def(WarpgroupAccumulatorType)
    dstMemref = operand_def(MemRefType)

    custom_directives = (StrippedType,)
    assembly_format = (  # NVGPUOps.td
        f"$matrixD `,` $dstMemref attr-dict `:` {_stripped('matrixD')} `to` type($dstMemref)"
    )


@irdl_op_definition
class WarpgroupMmaInitAccumulatorOp(IRDLOperation):
    """`%acc = nvgpu.warpgroup.mma.init.accumulator -> accumulator`"""

    name = "nvgpu.warpgroup.mma.init.accumulator"

    matrixC = result_def(WarpgroupAccumulatorType)

    custom_directives = (StrippedType,)
    assembly_format = f"attr-dict `->` {_stripped('matrixC')}"  # NVGPUOps.td


TMA_OPS = (
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierArriveOp,
    MBarrierArriveNoCompleteOp,
    MBarrierArriveExpectTxOp,
    MBarrierTryWaitParityOp,
    MBarrierTestWaitOp,
    TmaCreateDescriptorOp,
    TmaFenceOp,
    TmaPrefetchOp,
    TmaAsyncLoadOp,
    TmaAsyncStoreOp,
    WarpgroupGenerateDescriptorOp,
    WarpgroupMmaOp,
    WarpgroupMmaStoreOp,
    WarpgroupMmaInitAccumulatorOp,
)
