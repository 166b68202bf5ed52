"""Lower one `gpu.module` (after `lower-gpu-allocs`) to xDSL's `llvm` dialect for NVPTX.

The result is a `builtin.module` of `llvm.mlir.global` and `llvm.func` ops, the shape
xDSL's LLVM backend translates. It follows MLIR 22's `--gpu-lower-to-nvvm-pipeline` so
that both PTX backends agree:

* a kernel takes each memref argument as MLIR's expanded descriptor (allocated
  pointer, aligned pointer, offset, sizes, strides; all `i64` but the pointers), and is
  marked with the `nvvm.kernel` attribute MLIR uses;
* `index` is `i64`; memref spaces become LLVM address spaces; shared `memref.global`s
  become `addrspace(3)` globals of bytes keeping their alignment; the block's dynamic
  shared memory is an external `addrspace(3)` array of zero bytes;
* `gpu` ids and `gpu.barrier` are NVVM intrinsics through `llvm.call_intrinsic`, with
  the names LLVM 22 knows;
* loads and stores keep the `alignment` that `flatten-aliases` puts on them.

`scf` is first turned into `cf` with xDSL's `convert-scf-to-cf`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.dynamic_shared import is_dynamic_shared_memory
from gpu_alloc.lowering.llvm_extras import FPToSIOp, FPToUIOp, UIToFPOp
from gpu_alloc.memref_sizes import static_byte_size
from xdsl.context import Context
from xdsl.dialects import arith, cf, gpu, llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    UnitAttr,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

KERNEL_ATTRIBUTE = "nvvm.kernel"
"""The unit attribute on `llvm.func` that makes it a PTX entry (`ptx_kernel`)."""

DYNAMIC_SHARED_SYMBOL = "__dynamic_shared_memory"

BARRIER_INTRINSIC = "llvm.nvvm.barrier.cta.sync.aligned.all"
"""LLVM 21+ spelling of `bar.sync 0` (`llvm.nvvm.barrier0` is gone)."""

_SPECIAL_REGISTERS: dict[type[Operation], str] = {
    gpu.ThreadIdOp: "tid",
    gpu.BlockIdOp: "ctaid",
    gpu.BlockDimOp: "ntid",
    gpu.GridDimOp: "nctaid",
}

_INTEGER_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddiOp: llvm.AddOp,
    arith.SubiOp: llvm.SubOp,
    arith.MuliOp: llvm.MulOp,
    arith.DivUIOp: llvm.UDivOp,
    arith.DivSIOp: llvm.SDivOp,
    arith.RemUIOp: llvm.URemOp,
    arith.RemSIOp: llvm.SRemOp,
    arith.AndIOp: llvm.AndOp,
    arith.OrIOp: llvm.OrOp,
    arith.XOrIOp: llvm.XOrOp,
    arith.ShLIOp: llvm.ShlOp,
    arith.ShRUIOp: llvm.LShrOp,
    arith.ShRSIOp: llvm.AShrOp,
}

_FLOAT_BINARY: dict[type[Operation], type[Operation]] = {
    arith.AddfOp: llvm.FAddOp,
    arith.SubfOp: llvm.FSubOp,
    arith.MulfOp: llvm.FMulOp,
    arith.DivfOp: llvm.FDivOp,
}

_MIN_MAX: dict[type[Operation], str] = {
    arith.MinSIOp: "slt",
    arith.MaxSIOp: "sgt",
    arith.MinUIOp: "ult",
    arith.MaxUIOp: "ugt",
}

_CASTS: dict[type[Operation], type[Operation]] = {
    arith.ExtSIOp: llvm.SExtOp,
    arith.ExtUIOp: llvm.ZExtOp,
    arith.TruncIOp: llvm.TruncOp,
    arith.SIToFPOp: llvm.SIToFPOp,
    arith.UIToFPOp: UIToFPOp,
    arith.FPToSIOp: FPToSIOp,
    arith.FPToUIOp: FPToUIOp,
    arith.ExtFOp: llvm.FPExtOp,
    arith.TruncFOp: llvm.FPTruncOp,
    arith.BitcastOp: llvm.BitcastOp,
}

Index = SSAValue | int
"""An `i64` quantity: a value, or a constant not yet materialised."""


def llvm_type(type_attr: Attribute) -> Attribute:
    """The LLVM type of a scalar: `index` is `i64`, other scalars stay as they are."""
    if isinstance(type_attr, IndexType):
        return i64
    return type_attr


def address_space(memref_type: MemRefType) -> int:
    space = memref_type.memory_space
    if isinstance(space, IntegerAttr):
        return space.value.data
    if isinstance(space, NoneAttr):
        return 0
    raise GpuAllocPassError(f"memory space {space} has no NVPTX address space")


def pointer_type(memref_type: MemRefType) -> llvm.LLVMPointerType:
    space = address_space(memref_type)
    return llvm.LLVMPointerType(IntAttr(space) if space else NoneAttr())


def _row_major_strides(
    sizes: Sequence[Index], emit: Callable[[Index, Index], Index]
) -> list[Index]:
    strides: list[Index] = [1] * len(sizes)
    for dim in range(len(sizes) - 2, -1, -1):
        strides[dim] = emit(strides[dim + 1], sizes[dim + 1])
    return strides


@dataclass
class MemrefDescriptor:
    """What a memref value is at run time (MLIR's strided memref descriptor)."""

    allocated: SSAValue
    aligned: SSAValue
    offset: Index
    sizes: list[Index]
    strides: list[Index]


class _FunctionLowering:
    """Lowers the body of one `gpu.func` into a new `llvm.func`."""

    def __init__(self, func: gpu.FuncOp, module: _ModuleLowering):
        self.func = func
        self.module = module
        self.values: dict[SSAValue, SSAValue] = {}
        self.memrefs: dict[SSAValue, MemrefDescriptor] = {}
        self.blocks: dict[Block, Block] = {}
        self.block: Block = Block()

    # -- emission helpers -------------------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        """Appends `op` and returns its single result."""
        self.block.add_op(op)
        return op.results[0]

    def emit_void(self, op: Operation) -> None:
        self.block.add_op(op)

    def constant(self, value: int, type_attr: IntegerType = i64) -> SSAValue:
        return self.emit(llvm.ConstantOp(IntegerAttr(value, type_attr), type_attr))

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

    def value(self, source: SSAValue) -> SSAValue:
        try:
            return self.values[source]
        except KeyError:
            raise self.unsupported(source.owner) from None

    def descriptor(self, source: SSAValue) -> MemrefDescriptor:
        return self.memrefs[source]

    def unsupported(self, op: Operation | Block) -> GpuAllocPassError:
        name = op.name if isinstance(op, Operation) else "a block argument"
        return GpuAllocPassError(
            f"the llvmlite PTX backend cannot lower '{name}' in kernel "
            f"'{self.func.sym_name.data}' (use backend=mlir)",
            op if isinstance(op, Operation) else None,
        )

    # -- signature --------------------------------------------------------------------

    def lower(self) -> llvm.FuncOp:
        argument_types: list[Attribute] = []
        for input_type in self.func.function_type.inputs.data:
            if isinstance(input_type, MemRefType):
                ptr = pointer_type(input_type)
                rank = len(input_type.get_shape())
                argument_types += [ptr, ptr, i64, *([i64] * (2 * rank))]
            else:
                argument_types.append(llvm_type(input_type))
        if self.func.function_type.outputs.data:
            raise GpuAllocPassError(
                f"the llvmlite PTX backend lowers kernels only, and '{self.func.sym_name.data}' "
                "returns values",
                self.func,
            )
        region = Region()
        for index, source in enumerate(self.func.body.blocks):
            if index == 0:
                target = Block(arg_types=argument_types)
            else:
                target = Block(arg_types=[self._block_argument_type(a) for a in source.args])
                for old, new in zip(source.args, target.args, strict=True):
                    self.values[old] = new
            region.add_block(target)
            self.blocks[source] = target
        self._bind_entry_arguments(self.func.body.blocks[0], self.blocks[self.func.body.blocks[0]])
        for source, target in self.blocks.items():
            self.block = target
            for op in source.ops:
                self.lower_op(op)
        func = llvm.FuncOp(
            self.func.sym_name.data,
            llvm.LLVMFunctionType(argument_types),
            linkage=llvm.LinkageAttr("external"),
            body=region,
        )
        if self.func.kernel is not None or "gpu.kernel" in self.func.attributes:
            func.attributes[KERNEL_ATTRIBUTE] = UnitAttr()
        return func

    def _block_argument_type(self, argument: SSAValue) -> Attribute:
        if isinstance(argument.type, MemRefType):
            raise self.unsupported(argument.owner)
        return llvm_type(argument.type)

    def _bind_entry_arguments(self, source: Block, target: Block) -> None:
        position = 0
        for argument in source.args:
            argument_type = argument.type
            if not isinstance(argument_type, MemRefType):
                self.values[argument] = target.args[position]
                position += 1
                continue
            rank = len(argument_type.get_shape())
            fields = target.args[position : position + 3 + 2 * rank]
            position += 3 + 2 * rank
            shape = argument_type.get_shape()
            sizes: list[Index] = [
                s if s != DYNAMIC_INDEX else f
                for s, f in zip(shape, fields[3 : 3 + rank], strict=True)
            ]
            if isinstance(argument_type.layout, NoneAttr):
                # The identity layout promises offset 0 and row-major strides, as MLIR
                # assumes too: static ones fold into the addressing.
                offset, strides = 0, _row_major_strides(sizes, self.mul)
            else:
                offset = fields[2]
                strides = list[Index](fields[3 + rank :])
            self.memrefs[argument] = MemrefDescriptor(fields[0], fields[1], offset, sizes, strides)

    # -- ops --------------------------------------------------------------------------

    def lower_op(self, op: Operation) -> None:
        result: SSAValue | None = None
        match op:
            case arith.ConstantOp():
                result = self._constant(op)
            case _ if type(op) in _INTEGER_BINARY or type(op) in _FLOAT_BINARY:
                target = _INTEGER_BINARY.get(type(op)) or _FLOAT_BINARY[type(op)]
                result = self.emit(
                    target(self.value(op.operands[0]), self.value(op.operands[1]))  # pyright: ignore[reportCallIssue]
                )
            case arith.CmpiOp():
                result = self.emit(
                    llvm.ICmpOp(
                        self.value(op.lhs),
                        self.value(op.rhs),
                        IntegerAttr(op.predicate.value.data, i64),
                    )
                )
            case arith.CmpfOp():
                result = self.emit(
                    llvm.FCmpOp(
                        self.value(op.lhs),
                        self.value(op.rhs),
                        IntegerAttr(op.predicate.value.data, i64),
                    )
                )
            case arith.SelectOp():
                result = self.emit(
                    llvm.SelectOp(self.value(op.cond), self.value(op.lhs), self.value(op.rhs))
                )
            case _ if type(op) in _MIN_MAX:
                lhs, rhs = self.value(op.operands[0]), self.value(op.operands[1])
                predicate = llvm.ICmpPredicateFlag(_MIN_MAX[type(op)]).to_int()
                take_lhs = self.emit(llvm.ICmpOp(lhs, rhs, IntegerAttr(predicate, i64)))
                result = self.emit(llvm.SelectOp(take_lhs, lhs, rhs))
            case arith.NegfOp():
                result = self.emit(llvm.FNegOp(self.value(op.operand)))
            case arith.IndexCastOp():
                result = self._index_cast(op)
            case _ if type(op) in _CASTS:
                target_type = llvm_type(op.results[0].type)
                result = self.emit(_CASTS[type(op)](self.value(op.operands[0]), target_type))  # pyright: ignore[reportCallIssue]
            case gpu.ThreadIdOp() | gpu.BlockIdOp() | gpu.BlockDimOp() | gpu.GridDimOp():
                result = self._special_register(op)
            case gpu.BarrierOp():
                self.emit_void(llvm.CallIntrinsicOp(BARRIER_INTRINSIC, [self.constant(0, i32)], []))
            case gpu.ReturnOp():
                self.emit_void(llvm.ReturnOp())
            case cf.BranchOp():
                self.emit_void(
                    llvm.BrOp(self.blocks[op.successor], *[self.value(a) for a in op.arguments])
                )
            case cf.ConditionalBranchOp():
                self.emit_void(
                    llvm.CondBrOp(
                        self.value(op.cond),
                        self.blocks[op.then_block],
                        [self.value(a) for a in op.then_arguments],
                        self.blocks[op.else_block],
                        [self.value(a) for a in op.else_arguments],
                    )
                )
            case memref.GetGlobalOp():
                self._get_global(op)
            case _ if is_dynamic_shared_memory(op):
                self._dynamic_shared(op)
            case memref.MemorySpaceCastOp():
                self._memory_space_cast(op)
            case memref.ViewOp():
                self._view(op)
            case memref.AllocaOp():
                self._alloca(op)
            case memref.LoadOp():
                pointer = self._element_pointer(op.memref, op.indices)
                result = self.emit(
                    llvm.LoadOp(pointer, llvm_type(op.res.type), alignment=_alignment(op))
                )
            case memref.StoreOp():
                pointer = self._element_pointer(op.memref, op.indices)
                self.emit_void(
                    llvm.StoreOp(self.value(op.value), pointer, alignment=_alignment(op))
                )
            case _:
                raise self.unsupported(op)
        if result is not None:
            self.values[op.results[0]] = result

    def _constant(self, op: arith.ConstantOp) -> SSAValue:
        value = op.value
        if isinstance(op.result.type, IndexType) and isinstance(value, IntegerAttr):
            return self.constant(value.value.data)
        if isinstance(value, IntegerAttr | FloatAttr):
            return self.emit(llvm.ConstantOp(value, llvm_type(op.result.type)))
        raise self.unsupported(op)

    def _index_cast(self, op: arith.IndexCastOp) -> SSAValue:
        source = self.value(op.input)
        source_type = llvm_type(op.input.type)
        target_type = llvm_type(op.result.type)
        assert isinstance(source_type, IntegerType) and isinstance(target_type, IntegerType)
        source_width, target_width = source_type.width.data, target_type.width.data
        if source_width == target_width:
            return source
        if source_width > target_width:
            return self.emit(llvm.TruncOp(source, target_type))
        extend = llvm.SExtOp
        return self.emit(extend(source, target_type))

    def _special_register(self, op: Operation) -> SSAValue:
        assert isinstance(op, gpu.ThreadIdOp | gpu.BlockIdOp | gpu.BlockDimOp | gpu.GridDimOp)
        register = _SPECIAL_REGISTERS[type(op)]
        dimension = op.dimension.data.value
        name = f"llvm.nvvm.read.ptx.sreg.{register}.{dimension}"
        value = self.emit(llvm.CallIntrinsicOp(name, [], [i32]))
        return self.emit(llvm.ZExtOp(value, i64))

    # -- memrefs ----------------------------------------------------------------------

    def _static_descriptor(self, pointer: SSAValue, memref_type: MemRefType) -> MemrefDescriptor:
        sizes: list[Index] = list(memref_type.get_shape())
        return MemrefDescriptor(pointer, pointer, 0, sizes, _row_major_strides(sizes, self.mul))

    def _get_global(self, op: memref.GetGlobalOp) -> None:
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        symbol = op.name_.root_reference.data
        pointer = self.emit(llvm.AddressOfOp(symbol, pointer_type(memref_type)))
        self.memrefs[op.memref] = self._static_descriptor(pointer, memref_type)

    def _dynamic_shared(self, op: Operation) -> None:
        self.module.needs_dynamic_shared = True
        shared = llvm.LLVMPointerType(IntAttr(3))
        pointer = self.emit(llvm.AddressOfOp(DYNAMIC_SHARED_SYMBOL, shared))
        self.memrefs[op.results[0]] = MemrefDescriptor(pointer, pointer, 0, [0], [1])

    def _memory_space_cast(self, op: memref.MemorySpaceCastOp) -> None:
        source, result = op.source.type, op.dest.type
        assert isinstance(result, MemRefType)
        if not (isinstance(source, MemRefType) and source.memory_space == result.memory_space):
            if not (
                isinstance(op.source.owner, Operation)
                and is_dynamic_shared_memory(op.source.owner)
                and address_space(result) == 3
            ):
                raise self.unsupported(op)
        self.memrefs[op.dest] = self.descriptor(op.source)

    def _view(self, op: memref.ViewOp) -> None:
        source = self.descriptor(op.source)
        result_type = op.result.type
        assert isinstance(result_type, MemRefType)
        shift = self.add(source.offset, self.value(op.byte_shift))
        base = self.emit(
            llvm.GEPOp.from_mixed_indices(
                source.aligned, [self.materialise(shift)], i8, result_type=pointer_type(result_type)
            )
        )
        dynamic = iter(op.sizes)
        sizes: list[Index] = [
            self.value(next(dynamic)) if dim == DYNAMIC_INDEX else dim
            for dim in result_type.get_shape()
        ]
        strides = _row_major_strides(sizes, self.mul)
        self.memrefs[op.result] = MemrefDescriptor(base, base, 0, sizes, strides)

    def _alloca(self, op: memref.AllocaOp) -> None:
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        dynamic = iter(op.dynamic_sizes)
        sizes: list[Index] = [
            self.value(next(dynamic)) if dim == DYNAMIC_INDEX else dim
            for dim in memref_type.get_shape()
        ]
        count: Index = 1
        for size in sizes:
            count = self.mul(count, size)
        element = llvm_type(memref_type.element_type)
        alignment = op.alignment.value.data if op.alignment is not None else _natural(memref_type)
        pointer = self.emit(llvm.AllocaOp(self.materialise(count), element, alignment=alignment))
        self.memrefs[op.memref] = MemrefDescriptor(
            pointer, pointer, 0, sizes, _row_major_strides(sizes, self.mul)
        )

    def _element_pointer(self, source: SSAValue, indices: Sequence[SSAValue]) -> SSAValue:
        descriptor = self.descriptor(source)
        memref_type = source.type
        assert isinstance(memref_type, MemRefType)
        linear: Index = descriptor.offset
        for index, stride in zip(indices, descriptor.strides, strict=True):
            linear = self.add(linear, self.mul(self.value(index), stride))
        element = llvm_type(memref_type.element_type)
        pointer = descriptor.aligned
        if linear == 0:
            return pointer
        return self.emit(
            llvm.GEPOp.from_mixed_indices(
                pointer,
                [self.materialise(linear)],
                element,
                result_type=pointer.type,  # pyright: ignore[reportArgumentType]
                inbounds=True,  # an access outside its memref is undefined behaviour
            )
        )


def _alignment(op: memref.LoadOp | memref.StoreOp) -> int | None:
    """The `alignment` attribute `flatten-aliases` puts on accesses through views."""
    attribute = op.attributes.get("alignment")
    if isinstance(attribute, IntegerAttr):
        return attribute.value.data
    return None


def _natural(memref_type: MemRefType) -> int:
    size = static_byte_size(MemRefType(memref_type.element_type, [1]))
    return size or 1


class _ModuleLowering:
    """Lowers one `gpu.module` into a `builtin.module` of LLVM dialect ops."""

    def __init__(self, gpu_module: gpu.ModuleOp):
        self.gpu_module = gpu_module
        self.needs_dynamic_shared = False

    def lower(self) -> ModuleOp:
        ops: list[Operation] = []
        for op in self.gpu_module.body.ops:
            match op:
                case memref.GlobalOp():
                    ops.append(_global(op))
                case gpu.FuncOp():
                    ops.append(_FunctionLowering(op, self).lower())
                case _:
                    raise GpuAllocPassError(
                        f"the llvmlite PTX backend cannot lower '{op.name}' in gpu.module "
                        f"'{self.gpu_module.sym_name.data}' (use backend=mlir)",
                        op,
                    )
        if self.needs_dynamic_shared:
            ops.insert(
                0,
                llvm.GlobalOp(
                    llvm.LLVMArrayType(IntAttr(0), i8),
                    DYNAMIC_SHARED_SYMBOL,
                    "external",
                    addr_space=3,
                    alignment=16,
                ),
            )
        return ModuleOp(ops)


def _global(op: memref.GlobalOp) -> llvm.GlobalOp:
    memref_type = op.type
    size = static_byte_size(memref_type)
    if size is None or not isinstance(op.initial_value, UnitAttr):
        raise GpuAllocPassError(
            f"the llvmlite PTX backend lowers only uninitialised static memref.globals, "
            f"not '{op.sym_name.data}' (use backend=mlir)",
            op,
        )
    return llvm.GlobalOp(
        llvm.LLVMArrayType(IntAttr(size), i8),
        op.sym_name.data,
        "internal",
        addr_space=address_space(memref_type),
        alignment=None if op.alignment is None else op.alignment.value.data,
        value=None,
    )


def lower_gpu_module_to_llvm(gpu_module: gpu.ModuleOp) -> ModuleOp:
    """The LLVM dialect form of `gpu_module`; the input is not modified."""
    wrapper = ModuleOp([gpu_module.clone()])
    ConvertScfToCf().apply(Context(), wrapper)
    lowered = wrapper.body.block.first_op
    assert isinstance(lowered, gpu.ModuleOp)
    return _ModuleLowering(lowered).lower()


__all__ = [
    "BARRIER_INTRINSIC",
    "KERNEL_ATTRIBUTE",
    "MemrefDescriptor",
    "lower_gpu_module_to_llvm",
]
