"""The OpenCL C backend (`-t opencl`, `backend=c`): OpenCL C 1.2 source of a `gpu.module`
lowered by `lower-gpu-allocs`.

Guarantees, for every op the coverage contract's `opencl/c` column lowers:

* the fused backing (a `memref.global` in shared memory) is one `__local` array
  declared at the scope of each kernel that reads it, aligned as the global says, and
  each Func's `memref.view` a typed `__local` pointer at its byte offset (which
  `lower-gpu-allocs` aligned for the element type); `gpu.dynamic_shared_memory` is a
  `__local uchar*` kernel argument (the host gives it its bytes);
* the heap argument and every memref argument are `__global` pointers; a dynamic
  dimension of an argument is one more `long` argument after the buffers;
* `gpu.barrier` is `barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)`, ids and sizes
  the description's builtins (`get_local_id(d)`...), read as 64-bit `index`;
* integer arithmetic wraps as in MLIR (it is computed on unsigned types: signed
  overflow is undefined in C), floating-point is not contracted (`FP_CONTRACT OFF`).

Every SSA value is a variable declared at the top of its function, so structured
(`scf`) and unstructured (`cf`, as labels and `goto`) control flow both only assign.
`OpenClModule.line_ops` maps each line of the source to the op it came from (a copy
of the user's op: `core.provenance` leads back to it), for Oclgrind's reports.
An op it cannot write raises `GpuAllocPassError` at the op, before any output.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.dialect import heap_bytes_per_block, is_heap_argument_type
from gpu_alloc.dialect.memory import (
    ATTRIBUTION_ATTRS,
    MemorySpace,
    attribution_storage,
    attributions,
    function_arguments,
    space_of,
    workgroup_count,
)
from gpu_alloc.dialect.mlir_gpu_kernels import is_kernel
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.targets import Device, Intrinsic
from gpu_alloc.targets.opencl import CLK_LOCAL_AND_GLOBAL_MEM_FENCE
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
    SymbolRefAttr,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

__all__ = ["KernelParameter", "OpenClKernel", "OpenClModule", "emit_opencl"]

_SIGNED = {1: "bool", 8: "char", 16: "short", 32: "int", 64: "long"}
_UNSIGNED = {1: "uchar", 8: "uchar", 16: "ushort", 32: "uint", 64: "ulong"}
_FLOATS = {16: "half", 32: "float", 64: "double"}


@dataclass(frozen=True)
class KernelParameter:
    """One parameter of a kernel, as the host passes it.

    `kind`: `buffer` (a memref argument), `heap` (the heap slices' buffer), `extent`
    (dimension `dimension` of buffer `argument`), `scalar`, `dynamic_shared` (a
    `__local` buffer of the launch's dynamic shared bytes)."""

    kind: str
    name: str
    """The C parameter's name."""
    mlir_name: str = ""
    """The MLIR argument's name, as `gpu-alloc-sim` prints it (`arg<N>` without one)."""
    type: Attribute | None = None
    argument: int = -1
    """The position of the MLIR argument it stands for (of the buffer, for an extent)."""
    dimension: int = -1


@dataclass(frozen=True)
class OpenClKernel:
    name: str
    """The kernel's symbol (its C name is `c_name(name)`)."""
    parameters: tuple[KernelParameter, ...]
    heap_bytes_per_block: int | None = None
    """The heap contract (`gpu_alloc.heap_bytes_per_block`) of a kernel with heap slices."""
    dynamic_shared_bytes: int = 0
    """The bytes of the `dynamic_shared` argument (the launch's, as the simulator reads them)."""


@dataclass
class OpenClModule:
    """One `gpu.module` as OpenCL C: the source, its kernels, and each line's op."""

    name: str
    source: str
    kernels: dict[str, OpenClKernel]
    line_ops: dict[int, Operation] = field(default_factory=dict[int, Operation])
    """1-based line of `source` → the op it was written for."""


def emit_opencl(module: ModuleOp, device: Device) -> dict[str, OpenClModule]:
    """Each `gpu.module` of `module` (lowered by `lower-gpu-allocs`) as OpenCL C."""
    return {
        op.sym_name.data: _ModuleWriter(op, device).write()
        for op in module.walk()
        if isinstance(op, gpu.ModuleOp)
    }


def _refuse(op: Operation, why: str) -> GpuAllocPassError:
    return GpuAllocPassError(f"the OpenCL C backend cannot lower '{op.name}': {why}", op)


def _bits(type_: Attribute) -> int:
    if isinstance(type_, IndexType):
        return 64
    if isinstance(type_, IntegerType):
        return type_.width.data
    raise ValueError(type_)


def _is_float(type_: Attribute) -> bool:
    return type_.name in ("f16", "f32", "f64") if hasattr(type_, "name") else False


def _float_bits(type_: Attribute) -> int:
    return {"f16": 16, "f32": 32, "f64": 64}[type_.name]  # type: ignore[attr-defined]


def c_type(type_: Attribute, op: Operation | None = None) -> str:
    """The OpenCL C type of a scalar MLIR type."""
    if isinstance(type_, IndexType | IntegerType):
        bits = _bits(type_)
        if bits in _SIGNED:
            return _SIGNED[bits]
    elif _is_float(type_):
        return _FLOATS[_float_bits(type_)]
    raise GpuAllocPassError(f"OpenCL C has no type for {type_}", op)


def _unsigned(type_: Attribute) -> str:
    return _UNSIGNED[_bits(type_)]


def _wide_unsigned(type_: Attribute) -> str:
    """The unsigned type arithmetic on `type_` is done in (no promotion to `int`)."""
    return "ulong" if _bits(type_) == 64 else "uint"


def _space_qualifier(type_: MemRefType, op: Operation | None) -> str:
    space = space_of(type_)
    if space in (None, MemorySpace.GLOBAL):
        return "__global"
    if space == MemorySpace.SHARED:
        return "__local"
    if space == MemorySpace.PRIVATE:
        return "__private"
    raise GpuAllocPassError(f"OpenCL C has no address space for {type_}", op)


def memory_type(type_: Attribute, op: Operation | None = None) -> str:
    """The C type of a memref's elements: an `i1` is a `uchar` (0 or 1) in memory, as
    OpenCL C has no `bool` buffers and numpy stores a bool in a byte."""
    if isinstance(type_, IntegerType) and type_.width.data == 1:
        return "uchar"
    return c_type(type_, op)


def _float_literal(value: float, type_: Attribute) -> str:
    bits = _float_bits(type_)
    if math.isnan(value):
        text = "NAN"
    elif math.isinf(value):
        text = "INFINITY" if value > 0 else "(-INFINITY)"
    else:
        text = value.hex() + ("" if bits == 64 else "f")
    if bits == 64 and not math.isfinite(value):
        return f"((double){text})"
    return f"((half){text})" if bits == 16 else text


def _int_literal(value: int, type_: Attribute) -> str:
    bits = _bits(type_)
    if bits == 1:
        return "true" if value & 1 else "false"
    signed = value & ((1 << bits) - 1)
    if signed >= 1 << (bits - 1):
        signed -= 1 << bits
    if signed == -(1 << 63):
        return "((long)0x8000000000000000UL)"
    return f"(({c_type(type_)}){signed}L)" if bits != 32 else f"{signed}"


@dataclass
class _Memref:
    """A memref value: a typed pointer expression, offset, sizes and strides in elements
    (C expressions), and its qualifier and element type."""

    pointer: str
    qualifier: str
    element: str
    offset: str
    sizes: list[str]
    strides: list[str]

    def address(self, indices: Sequence[str]) -> str:
        terms = [self.offset] if self.offset != "0" else []
        for index, stride in zip(indices, self.strides, strict=True):
            terms.append(index if stride == "1" else f"{index} * {stride}")
        return f"{self.pointer}[{' + '.join(terms) or '0'}]"


def _identity_strides(sizes: Sequence[str]) -> list[str]:
    strides: list[str] = []
    running = "1"
    for size in reversed(sizes):
        strides.append(running)
        running = size if running == "1" else _product(running, size)
    return list(reversed(strides))


def _product(a: str, b: str) -> str:
    if a.isdigit() and b.isdigit():
        return str(int(a) * int(b))
    return f"({a} * {b})"


def _static_shape(type_: MemRefType, dynamic: Sequence[str]) -> list[str]:
    queue = list(dynamic)
    return [queue.pop(0) if d == DYNAMIC_INDEX else str(d) for d in type_.get_shape()]


class _ModuleWriter:
    def __init__(self, module: gpu.ModuleOp, device: Device):
        self.module = module
        self.device = device
        self.lines: list[tuple[str, Operation | None]] = []
        self.globals = {
            _name_of(op): op for op in module.body.block.ops if op.name == "memref.global"
        }
        self.kernels: dict[str, OpenClKernel] = {}
        self.extensions: set[str] = set()

    def write(self) -> OpenClModule:
        functions = [
            op
            for op in self.module.body.block.ops
            if isinstance(op, gpu.FuncOp) or op.name == "func.func"
        ]
        bodies: list[list[tuple[str, Operation | None]]] = []
        prototypes: list[tuple[str, Operation | None]] = []
        for op in functions:
            if op.name == "memref.global":
                continue
            writer = _FunctionWriter(self, op)
            body = writer.write()
            if writer.kernel is not None:
                self.kernels[writer.kernel.name] = writer.kernel
            else:
                prototypes.append((writer.signature + ";", op))
            bodies.append(body)
        for op in self.module.body.block.ops:
            if op.name == "memref.global" and space_of(op.properties["type"]) != MemorySpace.SHARED:  # type: ignore[arg-type]
                raise _refuse(op, "a global outside shared memory (OpenCL C __constant data)")
            if op.name not in ("memref.global", "gpu.func", "func.func", "gpu.module_end"):
                raise _refuse(op, "not in a kernel or function")
        header: list[tuple[str, Operation | None]] = [
            (
                f"// OpenCL C 1.2 of gpu.module @{self.module.sym_name.data} (gpu-alloc -t opencl)",
                None,
            ),
            ("#pragma OPENCL FP_CONTRACT OFF", None),
        ]
        for extension in sorted(self.extensions):
            header.append((f"#pragma OPENCL EXTENSION {extension} : enable", None))
        lines = [*header, *prototypes]
        for body in bodies:
            lines.append(("", None))
            lines.extend(body)
        source = "\n".join(text for text, _ in lines) + "\n"
        line_ops = {n: op for n, (_, op) in enumerate(lines, start=1) if op is not None}
        return OpenClModule(self.module.sym_name.data, source, self.kernels, line_ops)


_DYNAMIC_SHARED = "gpu.dynamic_shared_memory"

_RESERVED = frozenset(
    (
        "auto break case char const continue default do double else enum extern float for "
        "goto if inline int long register restrict return short signed sizeof static struct "
        "switch typedef union unsigned void volatile while bool uchar ushort uint ulong half "
        "size_t kernel __kernel global __global local __local constant __constant private "
        "__private read_only write_only read_write uniform pipe true false "
        # builtins the backend calls, and the math functions a symbol must not shadow
        "barrier get_local_id get_group_id get_local_size get_num_groups get_global_id "
        "atomic_add atomic_xchg atomic_max atomic_min atomic_or atomic_and atomic_xor "
        "atomic_cmpxchg mul_hi popcount clz abs pown pow fmod fmax fmin fabs isnan rint "
        "sqrt rsqrt exp exp2 expm1 log log2 log10 log1p sin cos tan asin acos atan atan2 "
        "sinh cosh tanh asinh acosh atanh cbrt erf trunc round ceil floor copysign fma"
    ).split()
)


def c_name(symbol: str) -> str:
    """The C identifier of a function or kernel: its symbol, unless OpenCL C reserves it
    (`kernel`, `global`, a builtin), then `gpu_alloc_<symbol>`."""
    return f"gpu_alloc_{symbol}" if symbol in _RESERVED else symbol


def _op_name(op: Operation) -> str:
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def _name_of(op: Operation) -> str:
    return op.sym_name.data  # type: ignore[attr-defined]


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
                from gpu_alloc.sim.allocations import dynamic_shared_size

                extents.append("__local uchar* dynamic_shared")  # last, as described
                tail.append(KernelParameter("dynamic_shared", "dynamic_shared"))
                assert isinstance(function, gpu.FuncOp)  # a kernel
                dynamic_bytes = dynamic_shared_size(
                    function, self.module.device.shared_bytes_per_block
                )
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


def _get_global(writer: _FunctionWriter, op: Operation) -> None:
    symbol = op.properties["name"]
    assert isinstance(symbol, SymbolRefAttr)
    name = symbol.root_reference.data
    global_op = writer.module.globals.get(name)
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    if global_op is None or space_of(type_) != MemorySpace.SHARED:
        raise _refuse(op, f"a global outside shared memory (@{name})")
    if not writer.is_kernel:
        raise _refuse(
            op,
            "shared memory declared in a device function (OpenCL C declares __local "
            "arrays only in kernels)",
        )
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    sizes = [str(d) for d in type_.get_shape()]
    count = math.prod(type_.get_shape())
    alignment = op_alignment(global_op)
    variable = f"shared_{name}" if name.isidentifier() else writer.fresh("shared_")
    aligned = f" __attribute__((aligned({alignment})))" if alignment else ""
    declaration = f"  __local {element} {variable}[{max(count, 1)}]{aligned};"
    writer.locals[name] = declaration
    writer._global_ops[name] = global_op
    writer.memrefs[op.results[0]] = _Memref(
        variable, "__local", element, "0", sizes, _identity_strides(sizes)
    )


def op_alignment(global_op: Operation) -> int:
    alignment = global_op.properties.get("alignment")
    return alignment.value.data if isinstance(alignment, IntegerAttr) else 0


def _view(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    shift = writer.value(op.operands[1], op)
    sizes = [writer.value(v, op) for v in op.operands[2:]]
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    pointer = writer.fresh("view")
    base = f"({source.qualifier} uchar*){source.pointer}"
    start = f"{source.offset} + {shift}" if source.offset != "0" else shift
    writer.declarations.append((f"  {source.qualifier} {element}* {pointer};", op))
    writer.emit(f"{pointer} = ({source.qualifier} {element}*)({base} + {start});", op)
    shape = _static_shape(type_, sizes)
    writer.memrefs[op.results[0]] = _Memref(
        pointer, source.qualifier, element, "0", shape, _identity_strides(shape)
    )


def _dense(op: Operation, name: str) -> list[int]:
    attribute = op.properties[name]
    assert isinstance(attribute, DenseArrayBase)
    return [int(x) for x in attribute.get_values()]  # type: ignore[arg-type]


def _mixed(
    writer: _FunctionWriter, op: Operation, static: list[int], dynamic: list[SSAValue]
) -> list[str]:
    queue = [writer.value(v, op) for v in dynamic]
    return [queue.pop(0) if s == DYNAMIC_INDEX else str(s) for s in static]


def _materialised(writer: _FunctionWriter, expression: str, op: Operation) -> str:
    if expression.isdigit():
        return expression
    variable = writer.fresh("i")
    writer.declarations.append((f"  long {variable};", op))
    writer.emit(f"{variable} = {expression};", op)
    return variable


def _subview(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    offsets = _mixed(writer, op, _dense(op, "static_offsets"), list(op.offsets))  # type: ignore[attr-defined]
    sizes = _mixed(writer, op, _dense(op, "static_sizes"), list(op.sizes))  # type: ignore[attr-defined]
    steps = _mixed(writer, op, _dense(op, "static_strides"), list(op.strides))  # type: ignore[attr-defined]
    offset_terms = [source.offset] if source.offset != "0" else []
    for offset, stride in zip(offsets, source.strides, strict=True):
        if offset != "0":
            offset_terms.append(offset if stride == "1" else f"{offset} * {stride}")
    offset = _materialised(writer, " + ".join(offset_terms) or "0", op)
    strides = [
        _materialised(writer, _product(stride, step) if step != "1" else stride, op)
        for stride, step in zip(source.strides, steps, strict=True)
    ]
    sizes = [_materialised(writer, size, op) for size in sizes]
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    rank = len(type_.get_shape())
    while len(sizes) > rank:  # a rank-reducing subview drops unit dimensions
        drop = next((i for i, s in enumerate(sizes) if s == "1"), None)
        if drop is None:
            raise _refuse(op, "a rank-reducing subview of dynamic sizes")
        del sizes[drop], strides[drop]
    writer.memrefs[op.results[0]] = _Memref(
        source.pointer, source.qualifier, source.element, offset, sizes, strides
    )


def _reinterpret_cast(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    offsets = _mixed(writer, op, _dense(op, "static_offsets"), list(op.offsets))  # type: ignore[attr-defined]
    sizes = _mixed(writer, op, _dense(op, "static_sizes"), list(op.sizes))  # type: ignore[attr-defined]
    strides = _mixed(writer, op, _dense(op, "static_strides"), list(op.strides))  # type: ignore[attr-defined]
    writer.memrefs[op.results[0]] = _Memref(
        source.pointer,
        source.qualifier,
        source.element,
        _materialised(writer, offsets[0], op),
        [_materialised(writer, s, op) for s in sizes],
        [_materialised(writer, s, op) for s in strides],
    )


def _same_memref(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    result = op.results[0].type
    assert isinstance(result, MemRefType)
    if _space_qualifier(result, op) != source.qualifier:
        raise _refuse(op, f"a cast from {source.qualifier} to another address space")
    writer.memrefs[op.results[0]] = source


def _dim(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    index = writer.value(op.operands[1], op)
    expression = "0"
    for dimension in reversed(range(len(source.sizes))):
        expression = f"({index} == {dimension} ? (long){source.sizes[dimension]} : {expression})"
    writer.result(op, expression)


def _load(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    indices = [writer.value(v, op) for v in op.operands[1:]]
    writer.result(op, source.address(indices))


def _store(writer: _FunctionWriter, op: Operation) -> None:
    value = writer.value(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = [writer.value(v, op) for v in op.operands[2:]]
    writer.emit(f"{target.address(indices)} = {value};", op)


def _alloca(writer: _FunctionWriter, op: Operation) -> None:
    type_ = op.results[0].type
    assert isinstance(type_, MemRefType)
    if any(d == DYNAMIC_INDEX for d in type_.get_shape()) or op.operands:
        raise _refuse(op, "a private array of dynamic size")
    element = memory_type(type_.element_type, op)
    writer.note_type(type_.element_type)
    name = writer.fresh("private")
    writer.declarations.append((f"  {element} {name}[{max(1, math.prod(type_.get_shape()))}];", op))
    sizes = [str(d) for d in type_.get_shape()]
    writer.memrefs[op.results[0]] = _Memref(
        name, "__private", element, "0", sizes, _identity_strides(sizes)
    )


def _copy(writer: _FunctionWriter, op: Operation) -> None:
    source = writer.memref(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = []
    for size in source.sizes:
        index = writer.fresh("c")
        indices.append(index)
        writer.emit(f"for (long {index} = 0; {index} < {size}; {index}++)", op)
    writer.emit(f"  {target.address(indices)} = {source.address(indices)};", op)


_ATOMICS = {
    "addi": "atomic_add",
    "assign": "atomic_xchg",
    "maxs": "atomic_max",
    "mins": "atomic_min",
    "maxu": "atomic_max",
    "minu": "atomic_min",
    "ori": "atomic_or",
    "andi": "atomic_and",
    "xori": "atomic_xor",
}


def _atomic_rmw(writer: _FunctionWriter, op: Operation) -> None:
    from gpu_alloc.dialect.mlir_memref import ATOMIC_RMW_KINDS

    kinds = {number: kind for kind, number in ATOMIC_RMW_KINDS.items()}
    kind = kinds[op.properties["kind"].value.data]  # type: ignore[union-attr]
    value = writer.value(op.operands[0], op)
    target = writer.memref(op.operands[1], op)
    indices = [writer.value(v, op) for v in op.operands[2:]]
    type_ = op.results[0].type
    address = f"&{target.address(indices)}"
    q = target.qualifier
    if isinstance(type_, IntegerType) and type_.width.data == 32 and kind in _ATOMICS:
        cast = "uint" if kind in ("maxu", "minu") else "int"
        pointer = f"(volatile {q} {cast}*){address}"
        writer.result(op, f"(int){_ATOMICS[kind]}({pointer}, ({cast}){value})")
        return
    if _is_float(type_) and _float_bits(type_) == 32 and kind in ("assign", "addf"):
        if kind == "assign":
            writer.result(op, f"atomic_xchg((volatile {q} float*){address}, {value})")
            return
        old, new, pointer = writer.fresh("o"), writer.fresh("n"), writer.fresh("a")
        writer.emit(f"{{ volatile {q} uint* {pointer} = (volatile {q} uint*){address};", op)
        writer.emit(f"  uint {old}, {new};", op)
        writer.emit(
            f"  do {{ {old} = *{pointer}; {new} = as_uint(as_float({old}) + {value}); }} "
            f"while (atomic_cmpxchg({pointer}, {old}, {new}) != {old});",
            op,
        )
        writer.emit(f"  {writer.variable(op.results[0], op)} = as_float({old}); }}", op)
        return
    raise _refuse(
        op,
        f"an atomic {kind} on {type_} (OpenCL C 1.2 has 32-bit integer atomics, and here "
        "f32 add and exchange)",
    )


def _id(writer: _FunctionWriter, op: Operation) -> None:
    ids = writer.module.device.target.ids
    source: Intrinsic = {
        "gpu.thread_id": ids.thread_id,
        "gpu.block_id": ids.block_id,
        "gpu.block_dim": ids.block_dim,
        "gpu.grid_dim": ids.grid_dim,
    }.get(op.name, Intrinsic("get_global_id", 64, True))  # type: ignore[assignment]
    dimension = str(op.properties["dimension"])  # `#gpu<dim x>`
    axis = "xyz".index(dimension.rstrip(">")[-1])
    writer.result(op, f"(long){source.name}({axis})")


def _barrier(writer: _FunctionWriter, op: Operation) -> None:
    (call,) = writer.module.device.target.barrier
    writer.emit(f"{call.name}({CLK_LOCAL_AND_GLOBAL_MEM_FENCE});", op)  # type: ignore[union-attr]


def _return(writer: _FunctionWriter, op: Operation) -> None:
    if op.operands:
        writer.emit(f"return {writer.value(op.operands[0], op)};", op)
    else:
        writer.emit("return;", op)


def _dynamic_shared(writer: _FunctionWriter, op: Operation) -> None:
    if not writer.is_kernel:
        raise _refuse(op, "dynamic shared memory in a device function")
    writer.memrefs[op.results[0]] = _Memref("dynamic_shared", "__local", "uchar", "0", ["0"], ["1"])


def _call(writer: _FunctionWriter, op: Operation) -> None:
    callee = op.properties["callee"]
    assert isinstance(callee, SymbolRefAttr)
    arguments = []
    for operand in op.operands:
        if isinstance(operand.type, MemRefType):
            memref = writer.memref(operand, op)
            arguments.append(
                memref.pointer if memref.offset == "0" else f"{memref.pointer} + {memref.offset}"
            )
        else:
            arguments.append(writer.value(operand, op))
    call = f"{c_name(callee.root_reference.data)}({', '.join(arguments)})"
    if len(op.results) > 1:
        raise _refuse(op, "a call with several results")
    if op.results:
        writer.result(op, call)
    else:
        writer.emit(f"{call};", op)


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
