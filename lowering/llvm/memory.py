"""`memref` and `vector` memory ops to xDSL's `llvm` dialect, on MLIR's strided descriptors.

A memref value is a `MemrefDescriptor` (aligned pointer, element offset, sizes,
strides), known statically where the type says so. The view family (`view`, `subview`,
`cast`, `reinterpret_cast`, `memory_space_cast`) only computes a new descriptor;
`load`/`store`/`atomic_rmw` and the 1-D `vector.load`/`vector.store` address one
element with a GEP, keeping the `alignment` that `flatten-aliases` puts on accesses;
`memref.copy` of contiguous memrefs is `llvm.memcpy`, as in MLIR's lowering.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpu_alloc.lowering.llvm.builder import (
    FunctionBuilder,
    Index,
    Lowered,
    MemrefDescriptor,
    address_space,
    llvm_type,
    pointer_type,
    row_major_strides,
)
from gpu_alloc.lowering.llvm.extras import AtomicRMWOp
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.syntax.mlir_gpu import is_dynamic_shared_memory
from xdsl.dialects import llvm, memref, vector
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntAttr,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    i1,
    i8,
)
from xdsl.ir import Attribute, Operation, SSAValue

Lowering = Callable[[FunctionBuilder, Operation], Lowered]

DYNAMIC_SHARED_SYMBOL = "__dynamic_shared_memory"

ATOMIC_KINDS: dict[int, str] = {
    0: "fadd",  # addf
    1: "add",  # addi
    2: "xchg",  # assign
    4: "max",  # maxs
    5: "umax",  # maxu
    7: "min",  # mins
    8: "umin",  # minu
    11: "or",  # ori
    12: "and",  # andi
}
"""`memref.atomic_rmw` kinds (MLIR's `AtomicRMWKind` numbers) and LLVM's `atomicrmw`."""


def _memref_type(value: SSAValue) -> MemRefType:
    memref_type = value.type
    assert isinstance(memref_type, MemRefType)
    return memref_type


def _natural_alignment(memref_type: MemRefType) -> int:
    return static_byte_size(MemRefType(memref_type.element_type, [1])) or 1


def static_descriptor(
    b: FunctionBuilder, pointer: SSAValue, memref_type: MemRefType
) -> MemrefDescriptor:
    sizes: list[Index] = list(memref_type.get_shape())
    return MemrefDescriptor(pointer, pointer, 0, sizes, row_major_strides(sizes, b.mul))


def _mixed(b: FunctionBuilder, static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Index]:
    values = iter(dynamic)
    return [b.value(next(values)) if s == DYNAMIC_INDEX else s for s in static]


def element_pointer(b: FunctionBuilder, source: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
    descriptor = b.descriptor(source)
    linear: Index = descriptor.offset
    for index, stride in zip(indices, descriptor.strides, strict=True):
        linear = b.add(linear, b.mul(b.value(index), stride))
    pointer = descriptor.aligned
    if linear == 0:
        return pointer
    return b.emit(
        llvm.GEPOp.from_mixed_indices(
            pointer,
            [b.materialise(linear)],
            llvm_type(_memref_type(source).element_type),
            result_type=pointer.type,  # pyright: ignore[reportArgumentType]
            inbounds=True,  # an access outside its memref is undefined behaviour
        )
    )


def _first_element(
    b: FunctionBuilder, descriptor: MemrefDescriptor, memref_type: MemRefType
) -> SSAValue:
    if descriptor.offset == 0:
        return descriptor.aligned
    return b.emit(
        llvm.GEPOp.from_mixed_indices(
            descriptor.aligned,
            [b.materialise(descriptor.offset)],
            llvm_type(memref_type.element_type),
            result_type=descriptor.aligned.type,  # pyright: ignore[reportArgumentType]
        )
    )


def _access_alignment(op: Operation) -> int | None:
    """The `alignment` attribute `flatten-aliases` puts on accesses through views."""
    attribute = op.attributes.get("alignment")
    if isinstance(attribute, IntegerAttr):
        return attribute.value.data
    return None


def _load(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.LoadOp | vector.LoadOp)
    source = op.memref if isinstance(op, memref.LoadOp) else op.base
    alignment = _access_alignment(op)
    if isinstance(op, vector.LoadOp) and alignment is None:
        alignment = _natural_alignment(_memref_type(source))
    pointer = element_pointer(b, source, op.indices)
    return [b.emit(llvm.LoadOp(pointer, llvm_type(op.results[0].type), alignment=alignment))]


def _store(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.StoreOp | vector.StoreOp)
    source = op.memref if isinstance(op, memref.StoreOp) else op.base
    value = op.value if isinstance(op, memref.StoreOp) else op.vector
    alignment = _access_alignment(op)
    if isinstance(op, vector.StoreOp) and alignment is None:
        alignment = _natural_alignment(_memref_type(source))
    pointer = element_pointer(b, source, op.indices)
    b.emit_void(llvm.StoreOp(b.value(value), pointer, alignment=alignment))
    return None


def _atomic_rmw(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.AtomicRMWOp)
    kind = ATOMIC_KINDS.get(op.kind.value.data)
    if kind is None:
        raise b.unsupported(op, f"atomic kind {op.kind.value.data}")
    pointer = element_pointer(b, op.memref, op.indices)
    return [b.emit(AtomicRMWOp(kind, pointer, b.value(op.value)))]


def _get_global(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.GetGlobalOp)
    memref_type = _memref_type(op.memref)
    symbol = op.name_.root_reference.data
    pointer = b.emit(llvm.AddressOfOp(symbol, pointer_type(memref_type)))
    b.memrefs[op.memref] = static_descriptor(b, pointer, memref_type)
    return None


def _dynamic_shared(b: FunctionBuilder, op: Operation) -> Lowered:
    b.needs_dynamic_shared = True
    shared = llvm.LLVMPointerType(IntAttr(b.device.target.spaces.shared))
    pointer = b.emit(llvm.AddressOfOp(DYNAMIC_SHARED_SYMBOL, shared))
    b.memrefs[op.results[0]] = MemrefDescriptor(pointer, pointer, 0, [0], [1])
    return None


def _same_descriptor(b: FunctionBuilder, op: Operation) -> Lowered:
    """`memref.cast`, `memory_space_cast`: the same bytes, maybe a less static type."""
    source, result = op.operands[0], op.results[0]
    if isinstance(op, memref.MemorySpaceCastOp):
        source_type, result_type = source.type, _memref_type(result)
        # The block's dynamic shared memory (whose type stock xdsl-opt cannot read), and
        # two spellings of one space (`3 : i32`, `#gpu.address_space<workgroup>`).
        from_dynamic_shared = (
            isinstance(source.owner, Operation)
            and is_dynamic_shared_memory(source.owner)
            and address_space(result_type) == b.device.target.spaces.shared
        )
        if not from_dynamic_shared and not (
            isinstance(source_type, MemRefType)
            and address_space(source_type) == address_space(result_type)
        ):
            raise b.unsupported(op, "a cast between address spaces")
    b.memrefs[result] = b.descriptor(source)
    return None


def _view(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.ViewOp)
    source = b.descriptor(op.source)
    result_type = _memref_type(op.result)
    shift = b.add(source.offset, b.value(op.byte_shift))
    base = b.emit(
        llvm.GEPOp.from_mixed_indices(
            source.aligned, [b.materialise(shift)], i8, result_type=pointer_type(result_type)
        )
    )
    sizes = _mixed(b, result_type.get_shape(), op.sizes)
    b.memrefs[op.result] = MemrefDescriptor(base, base, 0, sizes, row_major_strides(sizes, b.mul))
    return None


def _subview(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.SubviewOp)
    source = b.descriptor(op.source)
    offsets = _mixed(b, op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(b, op.static_sizes.get_values(), op.sizes)
    steps = _mixed(b, op.static_strides.get_values(), op.strides)
    offset = source.offset
    for start, stride in zip(offsets, source.strides, strict=True):
        offset = b.add(offset, b.mul(start, stride))
    strides = [b.mul(step, stride) for step, stride in zip(steps, source.strides, strict=True)]
    result_shape = _memref_type(op.result).get_shape()
    if len(result_shape) != len(sizes):  # rank-reducing: drop the unit dimensions
        kept = [i for i, size in enumerate(sizes) if size != 1][: len(result_shape)]
        sizes, strides = [sizes[i] for i in kept], [strides[i] for i in kept]
    b.memrefs[op.result] = MemrefDescriptor(
        source.allocated, source.aligned, offset, sizes, strides
    )
    return None


def _reinterpret_cast(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.ReinterpretCastOp)
    source = b.descriptor(op.source)
    (offset,) = _mixed(b, op.static_offsets.get_values(), op.offsets)
    sizes = _mixed(b, op.static_sizes.get_values(), op.sizes)
    strides = _mixed(b, op.static_strides.get_values(), op.strides)
    b.memrefs[op.result] = MemrefDescriptor(
        source.allocated, source.aligned, offset, sizes, strides
    )
    return None


def _dim(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.DimOp)
    sizes = b.descriptor(op.source).sizes
    index_op = op.index.owner
    if not (
        isinstance(index_op, Operation)
        and isinstance(value := index_op.properties.get("value"), IntegerAttr)
    ):
        raise b.unsupported(op, "a dimension that is not a constant")
    return [b.materialise(sizes[value.value.data])]


def emit_alloca(
    b: FunctionBuilder, count: SSAValue, element: Attribute, alignment: int
) -> SSAValue:
    """An `alloca` of `count` elements in the target's alloca address space."""
    space = b.device.target.spaces.alloca
    return b.emit(
        llvm.AllocaOp.create(
            operands=[count],
            properties={"alignment": IntegerAttr(alignment, 64), "elem_type": element},
            result_types=[llvm.LLVMPointerType(IntAttr(space) if space else NoneAttr())],
        )
    )


def _alloca(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.AllocaOp)
    memref_type = _memref_type(op.memref)
    sizes = _mixed(b, memref_type.get_shape(), op.dynamic_sizes)
    count: Index = 1
    for size in sizes:
        count = b.mul(count, size)
    element = llvm_type(memref_type.element_type)
    alignment = (
        op.alignment.value.data if op.alignment is not None else _natural_alignment(memref_type)
    )
    pointer = emit_alloca(b, b.materialise(count), element, alignment)
    b.memrefs[op.memref] = MemrefDescriptor(
        pointer, pointer, 0, sizes, row_major_strides(sizes, b.mul)
    )
    return None


def _copy(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, memref.CopyOp)
    source_type, target_type = _memref_type(op.source), _memref_type(op.destination)
    if not (isinstance(source_type.layout, NoneAttr) and isinstance(target_type.layout, NoneAttr)):
        raise b.unsupported(op, "a copy of a strided memref")
    source, target = b.descriptor(op.source), b.descriptor(op.destination)
    count: Index = _natural_alignment(source_type)
    for size in source.sizes:
        count = b.mul(count, size)
    source_pointer = _first_element(b, source, source_type)
    target_pointer = _first_element(b, target, target_type)
    name = f"llvm.memcpy.p{address_space(target_type)}.p{address_space(source_type)}.i64"
    b.intrinsic(
        name, [target_pointer, source_pointer, b.materialise(count), b.constant(0, i1)], None
    )
    return None


MEMORY_LOWERINGS: dict[str, Lowering] = {
    "memref.load": _load,
    "memref.store": _store,
    "vector.load": _load,
    "vector.store": _store,
    "memref.atomic_rmw": _atomic_rmw,
    "memref.get_global": _get_global,
    "gpu.dynamic_shared_memory": _dynamic_shared,
    "memref.memory_space_cast": _same_descriptor,
    "memref.cast": _same_descriptor,
    "memref.view": _view,
    "memref.subview": _subview,
    "memref.reinterpret_cast": _reinterpret_cast,
    "memref.dim": _dim,
    "memref.alloca": _alloca,
    "memref.copy": _copy,
}
