"""The `amdgpu` ops kernels use to move data (AMDGPU.td in MLIR 22), which xDSL 0.75 lacks.

`gather_to_lds` (global to shared memory, asynchronous), `lds_barrier`,
`raw_buffer_load`/`raw_buffer_store`, `transpose_load` and `fat_raw_buffer_cast`; each
declares the `assemblyFormat` of MLIR 22's AMDGPU.td, which it reads and prints (the
inherent attributes, `boundsCheck` and `indexOffset`, in the attribute dictionary, as
MLIR writes them). `#amdgpu.address_space<...>` is kept as text (`mlir_attributes`).
What each op does with a memref is in `transforms/memory_effects.py`. Written to be
proposed to xDSL as it is.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    BoolAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
)
from xdsl.ir import Attribute, Dialect, Operation
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

_I32 = IntegerType(32)
_TRUE = BoolAttr(True, IntegerType(1))


@irdl_op_definition
class GatherToLdsOp(IRDLOperation):
    """`amdgpu.gather_to_lds %src[%i...], %dst[%j...] : transfer, src-type, dst-type`:
    starts copying from global to shared memory (complete after a wait or barrier)."""

    name = "amdgpu.gather_to_lds"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType())
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def(IndexType())
    transferType = prop_def(Attribute)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    assembly_format = (  # AMDGPU.td
        "$src `[` $srcIndices `]` `,` $dst `[` $dstIndices `]` attr-dict `:` $transferType "
        "`,` type($src) `,` type($dst)"
    )


@irdl_op_definition
class LdsBarrierOp(IRDLOperation):
    """`amdgpu.lds_barrier`: a workgroup barrier that also orders shared memory."""

    name = "amdgpu.lds_barrier"

    assembly_format = "attr-dict"  # AMDGPU.td


@irdl_op_definition
class RawBufferLoadOp(IRDLOperation):
    """`%v = amdgpu.raw_buffer_load {boundsCheck}? %m[%i...] (sgprOffset %o)? :
    memref, i32... -> type`"""

    name = "amdgpu.raw_buffer_load"

    memref = operand_def(MemRefType)
    indices = var_operand_def()
    sgprOffset = opt_operand_def(_I32)
    boundsCheck = opt_prop_def(BoolAttr, default_value=_TRUE)
    indexOffset = opt_prop_def(IntegerAttr)
    value = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (  # AMDGPU.td
        "attr-dict $memref `[` $indices `]` (`sgprOffset` $sgprOffset^)? `:` "
        "type($memref) (`,` type($indices)^)? `->` type($value)"
    )


@irdl_op_definition
class RawBufferStoreOp(IRDLOperation):
    """`amdgpu.raw_buffer_store {boundsCheck}? %v -> %m[%i...] (sgprOffset %o)? :
    type -> memref, i32...`"""

    name = "amdgpu.raw_buffer_store"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def()
    sgprOffset = opt_operand_def(_I32)
    boundsCheck = opt_prop_def(BoolAttr, default_value=_TRUE)
    indexOffset = opt_prop_def(IntegerAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True), ParsePropInAttrDict())
    assembly_format = (  # AMDGPU.td
        "attr-dict $value `->` $memref `[` $indices `]` (`sgprOffset` $sgprOffset^)? `:` "
        "type($value) `->` type($memref) (`,` type($indices)^)?"
    )


@irdl_op_definition
class TransposeLoadOp(IRDLOperation):
    """`%v = amdgpu.transpose_load %m[%i, %j] : memref -> vector`: reads shared memory."""

    name = "amdgpu.transpose_load"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def(IndexType())
    result = result_def()

    assembly_format = (  # AMDGPU.td
        "$src `[` $srcIndices `]` attr-dict `:` type($src) `->` type($result)"
    )


@irdl_op_definition
class FatRawBufferCastOp(IRDLOperation):
    """`%b = amdgpu.fat_raw_buffer_cast %m (validBytes(%n))? (cacheSwizzleStride(%s))?
    (boundsCheck(false))? (resetOffset)? : memref to memref`: a view of `%m`."""

    name = "amdgpu.fat_raw_buffer_cast"

    source = operand_def(MemRefType)
    validBytes = opt_operand_def(IntegerType(64))
    cacheSwizzleStride = opt_operand_def(IntegerType(14))
    boundsCheck = opt_prop_def(BoolAttr, default_value=_TRUE)
    resetOffset = opt_prop_def(UnitAttr)
    result = result_def(MemRefType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)
    # AMDGPU.td's `oilist(...)` of these clauses, which xDSL's formats lack, as optional
    # groups in MLIR's order: it reads what MLIR prints, but not another order
    assembly_format = (
        "$source (`validBytes` `(` $validBytes^ `)`)? "
        "(`cacheSwizzleStride` `(` $cacheSwizzleStride^ `)`)? "
        "(`boundsCheck` `(` $boundsCheck^ `)`)? (`resetOffset` $resetOffset^)? "
        "attr-dict `:` type($source) `to` type($result)"
    )


AMDGPU_OPS: tuple[type[Operation], ...] = (
    GatherToLdsOp,
    LdsBarrierOp,
    RawBufferLoadOp,
    RawBufferStoreOp,
    TransposeLoadOp,
    FatRawBufferCastOp,
)

AMDGPU = Dialect("amdgpu", list(AMDGPU_OPS), [])
"""The `amdgpu` data-movement ops, with MLIR's custom syntax."""
