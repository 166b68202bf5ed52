"""`arith` and `math` ops to xDSL's `llvm` dialect (scalars, and vectors where LLVM has
the instruction), as MLIR 22's `convert-arith-to-llvm` / `convert-math-to-llvm` and
`convert-gpu-to-nvvm` lower them:

* integer and float arithmetic, comparisons and casts map one to one; `index` is `i64`;
* `ceildivsi/ceildivui/floordivsi` are expanded like MLIR's `arith-expand`;
* `maximumf/minimumf/maxnumf/minnumf`, `absf`, `ceil`, `floor`, `fma`, `sqrt`, the bit
  counts … are LLVM intrinsics, mangled with their type;
* the transcendental `math` ops call the target's math library (`gpu_alloc.targets`:
  libdevice's `__nv_expf`, ROCm's `__ocml_exp_f32`, OpenCL's `_Z3expf`); an `f16`/`bf16`
  operand is extended to `f32` and the result truncated back, as MLIR does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpu_alloc.lowering.llvm.builder import FunctionBuilder, Lowered, llvm_type
from gpu_alloc.lowering.llvm.extras import FPToSIOp, FPToUIOp, UIToFPOp
from gpu_alloc.targets import MathLibrary
from xdsl.dialects import arith, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    VectorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

Lowering = Callable[[FunctionBuilder, Operation], Lowered]


def mangle(type_attr: Attribute) -> str:
    """LLVM's intrinsic name suffix of a type: `f32`, `i64`, `bf16`, `v4f32`."""
    if isinstance(type_attr, VectorType):
        return f"v{type_attr.get_shape()[0]}{mangle(type_attr.element_type)}"
    if isinstance(type_attr, IntegerType):
        return f"i{type_attr.width.data}"
    names = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}
    return names[type(type_attr)]


def _operands(b: FunctionBuilder, op: Operation) -> list[SSAValue]:
    return [b.value(operand) for operand in op.operands]


def _result_type(op: Operation) -> Attribute:
    return llvm_type(op.results[0].type)


def _same(target: type[Operation]) -> Lowering:
    """An op whose LLVM twin takes the same operands."""

    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        return [b.emit(target(*_operands(b, op)))]  # pyright: ignore[reportCallIssue]

    return lower


def _cast(target: type[Operation]) -> Lowering:
    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        return [b.emit(target(b.value(op.operands[0]), _result_type(op)))]  # pyright: ignore[reportCallIssue]

    return lower


def _intrinsic(name: str, extra_false: bool = False) -> Lowering:
    """`llvm.<name>.<type>` on the operands (plus an `i1 false` flag where LLVM wants one)."""

    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        args = _operands(b, op)
        if extra_false:
            args.append(b.constant(0, i1))
        result = b.intrinsic(f"llvm.{name}.{mangle(_result_type(op))}", args, _result_type(op))
        assert result is not None
        return [result]

    return lower


