"""MLIR's `nvgpu` dialect (NVGPUOps.td in MLIR 22), which xDSL 0.75 lacks.

The ops real kernels use: asynchronous copies (`device_async_copy`,
`device_async_create_group`, `device_async_wait`), `ldmatrix`, `mma.sync`,
`mma.sp.sync`, the `mbarrier.*` ops, the `tma.*` ops and the `warpgroup.*` ops of
Hopper GEMMs. Each declares NVGPUOps.td's `assemblyFormat`, so it reads and prints
MLIR's custom form; its generic form keeps MLIR's operand order, property names and
`operandSegmentSizes`. The types keep their parameters as MLIR wrote them (`mlir_syntax.OpaqueParametersType`):
this project never looks inside a barrier group or a tensor map. What each op does with
a memref is in `transforms/memory_effects.py`. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from gpu_alloc.syntax.mlir_nvgpu_tma import TMA_OPS
from gpu_alloc.syntax.mlir_nvgpu_types import TYPES, DeviceAsyncTokenType
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    VectorType,
    i16,
    i32,
)
from xdsl.ir import Dialect
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    ParsePropInAttrDict,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)

# ------------------------------------------------------------------ asynchronous copies


@irdl_op_definition
class DeviceAsyncCopyOp(IRDLOperation):
    """`%t = nvgpu.device_async_copy %src[%i...], %dst[%j...], N (, %srcElements)?
    attr-dict : type(src) to type(dst)`: starts copying N elements; they are in `dst`
    once a `device_async_wait` on a group holding `%t` returns."""

    name = "nvgpu.device_async_copy"

    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType)
    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType)
    srcElements = opt_operand_def(IndexType)
    dstElements = prop_def(IntegerAttr[IndexType])
    bypassL1 = opt_prop_def(UnitAttr)
    asyncToken = result_def(DeviceAsyncTokenType())

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (  # NVGPUOps.td
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` `,` $dstElements"
        " (`,` $srcElements^)? attr-dict `:` type($src) `to` type($dst)"
    )


@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """`%g = nvgpu.device_async_create_group %t1, %t2, ...`"""

    name = "nvgpu.device_async_create_group"

    inputTokens = var_operand_def(DeviceAsyncTokenType())
    asyncToken = result_def(DeviceAsyncTokenType())

    assembly_format = "$inputTokens attr-dict"  # NVGPUOps.td


@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """`nvgpu.device_async_wait %g {numGroups = N : i32}?`: waits until at most N groups
    are in flight (0 if absent); the copies of the older groups are then complete."""

    name = "nvgpu.device_async_wait"

    asyncDependencies = operand_def(DeviceAsyncTokenType())
    numGroups = opt_prop_def(IntegerAttr)

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = "$asyncDependencies attr-dict"  # NVGPUOps.td


# ------------------------------------------------------------------ matrix operations


@irdl_op_definition
class LdMatrixOp(IRDLOperation):
    """`%v = nvgpu.ldmatrix %m[%i, %j] {numTiles = 4 : i32, transpose = false} :
    memref<...> -> vector<...>`: reads a warp's matrix fragment from shared memory."""

    name = "nvgpu.ldmatrix"

    srcMemref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    transpose = prop_def(BoolAttr)
    numTiles = prop_def(IntegerAttr)
    res = result_def(VectorType)

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = (  # NVGPUOps.td
        "$srcMemref `[` $indices `]` attr-dict `:` type($srcMemref) `->` type($res)"
    )


@irdl_op_definition
class MmaSyncOp(IRDLOperation):
    """`%d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [m, n, k]} : (...) -> ...`"""

    name = "nvgpu.mma.sync"

    matrixA = operand_def(VectorType)
    matrixB = operand_def(VectorType)
    matrixC = operand_def(VectorType)
    mmaShape = prop_def(ArrayAttr)
    tf32Enabled = opt_prop_def(UnitAttr)
    res = result_def(VectorType)

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = (  # NVGPUOps.td
        "`(` $matrixA `,` $matrixB `,` $matrixC `)` attr-dict"
        " `:` `(` type($matrixA) `,` type($matrixB) `,` type($matrixC) `)` `->` type($res)"
    )


@irdl_op_definition
class MmaSparseSyncOp(IRDLOperation):
    """`%d = nvgpu.mma.sp.sync(%a, %b, %c) metadata(%m) {mmaShape = [...]} : (...) -> ...`"""

    name = "nvgpu.mma.sp.sync"

    matrixA = operand_def(VectorType)
    matrixB = operand_def(VectorType)
    matrixC = operand_def(VectorType)
    sparseMetadata = operand_def(VectorType(i16, [2]))
    mmaShape = prop_def(ArrayAttr)
    sparsitySelector = prop_def(IntegerAttr, default_value=IntegerAttr(0, i32))
    tf32Enabled = opt_prop_def(UnitAttr)
    res = result_def(VectorType)

    irdl_options = (ParsePropInAttrDict(),)  # MLIR's inherent attributes sit there
    assembly_format = (  # NVGPUOps.td
        "`(` $matrixA `,` $matrixB `,` $matrixC `)` `metadata` `(` $sparseMetadata `)`"
        " attr-dict `:` `(` type($matrixA) `,` type($matrixB) `,` type($matrixC) `)`"
        " `->` type($res)"
    )


NVGPU = Dialect(
    "nvgpu",
    [
        DeviceAsyncCopyOp,
        DeviceAsyncCreateGroupOp,
        DeviceAsyncWaitOp,
        LdMatrixOp,
        MmaSyncOp,
        MmaSparseSyncOp,
        *TMA_OPS,
    ],
    list(TYPES),
)
"""The `nvgpu` ops kernels use, with MLIR's custom syntax."""
