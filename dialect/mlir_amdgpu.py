"""The `amdgpu` ops kernels use to move data (AMDGPU.td in MLIR 22), which xDSL 0.75 lacks.

`gather_to_lds` (global to shared memory, asynchronous), `lds_barrier`,
`raw_buffer_load`/`raw_buffer_store`, `transpose_load` and `fat_raw_buffer_cast`, with
MLIR's custom syntax; they print MLIR's generic form. `#amdgpu.address_space<...>`
is kept as text (`mlir_attributes`). What each op does with a memref is in
`transforms/memory_effects.py`. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from gpu_alloc.dialect.mlir_syntax import parse_indexed, set_operand_segments
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, IntegerType, MemRefType, UnitAttr
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand

_I32 = IntegerType(32)


def _buffer_indices(parser: Parser) -> tuple[UnresolvedOperand, list[SSAValue], list[SSAValue]]:
    """`%memref[%i32, ...] (sgprOffset %o)?`"""
    memref = parser.parse_unresolved_operand()
    indices = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(_I32)
    )
    offset: list[SSAValue] = []
    if parser.parse_optional_keyword("sgprOffset") is not None:
        offset = [parser.parse_operand(_I32)]
    return memref, [*indices], offset


_BUFFER_PROPS = ("boundsCheck", "indexOffset")


def _props_from(attributes: dict[str, Attribute], names: tuple[str, ...]) -> dict[str, Attribute]:
    return {name: attributes.pop(name) for name in names if name in attributes}


@irdl_op_definition
class GatherToLdsOp(IRDLOperation):
    """`amdgpu.gather_to_lds %src[%i...], %dst[%j...] : transfer, src-type, dst-type`:
    starts copying from global to shared memory (complete after a wait or barrier)."""

    name = "amdgpu.gather_to_lds"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def()
    dst = operand_def(MemRefType)
    dstIndices = var_operand_def()
    transferType = prop_def(Attribute)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> GatherToLdsOp:
        src, src_indices = parse_indexed(parser)
        parser.parse_punctuation(",")
        dst, dst_indices = parse_indexed(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        transfer = parser.parse_type()
        parser.parse_punctuation(",")
        src_value = parser.resolve_operand(src, parser.parse_type())
        parser.parse_punctuation(",")
        dst_value = parser.resolve_operand(dst, parser.parse_type())
        op = cls.create(
            operands=[src_value, *src_indices, dst_value, *dst_indices],
            properties={"transferType": transfer},
            attributes=attributes,
        )
        set_operand_segments(op, [1, len(src_indices), 1, len(dst_indices)])
        return op


@irdl_op_definition
class LdsBarrierOp(IRDLOperation):
    """`amdgpu.lds_barrier`: a workgroup barrier that also orders shared memory."""

    name = "amdgpu.lds_barrier"

    @classmethod
    def parse(cls, parser: Parser) -> LdsBarrierOp:
        return cls.create(attributes=parser.parse_optional_attr_dict())


@irdl_op_definition
class RawBufferLoadOp(IRDLOperation):
    """`%v = amdgpu.raw_buffer_load {boundsCheck}? %m[%i...] (sgprOffset %o)? :
    memref, i32... -> type`"""

    name = "amdgpu.raw_buffer_load"

    memref = operand_def(MemRefType)
    indices = var_operand_def()
    sgprOffset = opt_operand_def(IntegerType)
    boundsCheck = opt_prop_def(BoolAttr)
    indexOffset = opt_prop_def(IntegerAttr)
    value = result_def()

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> RawBufferLoadOp:
        attributes = parser.parse_optional_attr_dict()
        memref, indices, offset = _buffer_indices(parser)
        attributes |= parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        parser.parse_punctuation("->")
        result = parser.parse_type()
        memref_value = parser.resolve_operand(memref, types[0])
        op = cls.create(
            operands=[memref_value, *indices, *offset],
            result_types=[result],
            properties=_props_from(attributes, _BUFFER_PROPS),
            attributes=attributes,
        )
        set_operand_segments(op, [1, len(indices), len(offset)])
        return op


@irdl_op_definition
class RawBufferStoreOp(IRDLOperation):
    """`amdgpu.raw_buffer_store {boundsCheck}? %v -> %m[%i...] (sgprOffset %o)? :
    type -> memref, i32...`"""

    name = "amdgpu.raw_buffer_store"

    value = operand_def()
    memref = operand_def(MemRefType)
    indices = var_operand_def()
    sgprOffset = opt_operand_def(IntegerType)
    boundsCheck = opt_prop_def(BoolAttr)
    indexOffset = opt_prop_def(IntegerAttr)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> RawBufferStoreOp:
        attributes = parser.parse_optional_attr_dict()
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation("->")
        memref, indices, offset = _buffer_indices(parser)
        attributes |= parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        parser.parse_punctuation("->")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        memref_value = parser.resolve_operand(memref, types[0])
        op = cls.create(
            operands=[parser.resolve_operand(value, value_type), memref_value, *indices, *offset],
            properties=_props_from(attributes, _BUFFER_PROPS),
            attributes=attributes,
        )
        set_operand_segments(op, [1, 1, len(indices), len(offset)])
        return op


@irdl_op_definition
class TransposeLoadOp(IRDLOperation):
    """`%v = amdgpu.transpose_load %m[%i, %j] : memref -> vector`: reads shared memory."""

    name = "amdgpu.transpose_load"

    src = operand_def(MemRefType)
    srcIndices = var_operand_def()
    result = result_def()

    @classmethod
    def parse(cls, parser: Parser) -> TransposeLoadOp:
        src, indices = parse_indexed(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_value = parser.resolve_operand(src, parser.parse_type())
        parser.parse_punctuation("->")
        return cls.create(
            operands=[src_value, *indices],
            result_types=[parser.parse_type()],
            attributes=attributes,
        )


@irdl_op_definition
class FatRawBufferCastOp(IRDLOperation):
    """`%b = amdgpu.fat_raw_buffer_cast %m (validBytes(%n))? (cacheSwizzleStride(%s))?
    (boundsCheck(false))? (resetOffset)? : memref to memref`: a view of `%m`."""

    name = "amdgpu.fat_raw_buffer_cast"

    source = operand_def(MemRefType)
    validBytes = opt_operand_def(IntegerType)
    cacheSwizzleStride = opt_operand_def(IntegerType)
    boundsCheck = opt_prop_def(BoolAttr)
    resetOffset = opt_prop_def(UnitAttr)
    result = result_def(MemRefType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> FatRawBufferCastOp:
        source = parser.parse_unresolved_operand()
        optional: dict[str, list[SSAValue]] = {"validBytes": [], "cacheSwizzleStride": []}
        properties: dict[str, Attribute] = {}
        while (keyword := parser.parse_optional_identifier()) is not None:
            if keyword in optional:
                parser.parse_punctuation("(")
                optional[keyword] = [parser.parse_operand(_I32)]
                parser.parse_punctuation(")")
            elif keyword == "boundsCheck":
                parser.parse_punctuation("(")
                properties["boundsCheck"] = BoolAttr(parser.parse_boolean(), IntegerType(1))
                parser.parse_punctuation(")")
            elif keyword == "resetOffset":
                properties["resetOffset"] = UnitAttr()
            else:
                parser.raise_error(f"unexpected '{keyword}' in amdgpu.fat_raw_buffer_cast")
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_keyword("to")
        op = cls.create(
            operands=[source_value, *optional["validBytes"], *optional["cacheSwizzleStride"]],
            result_types=[parser.parse_type()],
            properties=properties,
            attributes=attributes,
        )
        set_operand_segments(
            op, [1, len(optional["validBytes"]), len(optional["cacheSwizzleStride"])]
        )
        return op


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