def _icmp(b: FunctionBuilder, predicate: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    flag = llvm.ICmpPredicateFlag(predicate).to_int()
    return b.emit(llvm.ICmpOp(lhs, rhs, IntegerAttr(flag, i64)))


def _min_max(predicate: str) -> Lowering:
    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        lhs, rhs = _operands(b, op)
        return [b.emit(llvm.SelectOp(_icmp(b, predicate, lhs, rhs), lhs, rhs))]

    return lower


def _zero_like(b: FunctionBuilder, value: SSAValue) -> SSAValue:
    assert isinstance(value.type, IntegerType)
    return b.constant(0, value.type)


def _ceildivui(b: FunctionBuilder, op: Operation) -> Lowered:
    # a == 0 ? 0 : (a - 1) / b + 1
    lhs, rhs = _operands(b, op)
    assert isinstance(lhs.type, IntegerType)
    zero, one = b.constant(0, lhs.type), b.constant(1, lhs.type)
    quotient = b.emit(llvm.UDivOp(b.emit(llvm.SubOp(lhs, one)), rhs))
    rounded = b.emit(llvm.AddOp(quotient, one))
    return [b.emit(llvm.SelectOp(_icmp(b, "eq", lhs, zero), zero, rounded))]


def _signed_division(b: FunctionBuilder, op: Operation, ceil: bool) -> Lowered:
    # q = a / b (toward zero); r = a - q * b; adjust q by one when r != 0 and the exact
    # quotient is positive (ceil: +1) or negative (floor: -1).
    lhs, rhs = _operands(b, op)
    zero = _zero_like(b, lhs)
    one = b.constant(1, lhs.type)  # pyright: ignore[reportArgumentType]
    quotient = b.emit(llvm.SDivOp(lhs, rhs))
    remainder = b.emit(llvm.SubOp(lhs, b.emit(llvm.MulOp(quotient, rhs))))
    inexact = _icmp(b, "ne", remainder, zero)
    signs_differ = _icmp(b, "ne", _icmp(b, "slt", lhs, zero), _icmp(b, "slt", rhs, zero))
    if ceil:
        wants = b.emit(llvm.XOrOp(signs_differ, b.constant(1, i1)))
        adjusted = b.emit(llvm.AddOp(quotient, one))
    else:
        wants = signs_differ
        adjusted = b.emit(llvm.SubOp(quotient, one))
    return [b.emit(llvm.SelectOp(b.emit(llvm.AndOp(inexact, wants)), adjusted, quotient))]


def _compare(target: type[llvm.ICmpOp] | type[llvm.FCmpOp]) -> Lowering:
    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        assert isinstance(op, arith.CmpiOp | arith.CmpfOp)
        predicate = IntegerAttr(op.predicate.value.data, i64)
        return [b.emit(target(b.value(op.lhs), b.value(op.rhs), predicate))]

    return lower


def _constant(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, arith.ConstantOp)
    value, result_type = op.value, _result_type(op)
    if isinstance(value, IntegerAttr) and isinstance(result_type, IntegerType):
        return [b.constant(value.value.data, result_type)]
    if isinstance(value, FloatAttr | DenseIntOrFPElementsAttr):
        return [b.emit(llvm.ConstantOp(value, result_type))]
    raise b.unsupported(op, f"constant {value}")


def _index_cast(signed: bool) -> Lowering:
    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        source = b.value(op.operands[0])
        source_type, target_type = llvm_type(op.operands[0].type), _result_type(op)
        assert isinstance(source_type, IntegerType) and isinstance(target_type, IntegerType)
        if source_type.width.data == target_type.width.data:
            return [source]
        if source_type.width.data > target_type.width.data:
            return [b.emit(llvm.TruncOp(source, target_type))]
        extend = llvm.SExtOp if signed else llvm.ZExtOp
        return [b.emit(extend(source, target_type))]

    return lower


def _extended(signed: bool | None) -> Lowering:
    """`addui_extended` (signed None) and `mul[su]i_extended`: two results."""

    def lower(b: FunctionBuilder, op: Operation) -> Lowered:
        lhs, rhs = _operands(b, op)
        narrow = lhs.type
        assert isinstance(narrow, IntegerType)
        if signed is None:
            total = b.emit(llvm.AddOp(lhs, rhs))
            return [total, _icmp(b, "ult", total, lhs)]
        width = narrow.width.data
        wide = IntegerType(2 * width)
        extend = llvm.SExtOp if signed else llvm.ZExtOp
        product = b.emit(llvm.MulOp(b.emit(extend(lhs, wide)), b.emit(extend(rhs, wide))))
        high = b.emit(llvm.LShrOp(product, b.constant(width, wide)))
        return [b.emit(llvm.TruncOp(product, narrow)), b.emit(llvm.TruncOp(high, narrow))]

    return lower


ARITH_LOWERINGS: dict[str, Lowering] = {
    "arith.constant": _constant,
    "arith.addi": _same(llvm.AddOp),
    "arith.subi": _same(llvm.SubOp),
    "arith.muli": _same(llvm.MulOp),
    "arith.divui": _same(llvm.UDivOp),
    "arith.divsi": _same(llvm.SDivOp),
    "arith.remui": _same(llvm.URemOp),
    "arith.remsi": _same(llvm.SRemOp),
    "arith.andi": _same(llvm.AndOp),
    "arith.ori": _same(llvm.OrOp),
    "arith.xori": _same(llvm.XOrOp),
    "arith.shli": _same(llvm.ShlOp),
    "arith.shrui": _same(llvm.LShrOp),
    "arith.shrsi": _same(llvm.AShrOp),
    "arith.addf": _same(llvm.FAddOp),
    "arith.subf": _same(llvm.FSubOp),
    "arith.mulf": _same(llvm.FMulOp),
    "arith.divf": _same(llvm.FDivOp),
    "arith.remf": _same(llvm.FRemOp),
    "arith.negf": _same(llvm.FNegOp),
    "arith.select": _same(llvm.SelectOp),
    "arith.cmpi": _compare(llvm.ICmpOp),
    "arith.cmpf": _compare(llvm.FCmpOp),
    "arith.minsi": _min_max("slt"),
    "arith.maxsi": _min_max("sgt"),
    "arith.minui": _min_max("ult"),
    "arith.maxui": _min_max("ugt"),
    "arith.maximumf": _intrinsic("maximum"),
    "arith.minimumf": _intrinsic("minimum"),
    "arith.maxnumf": _intrinsic("maxnum"),
    "arith.minnumf": _intrinsic("minnum"),
    "arith.ceildivui": _ceildivui,
    "arith.ceildivsi": lambda b, op: _signed_division(b, op, ceil=True),
    "arith.floordivsi": lambda b, op: _signed_division(b, op, ceil=False),
    "arith.extsi": _cast(llvm.SExtOp),
    "arith.extui": _cast(llvm.ZExtOp),
    "arith.trunci": _cast(llvm.TruncOp),
    "arith.sitofp": _cast(llvm.SIToFPOp),
    "arith.uitofp": _cast(UIToFPOp),
    "arith.fptosi": _cast(FPToSIOp),
    "arith.fptoui": _cast(FPToUIOp),
    "arith.extf": _cast(llvm.FPExtOp),
    "arith.truncf": _cast(llvm.FPTruncOp),
    "arith.bitcast": _cast(llvm.BitcastOp),
    "arith.index_cast": _index_cast(signed=True),
    "arith.index_castui": _index_cast(signed=False),
    "arith.addui_extended": _extended(None),
    "arith.mulsi_extended": _extended(True),
    "arith.mului_extended": _extended(False),
}

LIBRARY_MATH = (
    *("acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cbrt"),
    *("cos", "cosh", "erf", "exp", "exp2", "expm1", "log", "log10", "log1p"),
    *("log2", "rsqrt", "sin", "sinh", "tan", "tanh", "powf"),
)
"""`math` ops (without the `math.` prefix) that call the target's math library."""

_TYPE_NAMES = {Float32Type: "f32", Float64Type: "f64", IntegerType: "i32"}


def library_function(library: MathLibrary, name: str, types: Sequence[Attribute]) -> str:
    """The math library's function for `math.<name>` on arguments of `types` (f32, f64,
    i32): `__nv_expf`, `__ocml_exp_f32`, `_Z3expf`."""
    base = library.renamed.get(name, name)
    if library.naming == "itanium":
        codes = "".join(library.suffixes[_TYPE_NAMES[type(t)]] for t in types)
        return f"_Z{len(base)}{base}{codes}"
    return f"{library.prefix}{base}{library.suffixes[_TYPE_NAMES[type(types[0])]]}"


def _promoted(b: FunctionBuilder, op: Operation, name: str) -> SSAValue:
    """The library function on the operands; f16/bf16 go through f32 like MLIR's
    libdevice lowering."""
    result_type = _result_type(op)
    args = _operands(b, op)
    library = b.device.target.math
    if isinstance(result_type, Float64Type | Float32Type):
        return b.call(library_function(library, name, [a.type for a in args]), args, result_type)
    if isinstance(result_type, Float16Type | BFloat16Type):
        wide = [b.emit(llvm.FPExtOp(a, f32)) if a.type == result_type else a for a in args]
        callee = library_function(library, name, [a.type for a in wide])
        return b.emit(llvm.FPTruncOp(b.call(callee, wide, f32), result_type))
    raise b.unsupported(op, f"no math library function for {result_type}")


def _library(name: str) -> Lowering:
    return lambda b, op: [_promoted(b, op, name)]


def _fpowi(b: FunctionBuilder, op: Operation) -> Lowered:
    base, exponent = _operands(b, op)
    if exponent.type != i32:
        exponent = b.emit(llvm.TruncOp(exponent, i32))
    result_type = _result_type(op)
    library = b.device.target.math
    if isinstance(result_type, Float64Type):
        callee = library_function(library, "fpowi", [result_type, i32])
        return [b.call(callee, [base, exponent], result_type)]
    wide = base if isinstance(result_type, Float32Type) else b.emit(llvm.FPExtOp(base, f32))
    result = b.call(library_function(library, "fpowi", [f32, i32]), [wide, exponent], f32)
    return [
        result
        if isinstance(result_type, Float32Type)
        else b.emit(llvm.FPTruncOp(result, result_type))
    ]


MATH_LOWERINGS: dict[str, Lowering] = {
    **{f"math.{name}": _library(name) for name in LIBRARY_MATH},
    "math.absf": _intrinsic("fabs"),
    "math.ceil": _intrinsic("ceil"),
    "math.floor": _intrinsic("floor"),
    "math.trunc": _intrinsic("trunc"),
    "math.round": _intrinsic("round"),
    "math.roundeven": _intrinsic("roundeven"),
    "math.sqrt": _intrinsic("sqrt"),
    "math.copysign": _intrinsic("copysign"),
    "math.fma": _intrinsic("fma"),
    "math.absi": _intrinsic("abs", extra_false=True),
    "math.ctlz": _intrinsic("ctlz", extra_false=True),
    "math.cttz": _intrinsic("cttz", extra_false=True),
    "math.ctpop": _intrinsic("ctpop"),
    "math.fpowi": _fpowi,
}
