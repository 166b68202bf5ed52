"""The OpenCL C backend's memory and `gpu` ops: globals, views, loads and stores,
atomics, ids, barriers, dynamic shared memory, returns and calls."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from gpu_alloc.dialect.memory import MemorySpace, space_of
from gpu_alloc.lowering.opencl.c_types import (
    _float_bits,
    _identity_strides,
    _is_float,
    _Memref,
    _product,
    _refuse,
    _space_qualifier,
    _static_shape,
    c_name,
    memory_type,
)
from gpu_alloc.targets import Intrinsic
from gpu_alloc.targets.opencl import CLK_LOCAL_AND_GLOBAL_MEM_FENCE
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    IntegerAttr,
    IntegerType,
    MemRefType,
    SymbolRefAttr,
)
from xdsl.ir import Operation, SSAValue

if TYPE_CHECKING:
    from gpu_alloc.lowering.opencl.c_function import _FunctionWriter


def _get_global(writer: _FunctionWriter, op: Operation) -> None:
    symbol = op.properties["name"]
    assert isinstance(symbol, SymbolRefAttr)
    name = symbol.root_reference.data
    global_op = writer.module.globals.get(name)
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    if global_op is None or space_of(type_) != MemorySpace.SHARED:
        raise _refuse(op, f"a global outside shared memory (@{name})")
    if not writer.is_kernel:
        raise _refuse(
            op,
            "shared memory declared in a device function (OpenCL C declares __local "
            "arrays only in kernels)",
        )
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    sizes = [str(d) for d in type_.get_shape()]
    count = math.prod(type_.get_shape())
    alignment = op_alignment(global_op)
    variable = f"shared_{name}" if name.isidentifier() else writer.fresh("shared_")
    aligned = f" __attribute__((aligned({alignment})))" if alignment else ""
    declaration = f"  __local {element} {variable}[{max(count, 1)}]{aligned};"
    writer.locals[name] = declaration
    writer._global_ops[name] = global_op
    writer.memrefs[op.results[0]] = _Memref(
        variable, "__local", element, "0", sizes, _identity_strides(sizes)
    )


def op_alignment(global_op: Operation) -> int:
    alignment = global_op.properties.get("alignment")
    return alignment.value.data if isinstance(alignment, IntegerAttr) else 0


def _view(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    shift = writer.value(op.operands[1], op)
    sizes = [writer.value(v, op) for v in op.operands[2:]]
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    pointer = writer.fresh("view")
    base = f"({source.qualifier} uchar*){source.pointer}"
    start = f"{source.offset} + {shift}" if source.offset != "0" else shift
    writer.declarations.append((f"  {source.qualifier} {element}* {pointer};", op))
    writer.emit(f"{pointer} = ({source.qualifier} {element}*)({base} + {start});", op)
    shape = _static_shape(type_, sizes)
    writer.memrefs[op.results[0]] = _Memref(
        pointer, source.qualifier, element, "0", shape, _identity_strides(shape)
    )


def _dense(op: Operation, name: str) -> list[int]:
    attribute = op.properties[name]
    assert isinstance(attribute, DenseArrayBase)
    return [int(x) for x in attribute.get_values()]  # type: ignore[arg-type]


def _mixed(
    writer: _FunctionWriter, op: Operation, static: list[int], dynamic: list[SSAValue]
) -> list[str]:
    queue = [writer.value(v, op) for v in dynamic]
    return [queue.pop(0) if s == DYNAMIC_INDEX else str(s) for s in static]


def _materialised(writer: _FunctionWriter, expression: str, op: Operation) -> str:
    if expression.isdigit():
        return expression
    variable = writer.fresh("i")
    writer.declarations.append((f"  long {variable};", op))
    writer.emit(f"{variable} = {expression};", op)
    return variable


def _subview(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    offsets = _mixed(writer, op, _dense(op, "static_offsets"), list(op.offsets))  # type: ignore[attr-defined]
    sizes = _mixed(writer, op, _dense(op, "static_sizes"), list(op.sizes))  # type: ignore[attr-defined]
    steps = _mixed(writer, op, _dense(op, "static_strides"), list(op.strides))  # type: ignore[attr-defined]
    offset_terms = [source.offset] if source.offset != "0" else []
    for offset, stride in zip(offsets, source.strides, strict=True):
        if offset != "0":
            offset_terms.append(offset if stride == "1" else f"{offset} * {stride}")
    offset = _materialised(writer, " + ".join(offset_terms) or "0", op)
    strides = [
        _materialised(writer, _product(stride, step) if step != "1" else stride, op)
        for stride, step in zip(source.strides, steps, strict=True)
    ]
    sizes = [_materialised(writer, size, op) for size in sizes]
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    rank = len(type_.get_shape())
    while len(sizes) > rank:  # a rank-reducing subview drops unit dimensions
        drop = next((i for i, s in enumerate(sizes) if s == "1"), None)
        if drop is None:
            raise _refuse(op, "a rank-reducing subview of dynamic sizes")
        del sizes[drop], strides[drop]
    writer.memrefs[op.results[0]] = _Memref(
        source.pointer, source.qualifier, source.element, offset, sizes, strides
    )


def _reinterpret_cast(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    offsets = _mixed(writer, op, _dense(op, "static_offsets"), list(op.offsets))  # type: ignore[attr-defined]
    sizes = _mixed(writer, op, _dense(op, "static_sizes"), list(op.sizes))  # type: ignore[attr-defined]
    strides = _mixed(writer, op, _dense(op, "static_strides"), list(op.strides))  # type: ignore[attr-defined]
    writer.memrefs[op.results[0]] = _Memref(
        source.pointer,
        source.qualifier,
        source.element,
        _materialised(writer, offsets[0], op),
        [_materialised(writer, s, op) for s in sizes],
        [_materialised(writer, s, op) for s in strides],
    )


def _same_memref(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    result = op.results[0].type
    assert isinstance(result, MemRefType)
    if _space_qualifier(result, op) != source.qualifier:
        raise _refuse(op, f"a cast from {source.qualifier} to another address space")
    writer.memrefs[op.results[0]] = source


def _dim(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    index = writer.value(op.operands[1], op)
    expression = "0"
    for dimension in reversed(range(len(source.sizes))):
        expression = f"({index} == {dimension} ? (long){source.sizes[dimension]} : {expression})"
    writer.result(op, expression)


def _load(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    indices = [writer.value(v, op) for v in op.operands[1:]]
    writer.result(op, source.address(indices))


def _store(writer: _FunctionWriter, op: Operation) -> None:
    value = writer.value(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = [writer.value(v, op) for v in op.operands[2:]]
    writer.emit(f"{target.address(indices)} = {value};", op)


def _alloca(writer: _FunctionWriter, op: Operation) -> None:
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    if any(d == DYNAMIC_INDEX for d in type_.get_shape()) or op.operands:
        raise _refuse(op, "a private array of dynamic size")
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    name = writer.fresh("private")
    writer.declarations.append((f"  {element} {name}[{max(1, math.prod(type_.get_shape()))}];", op))
    sizes = [str(d) for d in type_.get_shape()]
    writer.memrefs[op.results[0]] = _Memref(
        name, "__private", element, "0", sizes, _identity_strides(sizes)
    )


def _copy(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = []
    for size in source.sizes:
        index = writer.fresh("c")
        indices.append(index)
        writer.emit(f"for (long {index} = 0; {index} < {size}; {index}++)", op)
    writer.emit(f"  {target.address(indices)} = {source.address(indices)};", op)


_ATOMICS = {
    "addi": "atomic_add",
    "assign": "atomic_xchg",
    "maxs": "atomic_max",
    "mins": "atomic_min",
    "maxu": "atomic_max",
    "minu": "atomic_min",
    "ori": "atomic_or",
    "andi": "atomic_and",
    "xori": "atomic_xor",
}


def _atomic_rmw(writer: _FunctionWriter, op: Operation) -> None:
    from gpu_alloc.syntax.mlir_memref import ATOMIC_RMW_KINDS

    kinds = {number: kind for kind, number in ATOMIC_RMW_KINDS.items()}
    kind = kinds[op.properties["kind"].value.data]  # type: ignore[union-attr]
    value = writer.value(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = [writer.value(v, op) for v in op.operands[2:]]
    type_ = op.results[0].type
    address = f"&{target.address(indices)}"
    q = target.qualifier
    if isinstance(type_, IntegerType) and type_.width.data == 32 and kind in _ATOMICS:
        cast = "uint" if kind in ("maxu", "minu") else "int"
        pointer = f"(volatile {q} {cast}*){address}"
        writer.result(op, f"(int){_ATOMICS[kind]}({pointer}, ({cast}){value})")
        return
    if _is_float(type_) and _float_bits(type_) == 32 and kind in ("assign", "addf"):
        if kind == "assign":
            writer.result(op, f"atomic_xchg((volatile {q} float*){address}, {value})")
            return
        old, new, pointer = writer.fresh("o"), writer.fresh("n"), writer.fresh("a")
        writer.emit(f"{{ volatile {q} uint* {pointer} = (volatile {q} uint*){address};", op)
        writer.emit(f"  uint {old}, {new};", op)
        writer.emit(
            f"  do {{ {old} = *{pointer}; {new} = as_uint(as_float({old}) + {value}); }} "
            f"while (atomic_cmpxchg({pointer}, {old}, {new}) != {old});",
            op,
        )
        writer.emit(f"  {writer.variable(op.results[0], op)} = as_float({old}); }}", op)
        return
    raise _refuse(
        op,
        f"an atomic {kind} on {type_} (OpenCL C 1.2 has 32-bit integer atomics, and here "
        "f32 add and exchange)",
    )


def _id(writer: _FunctionWriter, op: Operation) -> None:
    ids = writer.module.device.target.ids
    source: Intrinsic = {
        "gpu.thread_id": ids.thread_id,
        "gpu.block_id": ids.block_id,
        "gpu.block_dim": ids.block_dim,
        "gpu.grid_dim": ids.grid_dim,
    }.get(op.name, Intrinsic("get_global_id", 64, True))  # type: ignore[assignment]
    dimension = str(op.properties["dimension"])  # `#gpu<dim x>`
    axis = "xyz".index(dimension.rstrip(">")[-1])
    writer.result(op, f"(long){source.name}({axis})")


def _barrier(writer: _FunctionWriter, op: Operation) -> None:
    (call,) = writer.module.device.target.barrier
    writer.emit(f"{call.name}({CLK_LOCAL_AND_GLOBAL_MEM_FENCE});", op)  # type: ignore[union-attr]


def _return(writer: _FunctionWriter, op: Operation) -> None:
    if op.operands:
        writer.emit(f"return {writer.value(op.operands[0], op)};", op)
    else:
        writer.emit("return;", op)


def _dynamic_shared(writer: _FunctionWriter, op: Operation) -> None:
    if not writer.is_kernel:
        raise _refuse(op, "dynamic shared memory in a device function")
    writer.memrefs[op.results[0]] = _Memref("dynamic_shared", "__local", "uchar", "0", ["0"], ["1"])


def _call(writer: _FunctionWriter, op: Operation) -> None:
    callee = op.properties["callee"]
    assert isinstance(callee, SymbolRefAttr)
    arguments = []
    for operand in op.operands:
        if isinstance(operand.type, MemRefType):
            memref = writer.memref(operand, op)
            arguments.append(
                memref.pointer if memref.offset == "0" else f"{memref.pointer} + {memref.offset}"
            )
        else:
            arguments.append(writer.value(operand, op))
    call = f"{c_name(callee.root_reference.data)}({', '.join(arguments)})"
    if len(op.results) > 1:
        raise _refuse(op, "a call with several results")
    if op.results:
        writer.result(op, call)
    else:
        writer.emit(f"{call};", op)
