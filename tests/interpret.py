"""Run a `func.func` of a module with xDSL's interpreter (arith, scf, memref, func)."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod
from typing import Any

from gpu_alloc.dialect import GpuAlloc
from gpu_alloc.dialect.ops import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from xdsl.context import Context
from xdsl.dialects import arith, func, gpu, memref, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    Builtin,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    i32,
)
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions, scalar_attr, xtype_for_el_type
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.memref import MemRefFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.interpreters.shaped_array import ShapedArray
from xdsl.interpreters.utils.ptr import RawPtr, TypedPtr
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.comparisons import to_signed, to_unsigned


@register_impls
class MoreArith(InterpreterFunctions):
    """The arith ops the passes emit that xDSL 0.75's interpreter lacks."""

    def _ints(
        self, interpreter: Interpreter, op: Operation, args: PythonValues
    ) -> tuple[int, int, int]:
        result_type = op.results[0].type
        width = (
            result_type.width.data
            if isinstance(result_type, IntegerType)
            else interpreter.index_bitwidth
        )
        return args[0].value.data, args[1].value.data, width

    @impl(arith.MinSIOp)
    def run_minsi(self, interpreter: Interpreter, op: arith.MinSIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, op, args)
        return (
            scalar_attr(
                min(to_signed(a, w), to_signed(b, w)), op.result.type, interpreter.index_bitwidth
            ),
        )

    @impl(arith.MaxSIOp)
    def run_maxsi(self, interpreter: Interpreter, op: arith.MaxSIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, op, args)
        return (
            scalar_attr(
                max(to_signed(a, w), to_signed(b, w)), op.result.type, interpreter.index_bitwidth
            ),
        )

    @impl(arith.CeilDivUIOp)
    def run_ceildivui(self, interpreter: Interpreter, op: arith.CeilDivUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, op, args)
        quotient = -(-to_unsigned(a, w) // to_unsigned(b, w))
        return (scalar_attr(quotient, op.result.type, interpreter.index_bitwidth),)

    @impl(arith.DivUIOp)
    def run_divui(self, interpreter: Interpreter, op: arith.DivUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, op, args)
        return (
            scalar_attr(
                to_unsigned(a, w) // to_unsigned(b, w), op.result.type, interpreter.index_bitwidth
            ),
        )

    @impl(arith.RemUIOp)
    def run_remui(self, interpreter: Interpreter, op: arith.RemUIOp, args: PythonValues):
        a, b, w = self._ints(interpreter, op, args)
        return (
            scalar_attr(
                to_unsigned(a, w) % to_unsigned(b, w), op.result.type, interpreter.index_bitwidth
            ),
        )

    @impl(arith.ExtUIOp)
    def run_extui(self, interpreter: Interpreter, op: arith.ExtUIOp, args: PythonValues):
        return (scalar_attr(args[0].value.data & 1, op.result.type, interpreter.index_bitwidth),)


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, arith.Arith, func.Func, gpu.GPU, memref.MemRef, scf.Scf, GpuAlloc):
        ctx.load_dialect(dialect)
    return ctx


def parse(text: str) -> ModuleOp:
    return Parser(context(), text).parse_module()


def run(
    module: ModuleOp, name: str, sizes: Sequence[int], scalars: Sequence[int]
) -> list[list[int]]:
    """Call `name` with one zeroed i32 buffer per entry of `sizes`, then the index
    `scalars`; returns the buffers' contents."""
    interpreter = Interpreter(module)
    for functions in (
        ArithFunctions,
        BuiltinFunctions,
        FuncFunctions,
        MemRefFunctions,
        ScfFunctions,
        MoreArith,
    ):
        interpreter.register_implementations(functions())
    buffers = [ShapedArray(TypedPtr.new([0] * n, xtype=i32), [n]) for n in sizes]
    index_args = [scalar_attr(v, IndexType(), interpreter.index_bitwidth) for v in scalars]
    interpreter.call_op(name, (*buffers, *index_args))
    return [list(b.data) for b in buffers]


@register_impls
class PerThreadGpu(InterpreterFunctions):
    """Runs a `gpu.func` body as one thread; private allocations are fresh per run.

    Only for kernels whose threads do not communicate (no shared or heap storage,
    no barriers): the threads then run one after the other.
    """

    def __init__(self, lane: int, thread: tuple[int, int, int]):
        self.lane = lane
        self.thread = thread

    @impl(gpu.LaneIdOp)
    def run_lane_id(self, interpreter: Interpreter, op: gpu.LaneIdOp, args: PythonValues):
        return (scalar_attr(self.lane, IndexType(), interpreter.index_bitwidth),)

    @impl(gpu.ThreadIdOp)
    def run_thread_id(self, interpreter: Interpreter, op: gpu.ThreadIdOp, args: PythonValues):
        dim = "xyz".index(str(op.dimension.data))
        return (scalar_attr(self.thread[dim], IndexType(), interpreter.index_bitwidth),)

    @impl(AllocOp)
    def run_alloc(self, interpreter: Interpreter, op: AllocOp, args: PythonValues):
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        sizes = iter(a.value.data for a in args)
        shape = [next(sizes) if d == DYNAMIC_INDEX else d for d in memref_type.get_shape()]
        xtype = xtype_for_el_type(memref_type.get_element_type(), interpreter.index_bitwidth)
        return (ShapedArray(TypedPtr[Any].zeros(prod(shape), xtype=xtype), shape),)

    @impl(OffsetPointerOp)
    def run_offset_pointer(self, interpreter: Interpreter, op: OffsetPointerOp, args: PythonValues):
        backing, offset = args
        raw = backing.data_ptr.raw
        return (RawPtr(raw.memory, raw.offset + offset.value.data),)

    @impl(AliasOp)
    def run_alias(self, interpreter: Interpreter, op: AliasOp, args: PythonValues):
        pointer, *sizes = args
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        dims = iter(a.value.data for a in sizes)
        shape = [next(dims) if d == DYNAMIC_INDEX else d for d in memref_type.get_shape()]
        xtype = xtype_for_el_type(memref_type.get_element_type(), interpreter.index_bitwidth)
        return (ShapedArray(TypedPtr(pointer, xtype=xtype), shape),)

    @impl(DeallocOp)
    def run_dealloc(self, interpreter: Interpreter, op: DeallocOp, args: PythonValues):
        return ()

    @impl_terminator(gpu.ReturnOp)
    def run_return(self, interpreter: Interpreter, op: gpu.ReturnOp, args: PythonValues):
        return ReturnedValues(()), ()


def run_threads(
    module: ModuleOp, sizes: Sequence[int], scalars: Sequence[int], threads: int
) -> list[list[int]]:
    """Run the module's only `gpu.func` for thread ids 0..threads-1 (x), one after the
    other, on shared zeroed i32 buffers of `sizes`; returns the buffers."""
    (kernel,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    buffers = [ShapedArray(TypedPtr.new([0] * n, xtype=i32), [n]) for n in sizes]
    for t in range(threads):
        interpreter = Interpreter(module)
        for functions in (
            ArithFunctions(),
            BuiltinFunctions(),
            MemRefFunctions(),
            ScfFunctions(),
            MoreArith(),
        ):
            interpreter.register_implementations(functions)
        interpreter.register_implementations(PerThreadGpu(t % 32, (t, 0, 0)))
        index_args = [scalar_attr(v, IndexType(), interpreter.index_bitwidth) for v in scalars]
        interpreter.run_ssacfg_region(kernel.body, (*buffers, *index_args), "gpu.func")
    return [list(b.data) for b in buffers]
