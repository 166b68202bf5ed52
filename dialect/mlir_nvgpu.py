"""MLIR's `nvgpu` dialect (NVGPUOps.td in MLIR 22), which xDSL 0.75 lacks.

The ops real kernels use: asynchronous copies (`device_async_copy`,
`device_async_create_group`, `device_async_wait`), `ldmatrix`, `mma.sync`,
`mma.sp.sync`, the `mbarrier.*` ops, the `tma.*` ops and the `warpgroup.*` ops of
Hopper GEMMs. Each reads MLIR's custom form and prints MLIR's generic form (same operand
order, property names and `operandSegmentSizes`), so `mlir-opt` reads what it prints;
the types keep their parameters as MLIR wrote them (`mlir_syntax.OpaqueParametersType`):
this project never looks inside a barrier group or a tensor map. What each op does with
a memref is in `transforms/memory_effects.py`. Written to be proposed to xDSL as it is.
"""

from __future__ import annotations

from gpu_alloc.dialect.mlir_nvgpu_tma import TMA_OPS
from gpu_alloc.dialect.mlir_nvgpu_types import (
    INDEX,
    TYPES,
    DeviceAsyncTokenType,
    move_properties,
    with_attributes,
)
from gpu_alloc.dialect.mlir_syntax import parse_indexed, set_operand_segments
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    VectorType,
    i32,
)
from xdsl.ir import Attribute, Dialect, SSAValue
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
from xdsl.parser import Parser

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
    dstElements = prop_def(IntegerAttr)
    bypassL1 = opt_prop_def(UnitAttr)
    asyncToken = result_def(DeviceAsyncTokenType)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceAsyncCopyOp:
        src, src_indices = parse_indexed(parser)
        parser.parse_punctuation(",")
        dst, dst_indices = parse_indexed(parser)
        parser.parse_punctuation(",")
        count = parser.parse_integer()
        src_elements: list[SSAValue] = []
        if parser.parse_optional_punctuation(",") is not None:
            src_elements = [parser.parse_operand(INDEX)]
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_value = parser.resolve_operand(src, parser.parse_type())
        parser.parse_keyword("to")
        dst_value = parser.resolve_operand(dst, parser.parse_type())
        op = cls.create(
            operands=[dst_value, *dst_indices, src_value, *src_indices, *src_elements],
            result_types=[DeviceAsyncTokenType()],
            properties={"dstElements": IntegerAttr(count, INDEX)},
            attributes=attributes,
        )
        set_operand_segments(op, [1, len(dst_indices), 1, len(src_indices), len(src_elements)])
        return move_properties(op, ("bypassL1",))  # pyright: ignore[reportReturnType]


@irdl_op_definition
class DeviceAsyncCreateGroupOp(IRDLOperation):
    """`%g = nvgpu.device_async_create_group %t1, %t2, ...`"""

    name = "nvgpu.device_async_create_group"

    inputTokens = var_operand_def(DeviceAsyncTokenType)
    asyncToken = result_def(DeviceAsyncTokenType)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceAsyncCreateGroupOp:
        tokens = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, lambda: parser.parse_operand(DeviceAsyncTokenType())
        )
        op = cls.create(operands=tokens, result_types=[DeviceAsyncTokenType()])
        return with_attributes(parser, op)  # pyright: ignore[reportReturnType]


@irdl_op_definition
class DeviceAsyncWaitOp(IRDLOperation):
    """`nvgpu.device_async_wait %g {numGroups = N : i32}?`: waits until at most N groups
    are in flight (0 if absent); the copies of the older groups are then complete."""

    name = "nvgpu.device_async_wait"

    asyncDependencies = operand_def(DeviceAsyncTokenType)
    numGroups = opt_prop_def(IntegerAttr)

    @classmethod
    def parse(cls, parser: Parser) -> DeviceAsyncWaitOp:
        token = parser.parse_operand(DeviceAsyncTokenType())
        op = with_attributes(parser, cls.create(operands=[token]))
        return move_properties(op, ("numGroups",))  # pyright: ignore[reportReturnType]


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

    @classmethod
    def parse(cls, parser: Parser) -> LdMatrixOp:
        source, indices = parse_indexed(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_value = parser.resolve_operand(source, parser.parse_type())
        parser.parse_punctuation("->")
        op = cls.create(
            operands=[source_value, *indices],
            result_types=[parser.parse_type()],
            attributes=attributes,
        )
        return move_properties(op, ("transpose", "numTiles"))  # pyright: ignore[reportReturnType]


def _parse_mma_types(parser: Parser, count: int) -> tuple[list[Attribute], Attribute]:
    parser.parse_punctuation(":")
    types = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    if len(types) != count:
        parser.raise_error(f"expected {count} operand types")
    parser.parse_punctuation("->")
    return [*types], parser.parse_type()


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

    @classmethod
    def parse(cls, parser: Parser) -> MmaSyncOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        types, result = _parse_mma_types(parser, 3)
        values = parser.resolve_operands(operands, types, parser.pos)
        op = cls.create(operands=values, result_types=[result], attributes=attributes)
        return move_properties(op, ("mmaShape", "tf32Enabled"))  # pyright: ignore[reportReturnType]


@irdl_op_definition
class MmaSparseSyncOp(IRDLOperation):
    """`%d = nvgpu.mma.sp.sync(%a, %b, %c) metadata(%m) {mmaShape = [...]} : (...) -> ...`"""

    name = "nvgpu.mma.sp.sync"

    matrixA = operand_def(VectorType)
    matrixB = operand_def(VectorType)
    matrixC = operand_def(VectorType)
    sparseMetadata = operand_def(VectorType)
    mmaShape = prop_def(ArrayAttr)
    sparsitySelector = opt_prop_def(IntegerAttr)
    tf32Enabled = opt_prop_def(UnitAttr)
    res = result_def(VectorType)

    @classmethod
    def parse(cls, parser: Parser) -> MmaSparseSyncOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        parser.parse_keyword("metadata")
        parser.parse_punctuation("(")
        metadata = parser.parse_unresolved_operand()
        parser.parse_punctuation(")")
        attributes = parser.parse_optional_attr_dict()
        types, result = _parse_mma_types(parser, 3)
        values = parser.resolve_operands(operands, types, parser.pos)
        meta_value = parser.resolve_operand(metadata, VectorType(IntegerType(16), [2]))
        op = cls.create(operands=[*values, meta_value], result_types=[result])
        op.attributes |= attributes
        move_properties(op, ("mmaShape", "sparsitySelector", "tf32Enabled"))
        op.properties.setdefault("sparsitySelector", IntegerAttr(0, i32))
        return op  # pyright: ignore[reportReturnType]


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
