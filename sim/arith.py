"""Semantics of `arith` ops on numpy values (one lane per thread, or one uniform scalar).

Integers wrap around like the hardware: values live in numpy integers of the op's
width (i1 as bool, index as int64); unsigned ops reinterpret the bits as unsigned.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.memory import numpy_dtype
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Operation

Value = Any
"""A numpy scalar (the same value in every thread) or an array with one lane per thread."""

_UNSIGNED = {
    np.dtype(np.bool_): np.dtype(np.bool_),
    np.dtype(np.int8): np.dtype(np.uint8),
    np.dtype(np.int16): np.dtype(np.uint16),
    np.dtype(np.int32): np.dtype(np.uint32),
    np.dtype(np.int64): np.dtype(np.uint64),
}


def unsigned(value: Value) -> Value:
    array = np.asarray(value)
    return array.view(_UNSIGNED[array.dtype])


def _result_dtype(op: Operation) -> np.dtype:
    return numpy_dtype(op.result_types[0])


def _signed_div(a: Value, b: Value) -> Value:
    """Division rounding toward zero (numpy's // rounds toward minus infinity)."""
    safe_b = np.where(b == 0, 1, b)
    quotient = np.floor_divide(a, safe_b)
    remainder = a - quotient * safe_b
    # Floor and truncation differ when the division is inexact and the signs differ.
    adjust = (remainder != 0) & ((a < 0) != (safe_b < 0))
    return quotient + adjust.astype(quotient.dtype)


def _unsigned_op(fn: Callable[[Value, Value], Value]) -> Callable[[Operation, list[Value]], Value]:
    def apply(op: Operation, args: list[Value]) -> Value:
        a, b = unsigned(args[0]), unsigned(args[1])
        safe_b = np.where(b == 0, 1, b).astype(b.dtype)
        return np.asarray(fn(a, safe_b)).astype(_result_dtype(op))

    return apply


def _binary(fn: Callable[[Value, Value], Value]) -> Callable[[Operation, list[Value]], Value]:
    def apply(op: Operation, args: list[Value]) -> Value:
        return np.asarray(fn(args[0], args[1])).astype(_result_dtype(op), copy=False)

    return apply


def _shift_amount(op: Operation, amount: Value) -> Value:
    return np.asarray(amount) & (_result_dtype(op).itemsize * 8 - 1)


def _shli(op: Operation, args: list[Value]) -> Value:
    return np.left_shift(args[0], _shift_amount(op, args[1]).astype(args[0].dtype))


def _shrsi(op: Operation, args: list[Value]) -> Value:
    return np.right_shift(args[0], _shift_amount(op, args[1]).astype(args[0].dtype))


def _shrui(op: Operation, args: list[Value]) -> Value:
    a = unsigned(args[0])
    shifted = np.right_shift(a, _shift_amount(op, args[1]).astype(a.dtype))
    return np.asarray(shifted).view(_result_dtype(op))


_CMPI: dict[int, Callable[[Value, Value], Value]] = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
}
_CMPI_UNSIGNED: dict[int, Callable[[Value, Value], Value]] = {
    6: np.less,
    7: np.less_equal,
    8: np.greater,
    9: np.greater_equal,
}


def _cmpi(op: Operation, args: list[Value]) -> Value:
    predicate = _predicate(op)
    if predicate in _CMPI:
        return _CMPI[predicate](args[0], args[1])
    if predicate in _CMPI_UNSIGNED:
        return _CMPI_UNSIGNED[predicate](unsigned(args[0]), unsigned(args[1]))
    raise SimulationError(f"arith.cmpi predicate {predicate} is not known")


_CMPF_ORDERED: dict[int, Callable[[Value, Value], Value]] = {
    1: np.equal,
    2: np.greater,
    3: np.greater_equal,
    4: np.less,
    5: np.less_equal,
    6: np.not_equal,
}


def _cmpf(op: Operation, args: list[Value]) -> Value:
    a, b = args
    predicate = _predicate(op)
    unordered = np.isnan(a) | np.isnan(b)
    if predicate == 0:
        return np.zeros_like(unordered)
    if predicate == 15:
        return np.ones_like(unordered)
    if predicate == 7:
        return ~unordered
    if predicate == 14:
        return unordered
    if predicate in _CMPF_ORDERED:
        return _CMPF_ORDERED[predicate](a, b) & ~unordered
    if 8 <= predicate <= 13:
        return _CMPF_ORDERED[predicate - 7](a, b) | unordered
    raise SimulationError(f"arith.cmpf predicate {predicate} is not known")


def _predicate(op: Operation) -> int:
    attribute = op.properties.get("predicate")
    assert isinstance(attribute, IntegerAttr)
    return attribute.value.data


def _extsi(op: Operation, args: list[Value]) -> Value:
    a = np.asarray(args[0])
    if a.dtype == np.bool_:
        return np.where(a, -1, 0).astype(_result_dtype(op))
    return a.astype(_result_dtype(op))


