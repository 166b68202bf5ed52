"""MLIR's `nvgpu` barriers, TMA and warpgroup ops (see `mlir_nvgpu`): `mbarrier.*`,
`tma.*`, `warpgroup.*`, as Hopper GEMMs write them."""

from __future__ import annotations

from gpu_alloc.dialect.mlir_nvgpu_types import (
    INDEX,
    MBarrierGroupType,
    MBarrierTokenType,
    TensorMapDescriptorType,
    WarpgroupAccumulatorType,
    WarpgroupDescriptorType,
    move_properties,
)
from gpu_alloc.dialect.mlir_syntax import (
    parse_index_list,
    parse_indexed,
    parse_optional_keyword_operand,
    parse_type_or_body,
    set_operand_segments,
)
from xdsl.dialects.builtin import (
    I1,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    UnitAttr,
    UnrankedMemRefType,
    i1,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser, UnresolvedOperand

# ------------------------------------------------------------------------- mbarriers


def _parse_barrier(parser: Parser) -> tuple[UnresolvedOperand, SSAValue]:
    """`%barriers[%mbarId]`: the group (resolved later) and the index."""
    group = parser.parse_unresolved_operand()
    (index,) = parse_index_list(parser)
    return group, index


def _group_type(parser: Parser) -> Attribute:
    return parse_type_or_body(parser, MBarrierGroupType)


@irdl_op_definition
class MBarrierCreateOp(IRDLOperation):
    """`%b = nvgpu.mbarrier.create -> !nvgpu.mbarrier.group<...>`: barriers in shared
    memory that the lowering allocates itself (not a memref, so never fused)."""

    name = "nvgpu.mbarrier.create"

    barriers = result_def(MBarrierGroupType)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierCreateOp:
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        return cls.create(result_types=[_group_type(parser)], attributes=attributes)


def _parse_barrier_op(
    cls: type[IRDLOperation],
    parser: Parser,
    trailing: tuple[tuple[str, Attribute], ...],
    order: tuple[str, ...],
    keyword_operand: tuple[str, Attribute] | None = None,
    token_result: bool = False,
) -> IRDLOperation:
    """`%group[%id] (, %x)* (, keyword = %p)? attr-dict : group-type (, type)? (-> token)?`

    `trailing` names and types the comma-separated operands after the index; `order`
    lists MLIR's operand order by name ("group", "id", the trailing names, and the
    keyword operand's name)."""
    group, index = _parse_barrier(parser)
    named: dict[str, list[SSAValue]] = {"id": [index]}
    for operand_name, type_ in trailing:
        parser.parse_punctuation(",")
        named[operand_name] = [parser.parse_operand(type_)]
    if keyword_operand is not None:
        keyword, type_ = keyword_operand
        named[keyword] = []
        if parser.parse_optional_punctuation(",") is not None:
            named[keyword] = parse_optional_keyword_operand(parser, keyword, type_)
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    group_type = _group_type(parser)
    results: list[Attribute] = []
    if token_result:
        parser.parse_punctuation("->")
        results = [parser.parse_type()]
    named["group"] = [parser.resolve_operand(group, group_type)]
    operands = [v for key in order for v in named.get(key, [])]
    return cls.create(operands=operands, result_types=results, attributes=attributes)


@irdl_op_definition
class MBarrierInitOp(IRDLOperation):
    """`nvgpu.mbarrier.init %b[%i], %count (, predicate = %p)? : group-type`"""

    name = "nvgpu.mbarrier.init"

    barriers = operand_def(MBarrierGroupType)
    count = operand_def(IndexType)
    mbarId = operand_def(IndexType)
    predicate = opt_operand_def(I1)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierInitOp:
        return _parse_barrier_op(  # pyright: ignore[reportReturnType]
            cls,
            parser,
            (("count", INDEX),),
            ("group", "count", "id", "predicate"),
            keyword_operand=("predicate", i1),
        )


@irdl_op_definition
class MBarrierArriveOp(IRDLOperation):
    """`%t = nvgpu.mbarrier.arrive %b[%i] : group-type -> !nvgpu.mbarrier.token`"""

    name = "nvgpu.mbarrier.arrive"

    barriers = operand_def(MBarrierGroupType)
    mbarId = operand_def(IndexType)
    token = result_def(MBarrierTokenType)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierArriveOp:
        return _parse_barrier_op(cls, parser, (), ("group", "id"), token_result=True)  # pyright: ignore[reportReturnType]


@irdl_op_definition
class MBarrierArriveNoCompleteOp(IRDLOperation):
    """`%t = nvgpu.mbarrier.arrive.nocomplete %b[%i], %count : group-type -> token`"""

    name = "nvgpu.mbarrier.arrive.nocomplete"

    barriers = operand_def(MBarrierGroupType)
    mbarId = operand_def(IndexType)
    count = operand_def(IndexType)
    token = result_def(MBarrierTokenType)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierArriveNoCompleteOp:
        return _parse_barrier_op(  # pyright: ignore[reportReturnType]
            cls, parser, (("count", INDEX),), ("group", "id", "count"), token_result=True
        )


@irdl_op_definition
class MBarrierArriveExpectTxOp(IRDLOperation):
    """`nvgpu.mbarrier.arrive.expect_tx %b[%i], %tx (, predicate = %p)? : group-type`"""

    name = "nvgpu.mbarrier.arrive.expect_tx"

    barriers = operand_def(MBarrierGroupType)
    txcount = operand_def(IndexType)
    mbarId = operand_def(IndexType)
    predicate = opt_operand_def(I1)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierArriveExpectTxOp:
        return _parse_barrier_op(  # pyright: ignore[reportReturnType]
            cls,
            parser,
            (("txcount", INDEX),),
            ("group", "txcount", "id", "predicate"),
            keyword_operand=("predicate", i1),
        )


@irdl_op_definition
class MBarrierTryWaitParityOp(IRDLOperation):
    """`nvgpu.mbarrier.try_wait.parity %b[%i], %parity, %ticks : group-type`"""

    name = "nvgpu.mbarrier.try_wait.parity"

    barriers = operand_def(MBarrierGroupType)
    phaseParity = operand_def(I1)
    ticks = operand_def(IndexType)
    mbarId = operand_def(IndexType)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierTryWaitParityOp:
        return _parse_barrier_op(  # pyright: ignore[reportReturnType]
            cls,
            parser,
            (("parity", i1), ("ticks", INDEX)),
            ("group", "parity", "ticks", "id"),
        )


@irdl_op_definition
class MBarrierTestWaitOp(IRDLOperation):
    """`%done = nvgpu.mbarrier.test.wait %b[%i], %token : group-type, token-type`"""

    name = "nvgpu.mbarrier.test.wait"

    barriers = operand_def(MBarrierGroupType)
    token = operand_def(MBarrierTokenType)
    mbarId = operand_def(IndexType)
    waitComplete = result_def(I1)

    @classmethod
    def parse(cls, parser: Parser) -> MBarrierTestWaitOp:
        group, index = _parse_barrier(parser)
        parser.parse_punctuation(",")
        token = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        group_value = parser.resolve_operand(group, _group_type(parser))
        parser.parse_punctuation(",")
        token_value = parser.resolve_operand(token, parser.parse_type())
        return cls.create(
            operands=[group_value, token_value, index], result_types=[i1], attributes=attributes
        )


# ------------------------------------------------------------------------------- tma


def _tensor_map_type(parser: Parser) -> Attribute:
    return parse_type_or_body(parser, TensorMapDescriptorType)


@irdl_op_definition
class TmaCreateDescriptorOp(IRDLOperation):
    """`%d = nvgpu.tma.create.descriptor %m box[%a, %b] : memref<*x...> -> tensor-map`"""

    name = "nvgpu.tma.create.descriptor"

    tensor = operand_def(UnrankedMemRefType)
    boxDimensions = var_operand_def(IndexType)
    tensorMap = result_def(TensorMapDescriptorType)

    @classmethod
    def parse(cls, parser: Parser) -> TmaCreateDescriptorOp:
        tensor = parser.parse_unresolved_operand()
        parser.parse_keyword("box")
        box = parse_index_list(parser)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        tensor_value = parser.resolve_operand(tensor, parser.parse_type())
        parser.parse_punctuation("->")
        return cls.create(
            operands=[tensor_value, *box],
            result_types=[_tensor_map_type(parser)],
            attributes=attributes,
        )


@irdl_op_definition
class TmaPrefetchOp(IRDLOperation):
    """`nvgpu.tma.prefetch.descriptor %d (, predicate = %p)? : tensor-map`"""

    name = "nvgpu.tma.prefetch.descriptor"

    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    predicate = opt_operand_def(I1)

    @classmethod
    def parse(cls, parser: Parser) -> TmaPrefetchOp:
        descriptor = parser.parse_unresolved_operand()
        predicate: list[SSAValue] = []
        if parser.parse_optional_punctuation(",") is not None:
            predicate = parse_optional_keyword_operand(parser, "predicate", i1)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value = parser.resolve_operand(descriptor, _tensor_map_type(parser))
        return cls.create(operands=[value, *predicate], attributes=attributes)


@irdl_op_definition
class TmaAsyncLoadOp(IRDLOperation):
    """`nvgpu.tma.async.load %d[%x, ...], %b[%i] to %dst (multicast_mask = %m)?
    (, predicate = %p)? : tensor-map, group-type -> memref<...>`: the bytes arrive in
    `dst` when the barrier completes its phase."""

    name = "nvgpu.tma.async.load"

    dst = operand_def(MemRefType)
    barriers = operand_def(MBarrierGroupType)
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(IndexType)
    mbarId = operand_def(IndexType)
    multicastMask = opt_operand_def(IntegerType)
    predicate = opt_operand_def(I1)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> TmaAsyncLoadOp:
        descriptor, coordinates = parse_indexed(parser)
        parser.parse_punctuation(",")
        group, index = _parse_barrier(parser)
        parser.parse_keyword("to")
        dst = parser.parse_unresolved_operand()
        mask = parse_optional_keyword_operand(parser, "multicast_mask", IntegerType(16))
        predicate: list[SSAValue] = []
        if parser.parse_optional_punctuation(",") is not None:
            predicate = parse_optional_keyword_operand(parser, "predicate", i1)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        descriptor_value = parser.resolve_operand(descriptor, _tensor_map_type(parser))
        parser.parse_punctuation(",")
        group_value = parser.resolve_operand(group, _group_type(parser))
        parser.parse_punctuation("->")
        dst_value = parser.resolve_operand(dst, parser.parse_type())
        op = cls.create(
            operands=[
                dst_value,
                group_value,
                descriptor_value,
                *coordinates,
                index,
                *mask,
                *predicate,
            ],
            attributes=attributes,
        )
        set_operand_segments(op, [1, 1, 1, len(coordinates), 1, len(mask), len(predicate)])
        return op


@irdl_op_definition
class TmaAsyncStoreOp(IRDLOperation):
    """`nvgpu.tma.async.store %src to %d[%x, ...] (, predicate = %p)? : memref -> map`"""

    name = "nvgpu.tma.async.store"

    src = operand_def(MemRefType)
    tensorMapDescriptor = operand_def(TensorMapDescriptorType)
    coordinates = var_operand_def(IndexType)
    predicate = opt_operand_def(I1)

    irdl_options = (AttrSizedOperandSegments(as_property=True),)

    @classmethod
    def parse(cls, parser: Parser) -> TmaAsyncStoreOp:
        src = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        descriptor, coordinates = parse_indexed(parser)
        predicate: list[SSAValue] = []
        if parser.parse_optional_punctuation(",") is not None:
            predicate = parse_optional_keyword_operand(parser, "predicate", i1)
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        src_value = parser.resolve_operand(src, parser.parse_type())
        parser.parse_punctuation("->")
        descriptor_value = parser.resolve_operand(descriptor, _tensor_map_type(parser))
        op = cls.create(
            operands=[src_value, descriptor_value, *coordinates, *predicate],
            attributes=attributes,
        )
        set_operand_segments(op, [1, 1, len(coordinates), len(predicate)])
        return op


# ------------------------------------------------------------------------- warpgroups


@irdl_op_definition
class WarpgroupGenerateDescriptorOp(IRDLOperation):
    """`%d = nvgpu.warpgroup.generate.descriptor %m, %map : memref, map -> descriptor`"""

    name = "nvgpu.warpgroup.generate.descriptor"

    tensor = operand_def(MemRefType)
    tensorMap = operand_def(TensorMapDescriptorType)
    descriptor = result_def(WarpgroupDescriptorType)

    @classmethod
    def parse(cls, parser: Parser) -> WarpgroupGenerateDescriptorOp:
        tensor = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tensor_map = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        tensor_value = parser.resolve_operand(tensor, parser.parse_type())
        parser.parse_punctuation(",")
        map_value = parser.resolve_operand(tensor_map, _tensor_map_type(parser))
        parser.parse_punctuation("->")
        result = parse_type_or_body(parser, WarpgroupDescriptorType)
        return cls.create(
            operands=[tensor_value, map_value], result_types=[result], attributes=attributes
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

    @classmethod
    def parse(cls, parser: Parser) -> WarpgroupMmaOp:
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.NONE, parser.parse_unresolved_operand
        )
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        kinds = (WarpgroupDescriptorType, WarpgroupDescriptorType, WarpgroupAccumulatorType)
        types: list[Attribute] = []
        for index, kind in enumerate(kinds):
            if index:
                parser.parse_punctuation(",")
            types.append(parse_type_or_body(parser, kind))
        parser.parse_punctuation("->")
        result = parse_type_or_body(parser, WarpgroupAccumulatorType)
        values = parser.resolve_operands(operands, types, parser.pos)
        op = cls.create(operands=values, result_types=[result], attributes=attributes)
        return move_properties(op, ("waitGroup", "transposeA", "transposeB"))  # pyright: ignore[reportReturnType]


@irdl_op_definition
class WarpgroupMmaStoreOp(IRDLOperation):
    """`nvgpu.warpgroup.mma.store %acc, %m : accumulator to memref<...>`"""

    name = "nvgpu.warpgroup.mma.store"

    matrixD = operand_def(WarpgroupAccumulatorType)
    dstMemref = operand_def(MemRefType)

    @classmethod
    def parse(cls, parser: Parser) -> WarpgroupMmaStoreOp:
        accumulator = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref = parser.parse_unresolved_operand()
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        acc_value = parser.resolve_operand(
            accumulator, parse_type_or_body(parser, WarpgroupAccumulatorType)
        )
        parser.parse_keyword("to")
        memref_value = parser.resolve_operand(memref, parser.parse_type())
        return cls.create(operands=[acc_value, memref_value], attributes=attributes)


@irdl_op_definition
class WarpgroupMmaInitAccumulatorOp(IRDLOperation):
    """`%acc = nvgpu.warpgroup.mma.init.accumulator -> accumulator`"""

    name = "nvgpu.warpgroup.mma.init.accumulator"

    matrixC = result_def(WarpgroupAccumulatorType)

    @classmethod
    def parse(cls, parser: Parser) -> WarpgroupMmaInitAccumulatorOp:
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punctuation("->")
        result = parse_type_or_body(parser, WarpgroupAccumulatorType)
        return cls.create(result_types=[result], attributes=attributes)


TMA_OPS = (
    MBarrierCreateOp,
    MBarrierInitOp,
    MBarrierArriveOp,
    MBarrierArriveNoCompleteOp,
    MBarrierArriveExpectTxOp,
    MBarrierTryWaitParityOp,
    MBarrierTestWaitOp,
    TmaCreateDescriptorOp,
    TmaPrefetchOp,
    TmaAsyncLoadOp,
    TmaAsyncStoreOp,
    WarpgroupGenerateDescriptorOp,
    WarpgroupMmaOp,
    WarpgroupMmaStoreOp,
    WarpgroupMmaInitAccumulatorOp,
)
