"""The OpenCL C backend's writer of one function or kernel: its signature and kernel
description, its attributions, and every op of its body as C statements."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpu_alloc.dialect import heap_bytes_per_block, is_heap_argument_type
from gpu_alloc.dialect.dynamic_shared import dynamic_shared_size
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.memory import (
    ATTRIBUTION_ATTRS,
    attribution_storage,
    attributions,
    function_arguments,
    workgroup_count,
)
from gpu_alloc.lowering.opencl.c_arith import (
    _CASTS,
    _FLOAT_BINARY,
    _INTEGER_BINARY,
    _cast,
    _compare_floats,
    _compare_integers,
    _integer_binary,
)
from gpu_alloc.lowering.opencl.c_control import _HANDLERS
from gpu_alloc.lowering.opencl.c_types import (
    _DYNAMIC_SHARED,
    KernelParameter,
    OpenClKernel,
    _bits,
    _float_bits,
    _float_literal,
    _identity_strides,
    _int_literal,
    _is_float,
    _Memref,
    _name_of,
    _op_name,
    _refuse,
    _space_qualifier,
    _unsigned,
    _wide_unsigned,
    c_name,
    c_type,
    memory_type,
)
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IntegerAttr,
    MemRefType,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

if TYPE_CHECKING:
    from gpu_alloc.lowering.opencl.c import _ModuleWriter


class _FunctionWriter:
    def __init__(self, module: _ModuleWriter, function: Operation):
        self.module = module
        self.function = function
        self.is_kernel = isinstance(function, gpu.FuncOp) and is_kernel(function)
        self.names: dict[SSAValue, str] = {}
        self.memrefs: dict[SSAValue, _Memref] = {}
        self.declarations: list[tuple[str, Operation | None]] = []
        self.body: list[tuple[str, Operation | None]] = []
        self.locals: dict[str, str] = {}  # shared global → its __local declaration
        self.labels: dict[Block, str] = {}
        self.counter = 0
        self.depth = 1
        self.kernel: OpenClKernel | None = None
        self.signature = ""

    # -- names ---------------------------------------------------------------------------

    def fresh(self, stem: str = "t") -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def variable(self, value: SSAValue, op: Operation | None) -> str:
        """The variable of a scalar value, declared at the function's top."""
        if value in self.names:
            return self.names[value]
        hint = value.name_hint
        stem = f"v_{hint}_" if hint and hint.isidentifier() and hint.isascii() else "v"
        name = self.fresh(stem)
        self.names[value] = name
        self.declarations.append((f"  {c_type(value.type, op)} {name};", op))
        self.note_type(value.type)
        return name

    def note_type(self, type_: Attribute) -> None:
        if _is_float(type_) and _float_bits(type_) == 64:
            self.module.extensions.add("cl_khr_fp64")
        if _is_float(type_) and _float_bits(type_) == 16:
            self.module.extensions.add("cl_khr_fp16")

    def value(self, value: SSAValue, op: Operation) -> str:
        if value not in self.names:
            raise _refuse(op, f"an operand of type {value.type} it has no value for")
        return self.names[value]

    def memref(self, value: SSAValue, op: Operation) -> _Memref:
        if value not in self.memrefs:
            raise _refuse(op, f"a memref operand ({value.type}) not made by an op it lowers")
        return self.memrefs[value]

    def emit(self, text: str, op: Operation | None) -> None:
        self.body.append(("  " * self.depth + text, op))

    # -- the function --------------------------------------------------------------------

    def write(self) -> list[tuple[str, Operation | None]]:
        function = self.function
        name = _name_of(function)
        region: Region = function.regions[0]
        if not region.blocks:
            raise _refuse(function, "a function without a body")
        parameters = self._parameters(region.blocks[0])
        result_types = list(function.properties["function_type"].outputs)  # type: ignore[union-attr]
        if self.is_kernel:
            returned = "void"
        elif len(result_types) == 0:
            returned = "void"
        elif len(result_types) == 1 and not isinstance(result_types[0], MemRefType):
            returned = c_type(result_types[0], function)
        else:
            raise _refuse(function, "a function with several results or a memref result")
        prefix = "__kernel " if self.is_kernel else ""
        self.signature = f"{prefix}{returned} {c_name(name)}({', '.join(parameters) or 'void'})"
        self._region(region, function)
        lines: list[tuple[str, Operation | None]] = [(self.signature + " {", function)]
        for symbol, (declaration) in self.locals.items():
            lines.append((declaration, self._global_ops[symbol]))
        lines.extend(self.declarations)
        lines.extend(self.body)
        lines.append(("}", function))
        return lines

    _global_ops: dict[str, Operation]

    def _parameters(self, entry: Block) -> list[str]:
        self._global_ops = {}
        parameters: list[str] = []
        extents: list[str] = []
        described: list[KernelParameter] = []
        extent_parameters: list[KernelParameter] = []
        function = self.function
        arguments = (
            function_arguments(function) if isinstance(function, gpu.FuncOp) else list(entry.args)
        )
        if isinstance(function, gpu.FuncOp):
            self._attributions(function)
        for position, argument in enumerate(arguments):
            type_ = argument.type
            hint = argument.name_hint or f"arg{position}"
            stem = hint if hint.isidentifier() and hint.isascii() else f"arg{position}"
            name = f"{stem}_{position}"
            if isinstance(type_, MemRefType):
                qualifier = _space_qualifier(type_, self.function)
                element = memory_type(type_.element_type, self.function)
                self.note_type(type_.element_type)
                parameters.append(f"{qualifier} {element}* {name}")
                sizes = []
                for dimension, size in enumerate(type_.get_shape()):
                    if size != DYNAMIC_INDEX:
                        sizes.append(str(size))
                        continue
                    extent = f"{name}_d{dimension}"
                    extents.append(f"long {extent}")
                    extent_parameters.append(
                        KernelParameter("extent", extent, hint, None, position, dimension)
                    )
                    sizes.append(extent)
                offset, strides = self._layout(type_, sizes, self.function)
                self.memrefs[argument] = _Memref(name, qualifier, element, offset, sizes, strides)
                kind = "heap" if is_heap_argument_type(type_) else "buffer"
                described.append(KernelParameter(kind, name, hint, type_, position))
            else:
                ctype = c_type(type_, self.function)
                if self.is_kernel and ctype == "bool":
                    parameters.append(f"uchar {name}_u8")
                    self.names[argument] = name
                    self.declarations.append((f"  bool {name} = {name}_u8 != 0;", self.function))
                else:
                    parameters.append(f"{ctype} {name}")
                    self.names[argument] = name
                self.note_type(type_)
                described.append(KernelParameter("scalar", name, hint, type_, position))
        if self.is_kernel:
            dynamic = [op for op in self.function.walk() if _op_name(op) == _DYNAMIC_SHARED]
            tail: list[KernelParameter] = []
            dynamic_bytes = 0
            if dynamic:
                extents.append("__local uchar* dynamic_shared")  # last, as described
                tail.append(KernelParameter("dynamic_shared", "dynamic_shared"))
                assert isinstance(function, gpu.FuncOp)  # a kernel
                try:
                    dynamic_bytes = dynamic_shared_size(
                        function, self.module.device.shared_bytes_per_block
                    )
                except VerifyException as error:
                    raise _refuse(function, str(error)) from None
            self.kernel = OpenClKernel(
                _name_of(self.function),
                (*described, *extent_parameters, *tail),
                heap_bytes_per_block(self.function),
                dynamic_bytes,
            )
        return [*parameters, *extents]

    def _attributions(self, function: gpu.FuncOp) -> None:
        """Workgroup attributions as `__local` arrays (kernels only), private ones as
        private arrays, each aligned as its `llvm.align` says (or its element)."""
        aligns: dict[int, int] = {}
        for position, name in enumerate(ATTRIBUTION_ATTRS):
            dictionaries = function.attributes.get(name) or function.properties.get(name)
            for index, entry in enumerate(getattr(dictionaries, "data", ()) or ()):
                align = getattr(entry, "data", {}).get("llvm.align")
                if isinstance(align, IntegerAttr):
                    start = 0 if position == 0 else workgroup_count(function)
                    aligns[start + index] = align.value.data
        for index, argument in enumerate(attributions(function)):
            type_ = argument.type
            storage = attribution_storage(argument)
            if not isinstance(type_, MemRefType) or storage is None:
                raise _refuse(function, f"an attribution of type {type_}")
            if any(d == DYNAMIC_INDEX for d in type_.get_shape()):
                raise _refuse(function, "an attribution of dynamic size")
            shared = storage.is_shared
            if shared and not self.is_kernel:
                raise _refuse(function, "a workgroup attribution of a device function")
            element = memory_type(type_.element_type, function)
            self.note_type(type_.element_type)
            name = self.fresh("wg" if shared else "private")
            count = max(1, math.prod(type_.get_shape()))
            align = aligns.get(index)
            aligned = f" __attribute__((aligned({align})))" if align else ""
            qualifier = "__local " if shared else ""
            self.declarations.append(
                (f"  {qualifier}{element} {name}[{count}]{aligned};", function)
            )
            sizes = [str(d) for d in type_.get_shape()]
            self.memrefs[argument] = _Memref(
                name,
                "__local" if shared else "__private",
                element,
                "0",
                sizes,
                _identity_strides(sizes),
            )

    def _layout(self, type_: MemRefType, sizes: list[str], op: Operation) -> tuple[str, list[str]]:
        layout = type_.layout
        if isinstance(layout, StridedLayoutAttr):
            strides = []
            for stride in layout.get_strides():
                if stride is None:
                    raise _refuse(op, f"a memref parameter of dynamic strides ({type_})")
                strides.append(str(stride))
            # The pointer passed points at the view's first element: offset 0.
            return "0", strides
        return "0", _identity_strides(sizes)

    # -- regions -------------------------------------------------------------------------

    def _region(self, region: Region, owner: Operation) -> None:
        blocks = list(region.blocks)
        if len(blocks) > 1:
            for block in blocks:
                self.labels[block] = self.fresh("bb")
            for block in blocks[1:]:
                for argument in block.args:
                    if isinstance(argument.type, MemRefType):
                        raise _refuse(owner, "a block argument of memref type")
                    self.variable(argument, owner)
        for index, block in enumerate(blocks):
            if len(blocks) > 1:
                self.body.append((f"{self.labels[block]}:;", owner))
            self._block(block)
            del index

    def _block(self, block: Block, yields: Sequence[str] = ()) -> None:
        for op in block.ops:
            if op.name in ("scf.yield",):
                self._assign(yields, [self.value(v, op) for v in op.operands], op)
                continue
            self._op(op)

    def _assign(self, targets: Sequence[str], values: Sequence[str], op: Operation) -> None:
        """Parallel assignment (a value may be read after another target is written)."""
        pairs = [(t, v) for t, v in zip(targets, values, strict=True) if t != v]
        if len(pairs) == 1:
            self.emit(f"{pairs[0][0]} = {pairs[0][1]};", op)
            return
        temporaries = []
        for target, value in pairs:
            temporary = self.fresh("p")
            temporaries.append(temporary)
            self.emit(f"__typeof__({target}) {temporary} = {value};", op)
        for (target, _), temporary in zip(pairs, temporaries, strict=True):
            self.emit(f"{target} = {temporary};", op)

    # -- ops -----------------------------------------------------------------------------

    def _op(self, op: Operation) -> None:
        name = _op_name(op)
        handler = _HANDLERS.get(name)
        if handler is None:
            dialect = name.split(".")[0]
            if dialect == "arith":
                self._arith(op, name)
                return
            if dialect == "math":
                self._math(op, name)
                return
            raise _refuse(op, "outside the OpenCL C backend's ops")
        handler(self, op)

    def result(self, op: Operation, expression: str, index: int = 0) -> None:
        self.emit(f"{self.variable(op.results[index], op)} = {expression};", op)

    def operands(self, op: Operation) -> list[str]:
        return [self.value(v, op) for v in op.operands]

    # arith ------------------------------------------------------------------------------

    def _arith(self, op: Operation, name: str) -> None:
        kind = name.split(".", 1)[1]
        if kind == "constant":
            value = op.properties["value"]
            type_ = op.results[0].type
            if isinstance(value, IntegerAttr):
                self.result(op, _int_literal(value.value.data, type_))
            elif isinstance(value, FloatAttr):
                self.result(op, _float_literal(float(value.value.data), type_))
            else:
                raise _refuse(op, f"a constant {value}")
            return
        if kind in _INTEGER_BINARY:
            a, b = self.operands(op)
            self.result(op, _integer_binary(kind, a, b, op.results[0].type))
            return
        if kind in _FLOAT_BINARY:
            a, b = self.operands(op)
            self.result(op, _FLOAT_BINARY[kind].format(a=a, b=b))
            return
        if kind == "negf":
            (a,) = self.operands(op)
            self.result(op, f"-{a}")
            return
        if kind == "cmpi":
            a, b = self.operands(op)
            predicate = op.properties["predicate"].value.data  # type: ignore[union-attr]
            self.result(op, _compare_integers(predicate, a, b, op.operands[0].type))
            return
        if kind == "cmpf":
            a, b = self.operands(op)
            predicate = op.properties["predicate"].value.data  # type: ignore[union-attr]
            self.result(op, _compare_floats(predicate, a, b))
            return
        if kind == "select":
            c, a, b = self.operands(op)
            if isinstance(op.results[0].type, MemRefType):
                raise _refuse(op, "a select of memrefs")
            self.result(op, f"{c} ? {a} : {b}")
            return
        if kind in _CASTS:
            (a,) = self.operands(op)
            self.result(op, _cast(kind, a, op.operands[0].type, op.results[0].type))
            return
        if kind in ("addui_extended", "mulsi_extended", "mului_extended"):
            self._extended(op, kind)
            return
        raise _refuse(op, "outside the OpenCL C backend's ops")

    def _extended(self, op: Operation, kind: str) -> None:
        a, b = self.operands(op)
        type_ = op.operands[0].type
        t, u, bits = c_type(type_), _unsigned(type_), _bits(type_)
        if kind == "addui_extended":
            self.result(op, f"({t})(({_wide_unsigned(type_)})({u}){a} + ({u}){b})", 0)
            self.result(op, f"({u}){self.names[op.results[0]]} < ({u}){a}", 1)
            return
        signed = kind == "mulsi_extended"
        if bits == 64:
            low = f"(long)((ulong){a} * (ulong){b})"
            operands = f"(long){a}, (long){b}" if signed else f"(ulong){a}, (ulong){b}"
            high = f"(long)mul_hi({operands})"
            self.result(op, low, 0)
            self.result(op, high, 1)
            return
        wide = f"((long){a} * (long){b})" if signed else f"((ulong)({u}){a} * (ulong)({u}){b})"
        self.result(op, f"({t}){wide}", 0)
        self.result(op, f"({t})({wide} >> {bits})", 1)

    # math -------------------------------------------------------------------------------

    def _math(self, op: Operation, name: str) -> None:
        kind = name.split(".", 1)[1]
        type_ = op.results[0].type
        arguments = self.operands(op)
        renamed = self.module.device.target.math.renamed
        if kind in ("absi", "ctlz", "ctpop", "cttz"):
            (a,) = arguments
            t, u = c_type(type_), _unsigned(type_)
            if kind == "cttz":
                self.result(op, f"({t})popcount(({u})(~({u}){a} & (({u}){a} - ({u})1)))")
            else:
                self.result(op, f"({t}){renamed[kind]}({a})")
            return
        if not _is_float(type_):
            raise _refuse(op, f"math on {type_}")
        function = renamed.get(kind, kind)
        t = c_type(type_)
        if _float_bits(type_) == 16:  # computed in f32, as MLIR does
            widened = [
                f"(float){a}" if _is_float(v.type) else a
                for a, v in zip(arguments, op.operands, strict=True)
            ]
            self.result(op, f"(half){function}({', '.join(widened)})")
            return
        if kind == "fpowi":
            a, n = arguments
            self.result(op, f"pown({a}, (int){n})")
            return
        self.result(op, f"({t}){function}({', '.join(arguments)})")


# -- integer and float expressions ---------------------------------------------------------