def _extui(op: Operation, args: list[Value]) -> Value:
    return unsigned(args[0]).astype(_result_dtype(op))


def _trunci(op: Operation, args: list[Value]) -> Value:
    target = _result_dtype(op)
    if target == np.bool_:
        return (np.asarray(args[0]) & 1).astype(np.bool_)
    return np.asarray(args[0]).astype(target)


def _sitofp(op: Operation, args: list[Value]) -> Value:
    a = np.asarray(args[0])
    if a.dtype == np.bool_:
        a = np.where(a, -1, 0)
    return a.astype(_result_dtype(op))


def _uitofp(op: Operation, args: list[Value]) -> Value:
    return unsigned(args[0]).astype(_result_dtype(op))


def _fptoui(op: Operation, args: list[Value]) -> Value:
    target = _result_dtype(op)
    return np.asarray(args[0]).astype(_UNSIGNED[target]).view(target)


def _cast(op: Operation, args: list[Value]) -> Value:
    return np.asarray(args[0]).astype(_result_dtype(op))


def _bitcast(op: Operation, args: list[Value]) -> Value:
    return np.asarray(args[0]).view(_result_dtype(op))


def _select(op: Operation, args: list[Value]) -> Value:
    return np.where(args[0], args[1], args[2]).astype(_result_dtype(op), copy=False)


def _constant(op: Operation, args: list[Value]) -> Value:
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    dtype = _result_dtype(op)
    if isinstance(value, IntegerAttr):
        return dtype.type(_wrap(value.value.data, dtype))
    if isinstance(value, FloatAttr):
        return dtype.type(value.value.data)
    raise SimulationError(f"arith.constant of {_describe(value)} is not supported")


def _wrap(value: int, dtype: np.dtype) -> int | bool:
    if dtype == np.bool_:
        return bool(value & 1)
    bits = dtype.itemsize * 8
    value &= (1 << bits) - 1
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _describe(value: Attribute | None) -> str:
    if isinstance(value, DenseIntOrFPElementsAttr):
        return "a dense vector/tensor"
    return str(value)


def _negf(op: Operation, args: list[Value]) -> Value:
    return np.negative(args[0])


def _ceildivsi(op: Operation, args: list[Value]) -> Value:
    a, b = args
    return np.negative(np.floor_divide(np.negative(a), np.where(b == 0, 1, b)))


def _floordivsi(op: Operation, args: list[Value]) -> Value:
    a, b = args
    return np.floor_divide(a, np.where(b == 0, 1, b))


def _remsi(op: Operation, args: list[Value]) -> Value:
    a, b = args
    safe_b = np.where(b == 0, 1, b)
    return (a - _signed_div(a, safe_b) * safe_b).astype(_result_dtype(op))


def _ceildivui(a: Value, b: Value) -> Value:
    return (a + b - 1) // b


ARITH_OPS: dict[str, Callable[[Operation, list[Value]], Value]] = {
    "arith.constant": _constant,
    "arith.addi": _binary(np.add),
    "arith.subi": _binary(np.subtract),
    "arith.muli": _binary(np.multiply),
    "arith.divsi": _binary(_signed_div),
    "arith.remsi": _remsi,
    "arith.ceildivsi": _ceildivsi,
    "arith.floordivsi": _floordivsi,
    "arith.divui": _unsigned_op(np.floor_divide),
    "arith.remui": _unsigned_op(np.remainder),
    "arith.ceildivui": _unsigned_op(_ceildivui),
    "arith.andi": _binary(np.bitwise_and),
    "arith.ori": _binary(np.bitwise_or),
    "arith.xori": _binary(np.bitwise_xor),
    "arith.shli": _shli,
    "arith.shrsi": _shrsi,
    "arith.shrui": _shrui,
    "arith.maxsi": _binary(np.maximum),
    "arith.minsi": _binary(np.minimum),
    "arith.maxui": _unsigned_op(np.maximum),
    "arith.minui": _unsigned_op(np.minimum),
    "arith.addf": _binary(np.add),
    "arith.subf": _binary(np.subtract),
    "arith.mulf": _binary(np.multiply),
    "arith.divf": _binary(np.divide),
    "arith.negf": _negf,
    "arith.maxnumf": _binary(np.fmax),
    "arith.minnumf": _binary(np.fmin),
    "arith.maximumf": _binary(np.maximum),
    "arith.minimumf": _binary(np.minimum),
    "arith.cmpi": _cmpi,
    "arith.cmpf": _cmpf,
    "arith.select": _select,
    "arith.index_cast": _cast,
    "arith.index_castui": _extui,  # zero-extended or truncated, as `unsigned` wraps
    "arith.extsi": _extsi,
    "arith.extui": _extui,
    "arith.trunci": _trunci,
    "arith.sitofp": _sitofp,
    "arith.uitofp": _uitofp,
    "arith.fptosi": _cast,
    "arith.fptoui": _fptoui,
    "arith.extf": _cast,
    "arith.truncf": _cast,
    "arith.bitcast": _bitcast,
}
