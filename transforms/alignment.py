"""Known power-of-two alignment of `index` values (byte offsets)."""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue

MAX_KNOWN_ALIGNMENT = 1 << 30
"""What a zero offset divides: any alignment a backing can have."""


def lowest_set_bit(value: int) -> int:
    value = abs(value)
    return MAX_KNOWN_ALIGNMENT if value == 0 else min(value & -value, MAX_KNOWN_ALIGNMENT)


def known_alignment(value: SSAValue) -> int:
    """The largest power of two known to divide `value` at run time (1 if unknown)."""
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return lowest_set_bit(op.value.value.data)
    if isinstance(op, arith.AddiOp | arith.SubiOp):
        return min(known_alignment(op.lhs), known_alignment(op.rhs))
    if isinstance(op, arith.MuliOp):
        return min(known_alignment(op.lhs) * known_alignment(op.rhs), MAX_KNOWN_ALIGNMENT)
    if isinstance(op, arith.ShLIOp) and isinstance(op.rhs.owner, arith.ConstantOp):
        shift = op.rhs.owner.value
        if isinstance(shift, IntegerAttr):
            return min(known_alignment(op.lhs) << shift.value.data, MAX_KNOWN_ALIGNMENT)
    return 1
