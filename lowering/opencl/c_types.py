"""The OpenCL C backend's vocabulary: what it hands back (`OpenClModule`, `OpenClKernel`,
`KernelParameter`), the C spelling of each MLIR type, literal and identifier, and the
memrefs it tracks as a pointer, an offset, sizes and strides."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.dialect.memory import MemorySpace, space_of
from gpu_alloc.errors import GpuAllocPassError
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, IntegerType, MemRefType, UnregisteredOp
from xdsl.ir import Attribute, Operation

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
