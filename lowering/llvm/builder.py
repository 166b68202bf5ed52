"""What every op lowering to xDSL's `llvm` dialect works with: one function being built.

`FunctionBuilder` holds the value map (source SSA value → LLVM dialect value), the run-time
descriptors of memref values, the block being filled and the emission helpers. The op
lowerings (`arith`, `memory`, `vector`, `to_llvm`) are functions from a
builder and a source op to the op's lowered results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from gpu_alloc.dialect.memory import space_of
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.targets import DEFAULT_DEVICE, Device
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

Index = SSAValue | int
"""An `i64` quantity: a value, or a constant not yet materialised."""

Lowered = Sequence[SSAValue] | None
"""The lowered results of an op (None for an op without results)."""


def llvm_type(type_attr: Attribute) -> Attribute:
    """The LLVM type of a scalar or vector: `index` is `i64`, others stay as they are."""
    if isinstance(type_attr, IndexType):
        return i64
    if isinstance(type_attr, VectorType) and isinstance(type_attr.element_type, IndexType):
        return VectorType(i64, type_attr.get_shape())
    return type_attr


def address_space(memref_type: MemRefType) -> int:
    """The LLVM address space of a memref type: its memory space's number, in either
    spelling (`gpu_alloc.dialect.memory`), which `to_llvm` has already made the target's
    (`target_spaces`); 0 without one."""
    if (space := space_of(memref_type)) is not None:
        return int(space)
    attr = memref_type.memory_space
    if isinstance(attr, NoneAttr):
        return 0
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    raise GpuAllocPassError(f"memory space {attr} has no LLVM address space")


def pointer_type(memref_type: MemRefType) -> llvm.LLVMPointerType:
    space = address_space(memref_type)
    return llvm.LLVMPointerType(IntAttr(space) if space else NoneAttr())


def row_major_strides(sizes: Sequence[Index], mul: Callable[[Index, Index], Index]) -> list[Index]:
    strides: list[Index] = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = mul(strides[dim + 1], sizes[dim + 1])
    return strides


@dataclass
class MemrefDescriptor:
    """What a memref value is at run time (MLIR's strided memref descriptor)."""

    allocated: SSAValue
    aligned: SSAValue
    offset: Index
    sizes: list[Index]
    strides: list[Index]


@dataclass
class FunctionBuilder:
    """The state of lowering one function body."""

    function_name: str
    device: Device = DEFAULT_DEVICE
    """The target and chip being compiled for: how ids, barriers and math are spelled."""
    backend_hint: str = "backend=mlir"
    values: dict[SSAValue, SSAValue] = field(default_factory=dict[SSAValue, SSAValue])
    memrefs: dict[SSAValue, MemrefDescriptor] = field(
        default_factory=dict[SSAValue, MemrefDescriptor]
    )
    blocks: dict[Block, Block] = field(default_factory=dict[Block, Block])
    block: Block = field(default_factory=Block)
    region: Region = field(default_factory=Region)
    callees: dict[str, llvm.LLVMFunctionType] = field(
        default_factory=dict[str, llvm.LLVMFunctionType]
    )
    """External functions (the math library's, builtins) this function calls, to declare
    in the module."""
    needs_dynamic_shared: bool = False

    # -- emission -------------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        """Appends `op` and returns its single result."""
        self.block.add_op(op)
        return op.results[0]

    def emit_void(self, op: Operation) -> None:
        self.block.add_op(op)

    def new_block(self, arg_types: Sequence[Attribute] = ()) -> Block:
        block = Block(arg_types=arg_types)
        self.region.add_block(block)
        return block

    def constant(self, value: int, type_attr: IntegerType = i64) -> SSAValue:
        return self.emit(llvm.ConstantOp(IntegerAttr(value, type_attr), type_attr))

    def float_constant(self, value: float, type_attr: Attribute) -> SSAValue:
        attribute = FloatAttr(value, type_attr)  # pyright: ignore[reportArgumentType, reportCallIssue]
        return self.emit(llvm.ConstantOp(attribute, type_attr))

    def materialise(self, value: Index) -> SSAValue:
        return self.constant(value) if isinstance(value, int) else value

    def add(self, lhs: Index, rhs: Index) -> Index:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return lhs + rhs
        if lhs == 0:
            return rhs
        if rhs == 0:
            return lhs
        return self.emit(llvm.AddOp(self.materialise(lhs), self.materialise(rhs)))

    def mul(self, lhs: Index, rhs: Index) -> Index:
        if isinstance(lhs, int) and isinstance(rhs, int):
            return lhs * rhs
        if lhs == 1:
            return rhs
        if rhs == 1:
            return lhs
        return self.emit(llvm.MulOp(self.materialise(lhs), self.materialise(rhs)))

    def intrinsic(
        self, name: str, args: Sequence[SSAValue], result: Attribute | None
    ) -> SSAValue | None:
        """A call of the LLVM intrinsic `name` (already mangled with its types)."""
        op = llvm.CallIntrinsicOp(name, list(args), [] if result is None else [result])
        self.block.add_op(op)
        return op.results[0] if op.results else None

    def call(self, callee: str, args: Sequence[SSAValue], result: Attribute) -> SSAValue:
        """A call of an external function (libdevice's `__nv_*`), declared later."""
        self.callees[callee] = llvm.LLVMFunctionType([a.type for a in args], result)
        return self.emit(llvm.CallOp(callee, *args, return_type=result))

    # -- source values ------------------------------------------------------------------

    def value(self, source: SSAValue) -> SSAValue:
        try:
            return self.values[source]
        except KeyError:
            raise self.unsupported(source.owner) from None

    def descriptor(self, source: SSAValue) -> MemrefDescriptor:
        try:
            return self.memrefs[source]
        except KeyError:
            raise self.unsupported(source.owner) from None

    def unsupported(self, op: Operation | Block, why: str = "") -> GpuAllocPassError:
        name = op.name if isinstance(op, Operation) else "a block argument"
        detail = f"{why}; " if why else ""
        return GpuAllocPassError(
            f"the llvmlite {self.device.target.backend_name} backend cannot lower '{name}' in kernel "
            f"'{self.function_name}' ({detail}use {self.backend_hint})",
            op if isinstance(op, Operation) else None,
        )
