"""Ids the MLIR backend reads itself, before MLIR's pipeline sees them.

MLIR 22's ROCDL lowering reads a block's size and the grid's (`gpu.block_dim`,
`gpu.grid_dim`, and through them `gpu.global_id`) by calling ROCm's device library
(`__ockl_get_local_size`), which `gpu-module-to-binary` then cannot link where ROCm is
not installed. A target lists such ids in `MlirPipeline.prelowered_ids`; each is
replaced here by what its description says (an `ImplicitArgument`: the same load from
the kernel's implicit arguments the embedded backend makes), in `llvm` dialect ops MLIR
keeps as they are, so the MLIR backend needs no device library for them.
"""

from __future__ import annotations

from gpu_alloc.targets import Device, ImplicitArgument
from xdsl.dialects import arith, gpu, llvm
from xdsl.dialects.builtin import IndexType, IntAttr, IntegerType, ModuleOp, i8, i64
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

DIMENSIONS = ("x", "y", "z")


def _implicit_argument(source: ImplicitArgument, dimension: int) -> list[Operation]:
    """The ops loading `source` for `dimension` as an `index`; the value is the last's."""
    pointer_type = llvm.LLVMPointerType(IntAttr(source.pointer_space))
    pointer = llvm.CallIntrinsicOp(source.pointer, [], [pointer_type])
    offset = source.offset + source.stride * dimension
    address = llvm.GEPOp.from_mixed_indices(
        pointer.results[0], [offset], i8, result_type=pointer_type
    )
    value = llvm.LoadOp(address.results[0], IntegerType(source.bits), alignment=source.bits // 8)
    # Zero-extended first: the value is unsigned (arith.index_cast is a signed cast).
    wide = arith.ExtUIOp(value.results[0], i64)
    return [pointer, address, value, wide, arith.IndexCastOp(wide.result, IndexType())]


def _replacement(op: Operation, device: Device, ids: tuple[str, ...]) -> list[Operation] | None:
    if not isinstance(op, gpu.BlockDimOp | gpu.GridDimOp | gpu.GlobalIdOp):
        return None
    dimension = DIMENSIONS.index(op.dimension.data.value)
    block_dim = device.target.ids.block_dim
    if isinstance(op, gpu.GlobalIdOp):
        if "block_dim" not in ids or not isinstance(block_dim, ImplicitArgument):
            return None
        size = _implicit_argument(block_dim, dimension)
        block = gpu.BlockIdOp(op.dimension)
        thread = gpu.ThreadIdOp(op.dimension)
        product = arith.MuliOp(block.result, size[-1].results[0])
        return [*size, block, thread, product, arith.AddiOp(product.result, thread.result)]
    name = "block_dim" if isinstance(op, gpu.BlockDimOp) else "grid_dim"
    source = getattr(device.target.ids, name)
    if name not in ids or not isinstance(source, ImplicitArgument):
        return None
    return _implicit_argument(source, dimension)


def prelower_ids(module: ModuleOp, device: Device) -> None:
    """Replaces, in place, the ids `device`'s MLIR pipeline lists as prelowered."""
    ids = device.target.mlir.prelowered_ids
    if not ids:
        return
    for op in list(module.walk()):
        replacement = _replacement(op, device, ids)
        if replacement is None:
            continue
        Rewriter.insert_op(replacement, InsertPoint.before(op))
        result: SSAValue = replacement[-1].results[0]
        op.results[0].replace_all_uses_with(result)
        Rewriter.erase_op(op)
