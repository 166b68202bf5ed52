"""Run a `func.func` of a module with xDSL's interpreter (arith, scf, memref, func)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import arith, func, memref, scf
from xdsl.dialects.builtin import Builtin, IndexType, ModuleOp, i32
from xdsl.interpreter import Interpreter, InterpreterFunctions, PythonValues, impl, register_impls
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions, scalar_attr
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import TypedPtr
from xdsl.parser import Parser
from xdsl.utils.comparisons import to_signed, to_unsigned

from gpu_alloc.dialect import GpuAlloc


@register_impls
class MoreArith(InterpreterFunctions):
    """The arith ops the passes emit that xDSL 0.75's interpreter lacks."""

    def _ints(self, interpreter: Interpreter, args: PythonValues) -> tuple[int, int, int]:
        width = interpreter.index_bitwidth
        return args[0].value.data, args[1].value.data, width

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, args)
        return (scalar_attr(min(to_signed(a, w), to_signed(b, w)), op.result.type, w),)

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, args)
        return (scalar_attr(max(to_signed(a, w), to_signed(b, w)), op.result.type, w),)

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interpreter: Interpreter, op: arith.CeilDivUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, args)
        quotient = -(-to_unsigned(a, w) // to_unsigned(b, w))
        return (scalar_attr(quotient, op.result.type, w),)

    @impl(arith.DivUIOp)
    def run_divui(self, interpreter: Interpreter, op: arith.DivUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, args)
        return (scalar_attr(to_unsigned(a, w) // to_unsigned(b, w), op.result.type, w),)

    @impl(arith.RemUIOp)
    def run_remui(self, interpreter: Interpreter, op: arith.RemUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, args)
        return (scalar_attr(to_unsigned(a, w) % to_unsigned(b, w), op.result.type, w),)

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues):
        return (scalar_attr(args[0].value.data & 1, op.result.type, interpreter.index_bitwidth),)


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, func.Func, memref.MemRef, scf.Scf, GpuAlloc):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str) -> ModuleOp:
    return Parser(context(), text).parse_module()


def run(module: ModuleOp, name: str, sizes: Sequence[int], scalars: Sequence[int]) -> list[list[int]]:
    """Call `name` with one zeroed i32 buffer per entry of `sizes`, then the index
    `scalars`; returns the buffers' contents."""
    interpreter = Interpreter(module)
    for functions in (ArithFunctions, BuiltinFunctions, FuncFunctions, MemRefFunctions, ScfFunctions, MoreArith):
        interpreter.register_implementations(functions())
    buffers = [ShapedArray(TypedPtr.new([0] * n, xtype=i32), [n]) for n in sizes]
    index_args = [scalar_attr(v, IndexType(), interpreter.index_bitwidth) for v in scalars]
    interpreter.call_op(name, (*buffers, *index_args))
    return [list(b.data) for b in buffers]
