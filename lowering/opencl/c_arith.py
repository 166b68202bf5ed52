"""The OpenCL C backend's expressions: `arith` integer and floating-point arithmetic,
comparisons and casts, written so that integers wrap as in MLIR."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_alloc.lowering.opencl.c_types import _bits, _is_float, _unsigned, _wide_unsigned, c_type
from xdsl.ir import Attribute

if TYPE_CHECKING:
    pass


# -- integer and float expressions ---------------------------------------------------------

_INTEGER_BINARY = (
    "addi subi muli andi ori xori divsi divui remsi remui shli shrsi shrui "
    "minsi maxsi minui maxui ceildivsi ceildivui floordivsi".split()
)


def _integer_binary(kind: str, a: str, b: str, type_: Attribute) -> str:
    t, u, w, bits = c_type(type_), _unsigned(type_), _wide_unsigned(type_), _bits(type_)
    if bits == 1:
        one_bit = {
            "addi": f"{a} ^ {b}",
            "subi": f"{a} ^ {b}",
            "xori": f"{a} ^ {b}",
            "muli": f"{a} & {b}",
            "andi": f"{a} & {b}",
            "ori": f"{a} | {b}",
            "minsi": f"{a} | {b}",  # signed i1: true is -1
            "maxsi": f"{a} & {b}",
            "minui": f"{a} & {b}",
            "maxui": f"{a} | {b}",
        }
        if kind in one_bit:
            return f"(bool)({one_bit[kind]})"
        # Divisions and shifts of i1: by true (the only defined divisor) or by 0.
        return {
            "divsi": a,
            "divui": a,
            "ceildivsi": a,
            "ceildivui": a,
            "floordivsi": a,
            "remsi": "false",
            "remui": "false",
            "shli": f"(bool)({a} & !{b})",
            "shrsi": a,
            "shrui": f"(bool)({a} & !{b})",
        }[kind]
    ua, ub = (f"({w}){x}" if u == w else f"({w})({u}){x}" for x in (a, b))
    if kind in ("addi", "subi", "muli"):
        symbol = {"addi": "+", "subi": "-", "muli": "*"}[kind]
        return f"({t})({ua} {symbol} {ub})"
    if kind in ("andi", "ori", "xori"):
        symbol = {"andi": "&", "ori": "|", "xori": "^"}[kind]
        return f"({t})({a} {symbol} {b})"
    if kind == "divsi":
        return f"({t})({a} / {b})"
    if kind == "remsi":
        return f"({t})({a} % {b})"
    if kind == "divui":
        return f"({t})({ua} / {ub})"
    if kind == "remui":
        return f"({t})({ua} % {ub})"
    if kind == "shli":
        return f"(({u}){b} >= {bits} ? ({t})0 : ({t})({ua} << ({u}){b}))"
    if kind == "shrui":
        return f"(({u}){b} >= {bits} ? ({t})0 : ({t})({ua} >> ({u}){b}))"
    if kind == "shrsi":
        return f"(({u}){b} >= {bits} ? ({t})({a} < 0 ? -1 : 0) : ({t})({a} >> ({u}){b}))"
    if kind in ("minsi", "maxsi"):
        symbol = "<" if kind == "minsi" else ">"
        return f"({a} {symbol} {b} ? {a} : {b})"
    if kind in ("minui", "maxui"):
        symbol = "<" if kind == "minui" else ">"
        return f"(({u}){a} {symbol} ({u}){b} ? {a} : {b})"
    if kind == "ceildivui":
        return f"({t})({ua} / {ub} + ({ua} % {ub} != 0))"
    quotient, remainder = f"({a} / {b})", f"({a} % {b})"
    if kind == "ceildivsi":
        return f"({t})({quotient} + ({remainder} != 0 && (({remainder} < 0) == ({b} < 0))))"
    if kind == "floordivsi":
        return f"({t})({quotient} - ({remainder} != 0 && (({remainder} < 0) != ({b} < 0))))"
    raise ValueError(kind)


_FLOAT_BINARY = {
    "addf": "{a} + {b}",
    "subf": "{a} - {b}",
    "mulf": "{a} * {b}",
    "divf": "{a} / {b}",
    "remf": "fmod({a}, {b})",
    "maxnumf": "fmax({a}, {b})",
    "minnumf": "fmin({a}, {b})",
    "maximumf": "(isnan({a}) || isnan({b}) ? {a} + {b} : fmax({a}, {b}))",
    "minimumf": "(isnan({a}) || isnan({b}) ? {a} + {b} : fmin({a}, {b}))",
}


def _compare_integers(predicate: int, a: str, b: str, type_: Attribute) -> str:
    if predicate in (0, 1):
        return f"{a} {'==' if predicate == 0 else '!='} {b}"
    symbol = {2: "<", 3: "<=", 4: ">", 5: ">=", 6: "<", 7: "<=", 8: ">", 9: ">="}[predicate]
    if predicate >= 6:
        u = _unsigned(type_)
        return f"({u}){a} {symbol} ({u}){b}"
    if _bits(type_) == 1:  # signed i1: true is -1
        return f"-(int){a} {symbol} -(int){b}"
    return f"{a} {symbol} {b}"


def _compare_floats(predicate: int, a: str, b: str) -> str:
    return {
        0: "false",
        1: f"{a} == {b}",
        2: f"{a} > {b}",
        3: f"{a} >= {b}",
        4: f"{a} < {b}",
        5: f"{a} <= {b}",
        6: f"({a} < {b} || {a} > {b})",
        7: f"(!isnan({a}) && !isnan({b}))",
        8: f"!({a} < {b} || {a} > {b})",
        9: f"!({a} <= {b})",
        10: f"!({a} < {b})",
        11: f"!({a} >= {b})",
        12: f"!({a} > {b})",
        13: f"{a} != {b}",
        14: f"(isnan({a}) || isnan({b}))",
        15: "true",
    }[predicate]


_CASTS = (
    "extsi extui trunci sitofp uitofp fptosi fptoui extf truncf bitcast index_cast "
    "index_castui".split()
)


def _cast(kind: str, a: str, source: Attribute, target: Attribute) -> str:
    t = c_type(target)
    if kind == "bitcast":
        return f"as_{t}({a})"
    if kind in ("extf", "truncf"):
        return f"({t}){a}"
    if kind in ("fptosi", "fptoui"):
        if _bits(target) == 1:
            return f"(bool)((int){a} & 1)"
        return f"({t}){a}" if kind == "fptosi" else f"({t})({_unsigned(target)}){a}"
    signed = kind in ("extsi", "sitofp", "index_cast")
    source_bits = _bits(source)
    if source_bits == 1:
        widened = f"({a} ? -1 : 0)" if signed else f"({a} ? 1 : 0)"
    else:
        widened = a if signed else f"({_unsigned(source)}){a}"
    if _is_float(target):
        return f"({t}){widened}"
    if _bits(target) == 1:
        return f"(bool)({a} & 1)"
    if _bits(target) < source_bits:  # truncation: modulo 2^bits
        return f"({t})({_unsigned(target)})({_unsigned(source)}){a}"
    return f"({t}){widened}"


# -- memory, gpu and control flow ops -------------------------------------------------------
