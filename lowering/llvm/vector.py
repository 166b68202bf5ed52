"""1-D `vector` ops (not memory) to xDSL's `llvm` dialect, as MLIR's
`convert-vector-to-llvm` lowers them: `broadcast` and `insert`/`extract` are
`insertelement`/`extractelement`, `fma` is `llvm.fma`, `reduction` is
`llvm.vector.reduce.*` (floating-point add/mul start from the accumulator, or from the
neutral element).
"""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc.lowering.llvm.arith import mangle
from gpu_alloc.lowering.llvm.builder import FunctionBuilder, Lowered, llvm_type
from gpu_alloc.lowering.llvm.extras import ExtractElementOp
from xdsl.dialects import llvm, vector
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, VectorType, i64
from xdsl.ir import Operation, SSAValue

Lowering = Callable[[FunctionBuilder, Operation], Lowered]

_REDUCTIONS: dict[str, str] = {
    "add": "add",
    "mul": "mul",
    "minui": "umin",
    "minsi": "smin",
    "maxui": "umax",
    "maxsi": "smax",
    "and": "and",
    "or": "or",
    "xor": "xor",
    "minnumf": "fmin",
    "maxnumf": "fmax",
    "minimumf": "fminimum",
    "maximumf": "fmaximum",
}
"""`vector.reduction` kinds and LLVM's `llvm.vector.reduce.<name>` (fadd/fmul apart)."""


def _position(b: FunctionBuilder, static: list[int], dynamic: list[SSAValue]) -> SSAValue:
    if len(static) != 1:
        raise ValueError("1-D vectors only")
    if static[0] == DYNAMIC_INDEX:
        return b.value(dynamic[0])
    return b.constant(static[0], i64)


def _broadcast(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, vector.BroadcastOp)
    result_type = llvm_type(op.vector.type)
    assert isinstance(result_type, VectorType)
    if isinstance(op.source.type, VectorType):
        raise b.unsupported(op, "a broadcast of a vector")
    scalar = b.value(op.source)
    result = b.emit(llvm.UndefOp(result_type))
    for lane in range(result_type.get_shape()[0]):
        result = b.emit(llvm.InsertElementOp(result, scalar, b.constant(lane, i64)))
    return [result]


def _one_dimensional(b: FunctionBuilder, op: Operation, type_attr: object) -> None:
    if not (isinstance(type_attr, VectorType) and type_attr.get_num_dims() == 1):
        raise b.unsupported(op, "a vector of rank other than 1")


def _extract(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, vector.ExtractOp)
    _one_dimensional(b, op, op.vector.type)
    position = _position(b, list(op.static_position.get_values()), list(op.dynamic_position))
    result_type = llvm_type(op.result.type)
    return [b.emit(ExtractElementOp(b.value(op.vector), position, result_type))]


def _insert(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, vector.InsertOp)
    _one_dimensional(b, op, op.dest.type)
    position = _position(b, list(op.static_position.get_values()), list(op.dynamic_position))
    return [b.emit(llvm.InsertElementOp(b.value(op.dest), b.value(op.source), position))]


def _fma(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, vector.FMAOp)
    result_type = llvm_type(op.res.type)
    args = [b.value(op.lhs), b.value(op.rhs), b.value(op.acc)]
    result = b.intrinsic(f"llvm.fma.{mangle(result_type)}", args, result_type)
    assert result is not None
    return [result]


def _reduction(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, vector.ReductionOp)
    vector_type = llvm_type(op.vector.type)
    result_type = llvm_type(op.dest.type)
    kind = op.kind.data.value
    source = b.value(op.vector)
    suffix = mangle(vector_type)
    if isinstance(result_type, AnyFloat) and kind in ("add", "mul"):
        start = (
            b.value(op.acc)
            if op.acc is not None
            else b.float_constant(-0.0 if kind == "add" else 1.0, result_type)
        )
        result = b.intrinsic(f"llvm.vector.reduce.f{kind}.{suffix}", [start, source], result_type)
        assert result is not None
        return [result]
    if op.acc is not None:
        raise b.unsupported(op, f"an accumulator with reduction kind {kind}")
    result = b.intrinsic(f"llvm.vector.reduce.{_REDUCTIONS[kind]}.{suffix}", [source], result_type)
    assert result is not None
    return [result]


VECTOR_LOWERINGS: dict[str, Lowering] = {
    "vector.broadcast": _broadcast,
    "vector.extract": _extract,
    "vector.insert": _insert,
    "vector.fma": _fma,
    "vector.reduction": _reduction,
}
