"""The OpenCL C backend's control flow (`scf` as C statements, `cf` as labels and `goto`),
and the table of every op handler (`_HANDLERS`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_alloc.lowering.opencl.c_ops import (
    _alloca,
    _atomic_rmw,
    _barrier,
    _call,
    _copy,
    _dense,
    _dim,
    _dynamic_shared,
    _get_global,
    _id,
    _load,
    _reinterpret_cast,
    _return,
    _same_memref,
    _store,
    _subview,
    _view,
)
from gpu_alloc.lowering.opencl.c_types import _refuse, _unsigned
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Block, Operation, SSAValue

if TYPE_CHECKING:
    from gpu_alloc.lowering.opencl.c_function import _FunctionWriter


def _if(writer: _FunctionWriter, op: Operation) -> None:
    condition = writer.value(op.operands[0], op)
    results = [writer.variable(r, op) for r in op.results]
    writer.emit(f"if ({condition}) {{", op)
    writer.depth += 1
    writer._block(op.regions[0].blocks[0], results)
    writer.depth -= 1
    otherwise = list(op.regions[1].blocks[0].ops) if op.regions[1].blocks else []
    if results or any(inner.name != "scf.yield" for inner in otherwise):
        writer.emit("} else {", op)
        writer.depth += 1
        writer._block(op.regions[1].blocks[0], results)
        writer.depth -= 1
    writer.emit("}", op)


def _for(writer: _FunctionWriter, op: Operation) -> None:
    lower, upper, step = (writer.value(v, op) for v in op.operands[:3])
    initial = [writer.value(v, op) for v in op.operands[3:]]
    body = op.regions[0].blocks[0]
    iv = writer.variable(body.args[0], op)
    carried = [writer.variable(a, op) for a in body.args[1:]]
    for argument in body.args[1:]:
        if isinstance(argument.type, MemRefType):
            raise _refuse(op, "a memref carried by a loop")
    if carried:
        writer._assign(carried, initial, op)
    compare = "<"
    if op.attributes.get("unsignedCmp") is not None or op.properties.get("unsignedCmp") is not None:
        u = _unsigned(body.args[0].type)
        lower_bound = f"({u}){iv} < ({u}){upper}"
    else:
        lower_bound = f"{iv} {compare} {upper}"
    writer.emit(f"for ({iv} = {lower}; {lower_bound}; {iv} += {step}) {{", op)
    writer.depth += 1
    writer._block(body, carried)
    writer.depth -= 1
    writer.emit("}", op)
    for index, argument in enumerate(carried):
        writer.result(op, argument, index)


def _while(writer: _FunctionWriter, op: Operation) -> None:
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    for argument in (*before.args, *after.args, *op.results):
        if isinstance(argument.type, MemRefType):
            raise _refuse(op, "a memref carried by a loop")
    before_args = [writer.variable(a, op) for a in before.args]
    after_args = [writer.variable(a, op) for a in after.args]
    results = [writer.variable(r, op) for r in op.results]
    writer._assign(before_args, [writer.value(v, op) for v in op.operands], op)
    writer.emit("while (1) {", op)
    writer.depth += 1
    for inner in before.ops:
        if inner.name == "scf.condition":
            condition = writer.value(inner.operands[0], inner)
            passed = [writer.value(v, inner) for v in inner.operands[1:]]
            writer.emit(f"if (!{condition}) {{", inner)
            writer.depth += 1
            if results:
                writer._assign(results, passed, inner)
            writer.emit("break;", inner)
            writer.depth -= 1
            writer.emit("}", inner)
            if after_args:
                writer._assign(after_args, passed, inner)
        else:
            writer._op(inner)
    writer._block(after, before_args)
    writer.depth -= 1
    writer.emit("}", op)


def _index_switch(writer: _FunctionWriter, op: Operation) -> None:
    selector = writer.value(op.operands[0], op)
    results = [writer.variable(r, op) for r in op.results]
    writer.emit(f"switch ({selector}) {{", op)
    cases = _dense(op, "cases")
    regions = list(op.regions)
    default, case_regions = regions[0], regions[1:]
    for value, region in zip(cases, case_regions, strict=True):
        writer.emit(f"case {value}L: {{", op)
        writer.depth += 1
        writer._block(region.blocks[0], results)
        writer.emit("break;", op)
        writer.depth -= 1
        writer.emit("}", op)
    writer.emit("default: {", op)
    writer.depth += 1
    writer._block(default.blocks[0], results)
    writer.depth -= 1
    writer.emit("}", op)
    writer.emit("}", op)


def _jump(
    writer: _FunctionWriter, op: Operation, block: Block, arguments: Sequence[SSAValue]
) -> None:
    targets = [writer.names[a] for a in block.args]
    if targets:
        writer._assign(targets, [writer.value(v, op) for v in arguments], op)
    writer.emit(f"goto {writer.labels[block]};", op)


def _branch(writer: _FunctionWriter, op: Operation) -> None:
    _jump(writer, op, op.successors[0], list(op.operands))


def _conditional_branch(writer: _FunctionWriter, op: Operation) -> None:
    condition = writer.value(op.operands[0], op)
    then_arguments = list(op.then_arguments)  # type: ignore[attr-defined]
    else_arguments = list(op.else_arguments)  # type: ignore[attr-defined]
    writer.emit(f"if ({condition}) {{", op)
    writer.depth += 1
    _jump(writer, op, op.successors[0], then_arguments)
    writer.depth -= 1
    writer.emit("} else {", op)
    writer.depth += 1
    _jump(writer, op, op.successors[1], else_arguments)
    writer.depth -= 1
    writer.emit("}", op)


def _switch(writer: _FunctionWriter, op: Operation) -> None:
    flag = writer.value(op.operands[0], op)
    default_operands = list(op.default_operands)  # type: ignore[attr-defined]
    case_values = op.properties.get("case_values")
    values = [int(v) for v in case_values.get_values()] if case_values is not None else []  # type: ignore[union-attr]
    case_operands = list(op.case_operands)  # type: ignore[attr-defined]
    segments = _dense(op, "case_operand_segments") if values else []
    start = 0
    for index, value in enumerate(values):
        count = segments[index]
        writer.emit(f"if ({flag} == {value}) {{", op)
        writer.depth += 1
        _jump(writer, op, op.successors[index + 1], case_operands[start : start + count])
        writer.depth -= 1
        writer.emit("}", op)
        start += count
    _jump(writer, op, op.successors[0], default_operands)


def _nothing(writer: _FunctionWriter, op: Operation) -> None:
    return None


_HANDLERS = {
    "memref.get_global": _get_global,
    "memref.view": _view,
    "memref.subview": _subview,
    "memref.reinterpret_cast": _reinterpret_cast,
    "memref.cast": _same_memref,
    "memref.memory_space_cast": _same_memref,
    "memref.dim": _dim,
    "memref.load": _load,
    "memref.store": _store,
    "memref.alloca": _alloca,
    "memref.copy": _copy,
    "memref.dealloc": _nothing,
    "memref.atomic_rmw": _atomic_rmw,
    "gpu.thread_id": _id,
    "gpu.block_id": _id,
    "gpu.block_dim": _id,
    "gpu.grid_dim": _id,
    "gpu.global_id": _id,
    "gpu.barrier": _barrier,
    "gpu.return": _return,
    "func.return": _return,
    "gpu.dynamic_shared_memory": _dynamic_shared,
    "func.call": _call,
    "scf.if": _if,
    "scf.for": _for,
    "scf.while": _while,
    "scf.index_switch": _index_switch,
    "cf.br": _branch,
    "cf.cond_br": _conditional_branch,
    "cf.switch": _switch,
}
