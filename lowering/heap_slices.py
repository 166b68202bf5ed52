"""Heap (space 1) allocations of one kernel as slots of each block's slice.

Every space-1 `gpu_alloc.alloc` is per-block storage (docs/design.md). Lowered, all
of a kernel's heap allocations, backings included, become views into one
`memref<?xi8, 1>` kernel argument (the last) in which block `b` (linear id
`bx + gx * (by + gy * bz)`) owns `[b * stride, (b + 1) * stride)`. Slots start at
multiples of max(16, their alignment); the stride is the slice rounded up to the
largest alignment, so every slot keeps its alignment in every block. One
allocation may have a dynamic size if it is the kernel's only heap allocation (what
fuse-gpu-allocs makes); its stride is then computed in the kernel and, by the
caller, again at each launch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import HEAP_ARGUMENT_TYPE, AllocOp
from gpu_alloc.dialect.memory import view_ops
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.launch_values import LaunchValueBuilder
from gpu_alloc.memref_sizes import MAX_INDEX, byte_size_ops, static_byte_size, static_factor
from xdsl.builder import Builder
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import FunctionType, IndexType, MemRefType
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

HEAP_SLICE_ALIGNMENT = 16
"""Per-block heap slices and the allocations inside them start at multiples of this."""


@dataclass
class HeapArgument:
    """The `memref<?xi8, 1>` kernel argument holding every block's heap slice."""

    argument: SSAValue
    what: str
    stride: SSAValue | int
    """Bytes per block: a constant, or a block-uniform kernel value."""
    offsets: tuple[int, ...]
    """Each allocation's byte offset in the block's slice, in the order given."""


def round_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def alignment_of(alloc: AllocOp) -> int:
    return 1 if alloc.alignment is None else alloc.alignment.value.data


def check_byte_size(alloc: AllocOp, memref_type: MemRefType) -> None:
    """Raises unless the allocation's byte size can be computed (`byte_size_ops`)."""
    if static_factor(memref_type) is None:
        raise GpuAllocPassError(
            f"allocation '{alloc.alloc_name.data}' has element type "
            f"{memref_type.element_type}, whose size in bytes is unknown",
            alloc,
        )


def _round_up_value(builder: Builder, value: SSAValue, alignment: int) -> SSAValue:
    """Inserts the computation of `value` rounded up to `alignment`."""
    bump = builder.insert(arith.ConstantOp.from_int_and_width(alignment - 1, IndexType()))
    step = builder.insert(arith.ConstantOp.from_int_and_width(alignment, IndexType()))
    bumped = builder.insert(arith.AddiOp(value, bump))
    quotient = builder.insert(arith.DivUIOp(bumped, step))
    return builder.insert(arith.MuliOp(quotient, step)).result


def _add_heap_argument(func: gpu.FuncOp) -> SSAValue:
    entry = func.body.blocks[0]
    argument = entry.insert_arg(HEAP_ARGUMENT_TYPE, len(entry.args))
    func.function_type = FunctionType.from_lists(
        [*func.function_type.inputs.data, HEAP_ARGUMENT_TYPE],
        func.function_type.outputs.data,
    )
    return argument


