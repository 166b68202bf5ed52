"""MLIR's `index` dialect: integer arithmetic on `index` (IndexOps.td in MLIR 22).

IREE's kernels cast thread ids and sizes with `index.castu`/`index.casts` and compute
with `index.add`, `index.mul`, .... xDSL 0.75 has no `index` dialect. This module adds
the casts, `index.constant` and the binary ops with the `assemblyFormat` of MLIR's
IndexOps.td, declared (`%r = index.add %a, %b`, `%c = index.castu %x : i32 to index`,
`%k = index.constant 42`), which they also print. All are pure; `transforms/pre_lowering.py` turns them into `arith`. Written
to be proposed to xDSL as it is.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Dialect, Operation
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

_INDEX = IndexType()


class _BinaryBase(IRDLOperation):
    """`%r = index.OP %lhs, %rhs`"""

    lhs = operand_def(IndexType)
    rhs = operand_def(IndexType)
    result = result_def(IndexType)
    traits = traits_def(Pure())

    assembly_format = "$lhs `,` $rhs attr-dict"  # IndexOps.td


_BINARY = {
    "add": "arith.addi",
    "sub": "arith.subi",
    "mul": "arith.muli",
    "divs": "arith.divsi",
    "divu": "arith.divui",
    "rems": "arith.remsi",
    "remu": "arith.remui",
    "ceildivs": "arith.ceildivsi",
    "ceildivu": "arith.ceildivui",
    "floordivs": "arith.floordivsi",
    "maxs": "arith.maxsi",
    "maxu": "arith.maxui",
    "mins": "arith.minsi",
    "minu": "arith.minui",
    "shl": "arith.shli",
    "shrs": "arith.shrsi",
    "shru": "arith.shrui",
    "and": "arith.andi",
    "or": "arith.ori",
    "xor": "arith.xori",
}
"""Each binary `index` op and the `arith` op with the same semantics on `index`."""

BINARY_OPS: tuple[type[Operation], ...] = tuple(
    irdl_op_definition(
        type(
            f"{name.capitalize()}Op",
            (_BinaryBase,),
            {"name": f"index.{name}", "__doc__": f"`index.{name}` ({arith})"},
        )
    )
    for name, arith in _BINARY.items()
)


class _CastBase(IRDLOperation):
    """`%r = index.OP %x : T to U`: between `index` and an integer type."""

    input = operand_def()
    output = result_def()
    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `to` type($output)"  # IndexOps.td


@irdl_op_definition
class CastSOp(_CastBase):
    """`index.casts`: sign-extends or truncates."""

    name = "index.casts"


@irdl_op_definition
class CastUOp(_CastBase):
    """`index.castu`: zero-extends or truncates."""

    name = "index.castu"


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`%c = index.constant 42`"""

    name = "index.constant"

    value = prop_def(IntegerAttr[IndexType])
    result = result_def(IndexType)
    traits = traits_def(Pure())

    assembly_format = "attr-dict $value"  # IndexOps.td


ARITH_EQUIVALENT: dict[str, str] = {
    **{f"index.{name}": arith for name, arith in _BINARY.items()},
    "index.casts": "arith.index_cast",
    "index.castu": "arith.index_castui",
    "index.constant": "arith.constant",
}
"""Each `index` op and the `arith` op computing the same (on `index`)."""

INDEX = Dialect("index", [*BINARY_OPS, CastSOp, CastUOp, ConstantOp], [])
"""MLIR's `index` casts, constant and binary ops."""
