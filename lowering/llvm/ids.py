"""The `gpu` id ops and `gpu.barrier` in xDSL's `llvm` dialect, spelled the way the
target's description says (`gpu_alloc.targets`: `Ids`, `barrier`).

An id is read by an intrinsic or builtin call (`Intrinsic`), loaded from the kernel's
implicit arguments (`ImplicitArgument`), or counted from a lane mask
(`MaskedLaneCount`: one step per 32 lanes of the chip's wave); it becomes an `index`
(`i64`), zero-extended. A barrier is the description's sequence of fences and calls.
"""

from __future__ import annotations

from gpu_alloc.lowering.llvm.builder import FunctionBuilder, Lowered
from gpu_alloc.lowering.llvm.extras import FenceOp
from gpu_alloc.targets import Call, IdSource, ImplicitArgument, Intrinsic, MaskedLaneCount
from xdsl.dialects import gpu, llvm
from xdsl.dialects.builtin import IntAttr, IntegerType, i8, i32, i64
from xdsl.ir import Operation, SSAValue

DIMENSIONS = ("x", "y", "z")

_PER_DIMENSION = {
    "gpu.thread_id": "thread_id",
    "gpu.block_id": "block_id",
    "gpu.block_dim": "block_dim",
    "gpu.grid_dim": "grid_dim",
}


def _as_index(b: FunctionBuilder, value: SSAValue, bits: int) -> SSAValue:
    return value if bits == 64 else b.emit(llvm.ZExtOp(value, i64))


def _call(b: FunctionBuilder, source: Intrinsic, dimension: int | None) -> SSAValue:
    name = source.name
    arguments: list[SSAValue] = []
    if dimension is not None:
        if source.dimension_argument:
            arguments.append(b.constant(dimension, i32))
        else:
            name = name.format(dim=DIMENSIONS[dimension])
    value = b.intrinsic(name, arguments, IntegerType(source.bits))
    assert value is not None
    return value


def _implicit_argument(b: FunctionBuilder, source: ImplicitArgument, dimension: int) -> SSAValue:
    pointer_type = llvm.LLVMPointerType(IntAttr(source.pointer_space))
    base = b.intrinsic(source.pointer, [], pointer_type)
    assert base is not None
    offset = source.offset + source.stride * dimension
    address = b.emit(
        llvm.GEPOp.from_mixed_indices(base, [offset], i8, result_type=pointer_type, inbounds=True)
    )
    return b.emit(llvm.LoadOp(address, IntegerType(source.bits), alignment=source.bits // 8))


def _masked_lane_count(b: FunctionBuilder, source: MaskedLaneCount) -> SSAValue:
    wave = b.device.wave_size or 32
    value = b.constant(0, i32)
    for step in source.steps[: max(1, wave // 32)]:
        counted = b.intrinsic(step, [b.constant(-1, i32), value], i32)
        assert counted is not None
        value = counted
    return value


def read_id(b: FunctionBuilder, source: IdSource, dimension: int | None = None) -> SSAValue:
    """The id `source` describes, for `dimension` (0-2) where it has one, as an `i64`."""
    match source:
        case Intrinsic():
            return _as_index(b, _call(b, source, dimension), source.bits)
        case ImplicitArgument():
            assert dimension is not None
            return _as_index(b, _implicit_argument(b, source, dimension), source.bits)
        case MaskedLaneCount():
            return _as_index(b, _masked_lane_count(b, source), source.bits)


def _per_dimension(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp)
    source = getattr(b.device.target.ids, _PER_DIMENSION[op.name])
    return [read_id(b, source, DIMENSIONS.index(op.dimension.data.value))]


def _global_id(b: FunctionBuilder, op: Operation) -> Lowered:
    """`block_id * block_dim + thread_id`, as MLIR defines it (no global offset)."""
    assert isinstance(op, gpu.GlobalIdOp)
    dimension = DIMENSIONS.index(op.dimension.data.value)
    ids = b.device.target.ids
    block = read_id(b, ids.block_id, dimension)
    size = read_id(b, ids.block_dim, dimension)
    thread = read_id(b, ids.thread_id, dimension)
    return [b.emit(llvm.AddOp(b.emit(llvm.MulOp(block, size)), thread))]


def _barrier(b: FunctionBuilder, op: Operation) -> Lowered:
    for step in b.device.target.barrier:
        if isinstance(step, Call):
            b.intrinsic(step.name, [b.constant(a, i32) for a in step.arguments], None)
        else:
            b.emit_void(FenceOp(step.ordering, step.scope))
    return None


ID_LOWERINGS = {
    **dict.fromkeys(_PER_DIMENSION, _per_dimension),
    "gpu.global_id": _global_id,
    "gpu.lane_id": lambda b, op: [read_id(b, b.device.target.ids.lane_id)],
    "gpu.subgroup_size": lambda b, op: [read_id(b, b.device.target.ids.subgroup_size)],
    "gpu.barrier": _barrier,
}
"""The id ops and `gpu.barrier`, by name, for `to_llvm.OP_LOWERINGS`."""