def lower_heap(func: gpu.FuncOp, allocs: Sequence[AllocOp]) -> HeapArgument:
    """Replaces the kernel's heap allocations by views of its heap argument."""
    names = ", ".join(f"'{a.alloc_name.data}'" for a in allocs)
    dynamic = [a for a in allocs if a.dynamic_sizes]
    if dynamic and len(allocs) > 1:
        raise GpuAllocPassError(
            f"kernel '{func.sym_name.data}' has a dynamically sized heap allocation "
            f"('{dynamic[0].alloc_name.data}') among others ({names}): run "
            "fuse-gpu-allocs first, so that one backing holds all heap memory",
            dynamic[0],
        )
    if dynamic:
        argument = _add_heap_argument(func)
        alloc = dynamic[0]
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        builder = Builder(InsertPoint.before(alloc))
        check_byte_size(alloc, memref_type)
        size_ops, size = byte_size_ops(memref_type, alloc.dynamic_sizes)
        builder.insert(size_ops)
        stride = _round_up_value(builder, size, max(HEAP_SLICE_ALIGNMENT, alignment_of(alloc)))
        _replace_by_slices(builder, [alloc], [0], argument, stride)
        return HeapArgument(argument, f"heap {names}", stride, (0,))
    offsets: list[int] = []
    sizes: list[int] = []
    end, alignment = 0, HEAP_SLICE_ALIGNMENT
    for alloc in allocs:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        size = static_byte_size(memref_type)
        assert size is not None
        slot_alignment = max(HEAP_SLICE_ALIGNMENT, alignment_of(alloc))
        alignment = max(alignment, slot_alignment)
        offsets.append(round_up(end, slot_alignment))
        end = offsets[-1] + size
        sizes.append(size)
    stride = round_up(end, alignment)
    if stride > MAX_INDEX:
        largest = allocs[sizes.index(max(sizes))]
        raise GpuAllocPassError(
            f"the heap memory of kernel '{func.sym_name.data}' ({names}) takes {stride} bytes "
            "per block once its slices are aligned: more than 2^63 - 1, what an index holds",
            largest,
        )
    argument = _add_heap_argument(func)
    builder = Builder(InsertPoint.at_start(func.body.blocks[0]))
    stride_value = builder.insert(arith.ConstantOp.from_int_and_width(stride, IndexType()))
    _replace_by_slices(builder, allocs, offsets, argument, stride_value.result)
    return HeapArgument(argument, f"heap {names}", stride, tuple(offsets))


def _replace_by_slices(
    builder: Builder,
    allocs: Sequence[AllocOp],
    offsets: Sequence[int],
    argument: SSAValue,
    stride: SSAValue,
) -> None:
    """Replaces each alloc by a view at `linear_block_id * stride + offset`, the ops
    inserted by `builder`."""

    def dimension(op_type: type[gpu.BlockIdOp] | type[gpu.GridDimOp], dim: str) -> SSAValue:
        return builder.insert(op_type(gpu.DimensionAttr(gpu.DimensionEnum(dim)))).result

    bx, by, bz = (dimension(gpu.BlockIdOp, d) for d in ("x", "y", "z"))
    gx, gy = (dimension(gpu.GridDimOp, d) for d in ("x", "y"))
    linear = builder.insert(arith.MuliOp(gy, bz)).result
    linear = builder.insert(arith.AddiOp(by, linear)).result
    linear = builder.insert(arith.MuliOp(gx, linear)).result
    linear = builder.insert(arith.AddiOp(bx, linear)).result
    base = builder.insert(arith.MuliOp(linear, stride)).result
    base.name_hint = "heap_slice"
    for alloc, offset in zip(allocs, offsets, strict=True):
        shift = base
        if offset:
            constant = builder.insert(arith.ConstantOp.from_int_and_width(offset, IndexType()))
            shift = builder.insert(arith.AddiOp(base, constant)).result
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        ops = view_ops(argument, shift, alloc.dynamic_sizes, memref_type)
        for op in ops:
            builder.insert(op)
        view = ops[-1].results[0]
        view.name_hint = alloc.memref.name_hint
        alloc.memref.replace_all_uses_with(view)
    for alloc in allocs:
        Rewriter.erase_op(alloc)


def heap_total(
    heap: HeapArgument, values: LaunchValueBuilder, launch: gpu.LaunchFuncOp
) -> SSAValue:
    """`stride * gx * gy * gz` bytes, computed in front of `launch`."""
    builder = Builder(InsertPoint.before(launch))
    if isinstance(heap.stride, int):
        constant = builder.insert(arith.ConstantOp.from_int_and_width(heap.stride, IndexType()))
        total: SSAValue = constant.result
    else:
        total = values.value(heap.stride)
    grid = [
        values.value(gpu.GridDimOp(gpu.DimensionAttr(gpu.DimensionEnum(d))).result)
        for d in ("x", "y", "z")
    ]
    for blocks in grid:
        total = builder.insert(arith.MuliOp(total, blocks)).result
    return total
