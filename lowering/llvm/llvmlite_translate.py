"""xDSL's `llvm` dialect (what `to_llvm` makes) to an llvmlite module, for any target.

xDSL 0.75's `xdsl.backend.llvm` translates most of what `to_llvm` emits, but has gaps
for GPU targets that this module closes from the outside, reusing xDSL's public
`convert_op` for everything else:

1. `llvm.getelementptr` on a pointer outside address space 0: xDSL bitcasts the pointer
   to an address-space-0 typed pointer first, which LLVM rejects ("invalid cast").
   Here GEPs are built on the pointer as it is (opaque pointers need no cast).
   Upstream fix: in `_convert_getelementptr`, drop the bitcast and call
   `builder.gep(ptr, indices, source_etype=...)` on the original pointer.
2. No kernel marking: `llvm.func` has no GPU kernel calling conventions in xDSL and the
   translation ignores `cconv`. Functions with `attributes.KERNEL_ATTRIBUTE` get the
   target's kernel calling convention here (`ptx_kernel`, `amdgpu_kernel`,
   `spir_kernel`), other functions and builtins its device one (`spir_func`), and every
   call its callee's. Upstream fix: add them to `LLVM_CALLING_CONVS` and set
   `fn.calling_convention` from `op.CConv` in `_declare_func`.
3. Global alignment (and the `undef` initialiser of an uninitialised internal global)
   is dropped by `_convert_global`, so a 16-byte aligned shared buffer comes out
   aligned to 1. Here globals keep both. Upstream fix: copy `op.alignment` to
   `gvar.align` in `_convert_global` (and `ir.Undefined` when `value` is absent and the
   linkage is not external).
4. `bf16`: neither xDSL's `convert_type` nor llvmlite knows it (a `KeyError` inside
   xDSL). `BFloatType` is llvmlite's missing `bfloat`, and the ops whose translation
   converts a type (constants, casts, loads, allocas, intrinsic calls) are translated
   here with `convert_type` below. Upstream fix: a `bfloat` type in llvmlite and a
   `BFloat16Type` entry in xDSL's `_TYPE_CONVERTERS`.
5. Functions are declared before any body is translated, so a call may precede its
   callee, and a declaration (a math-library function) has no body.
6. An `alloca` outside address space 0 (AMDGPU's private memory is address space 5):
   llvmlite's `alloca` has no address space. `AddressSpaceAlloca` prints one.

Plus the ops of `extras` that xDSL's `llvm` dialect lacks (the fence among them).
"""

from __future__ import annotations

import struct

import llvmlite.ir as ir
from gpu_alloc.dialect.attributes import KERNEL_ATTRIBUTE
from gpu_alloc.lowering.llvm.extras import (
    EXTRA_CASTS,
    AtomicRMWOp,
    ExtractElementOp,
    FenceOp,
    SwitchOp,
)
from gpu_alloc.targets import KernelAbi
from xdsl.backend.llvm.convert_op import convert_op
from xdsl.backend.llvm.convert_type import convert_type as xdsl_convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue


class BFloatType(ir.types._BaseFloatType):  # pyright: ignore[reportPrivateUsage]
    """LLVM's `bfloat`, which llvmlite lacks."""

    null = "0.0"
    intrinsic_name = "bf16"

    def __str__(self) -> str:
        return "bfloat"

    def format_constant(self, value: float) -> str:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16  # round to nearest even
        return f"0xR{rounded & 0xFFFF:04X}"


BFloatType._create_instance()  # pyright: ignore[reportAttributeAccessIssue]


def convert_type(type_attr: Attribute) -> ir.Type:
    """xDSL's `convert_type`, plus `bf16` (gap 4)."""
    if isinstance(type_attr, BFloat16Type):
        return BFloatType()
    if isinstance(type_attr, VectorType) and isinstance(type_attr.element_type, BFloat16Type):
        return ir.VectorType(BFloatType(), type_attr.get_shape()[0])
    return xdsl_convert_type(type_attr)


def _constant(op: llvm.ConstantOp) -> ir.Constant:
    value = op.value
    result_type = convert_type(op.result.type)
    if isinstance(value, IntegerAttr | FloatAttr):
        return ir.Constant(result_type, value.value.data)
    if isinstance(value, DenseIntOrFPElementsAttr):
        values = list(value.get_values())
        if isinstance(result_type, ir.VectorType) and len(values) == 1:
            values *= result_type.count  # a splat
        return ir.Constant(result_type, values)
    raise NotImplementedError(f"constant {value}")


def _convert_gep(op: llvm.GEPOp, builder: ir.IRBuilder, values: dict[SSAValue, ir.Value]) -> None:
    """Gap 1: a GEP on the pointer itself, whatever its address space."""
    ssa_indices = iter(op.ssa_indices)
    indices = [
        values[next(ssa_indices)]
        if index == llvm.GEP_USE_SSA_VAL
        else ir.Constant(ir.IntType(32), index)
        for index in op.rawConstantIndices.iter_values()
    ]
    values[op.results[0]] = builder.gep(
        values[op.ptr],
        indices,
        inbounds=op.inbounds is not None,
        source_etype=convert_type(op.elem_type),
    )


class AddressSpaceAlloca(ir.instructions.AllocaInstr):
    """Gap 6: `alloca <type>, <count>, align <a>, addrspace(<n>)`."""

    address_space = 0

    def descr(self, buf: list[str]) -> None:
        super().descr(buf)
        if self.address_space:
            buf.append(f", addrspace({self.address_space})")


def _alloca(op: llvm.AllocaOp, builder: ir.IRBuilder, values: dict[SSAValue, ir.Value]) -> None:
    size = values[op.size]
    alloca = AddressSpaceAlloca(builder.block, convert_type(op.elem_type), size, "")
    builder._insert(alloca)  # pyright: ignore[reportPrivateUsage]
    result_type = op.res.type
    assert isinstance(result_type, llvm.LLVMPointerType)
    space = result_type.addr_space.data if isinstance(result_type.addr_space, IntAttr) else 0
    alloca.address_space = space
    alloca.type = ir.PointerType(addrspace=space)  # opaque, like a global's address (gap 3)
    if op.alignment is not None:
        alloca.align = op.alignment.value.data  # pyright: ignore[reportAttributeAccessIssue]
    values[op.res] = alloca


class _Translation:
    """Translates the bodies of one module's functions for a target's ABI."""

    def __init__(self, module: ir.Module, abi: KernelAbi):
        self.module = module
        self.abi = abi

    def builtin(self, name: str, result: ir.Type, args: list[ir.Value]) -> ir.Function:
        """The declaration of intrinsic or builtin `name`, made on first use; a builtin
        (not an `llvm.` intrinsic) gets the target's device calling convention."""
        function = self.module.globals.get(name)
        if function is None:
            function_type = ir.FunctionType(result, [a.type for a in args])  # pyright: ignore[reportAttributeAccessIssue]
            function = ir.Function(self.module, function_type, name=name)
            if not name.startswith("llvm."):
                function.calling_convention = self.abi.function_calling_convention
        assert isinstance(function, ir.Function)
        return function

    def typed(self, op: Operation, builder: ir.IRBuilder, values: dict[SSAValue, ir.Value]) -> bool:
        """The ops whose translation converts a type (gap 4); False for any other op."""
        match op:
            case llvm.ConstantOp():
                values[op.result] = _constant(op)
            case llvm.UndefOp():
                values[op.res] = ir.Constant(convert_type(op.res.type), ir.Undefined)
            case llvm.LoadOp():
                load = builder.load(values[op.ptr], typ=convert_type(op.dereferenced_value.type))
                if op.alignment is not None:
                    load.align = op.alignment.value.data  # pyright: ignore[reportAttributeAccessIssue]
                values[op.dereferenced_value] = load
            case llvm.AllocaOp():
                _alloca(op, builder, values)
            case llvm.CallIntrinsicOp():
                args = [values[a] for a in op.args]
                result = convert_type(op.ress.type) if op.ress is not None else ir.VoidType()
                function = self.builtin(op.intrin.data, result, args)
                call = builder.call(function, args, cconv=function.calling_convention or None)
                if op.ress is not None:
                    values[op.ress] = call
            case llvm.GEPOp():
                _convert_gep(op, builder, values)
            case _ if isinstance(op, llvm.GenericCastOp) or type(op) in EXTRA_CASTS:
                method = EXTRA_CASTS.get(type(op)) or op.name.removeprefix("llvm.")  # pyright: ignore[reportArgumentType]
                emit = getattr(builder, method)
                values[op.results[0]] = emit(
                    values[op.operands[0]], convert_type(op.results[0].type)
                )
            case _:
                return False
        return True

    def convert(
        self,
        op: Operation,
        builder: ir.IRBuilder,
        values: dict[SSAValue, ir.Value],
        blocks: dict[Block, ir.Block],
    ) -> None:
        if self.typed(op, builder, values):
            return
        match op:
            case ExtractElementOp():
                values[op.res] = builder.extract_element(values[op.vector], values[op.position])
            case AtomicRMWOp():
                values[op.res] = builder.atomic_rmw(
                    op.bin_op.data, values[op.ptr], values[op.val], "monotonic"
                )
            case FenceOp():
                builder.fence(op.ordering.data, op.syncscope.data)
            case SwitchOp():
                switch = builder.switch(values[op.value], blocks[op.default_destination])
                flag_type = values[op.value].type  # pyright: ignore[reportAttributeAccessIssue]
                for value, block in zip(op.case_values, op.case_destinations, strict=True):
                    switch.add_case(ir.Constant(flag_type, value.value.data), blocks[block])
            case llvm.CallOp() if op.callee is not None:
                callee = self.module.get_global(op.callee.string_value())
                assert isinstance(callee, ir.Function)
                call = builder.call(
                    callee, [values[a] for a in op.args], cconv=callee.calling_convention or None
                )
                if op.returned is not None:
                    values[op.returned] = call
            case _:
                convert_op(op, builder, values, blocks)

    def body(self, op: llvm.FuncOp, function: ir.Function) -> None:
        blocks: dict[Block, ir.Block] = {}
        values: dict[SSAValue, ir.Value] = {}
        body = list(op.body.blocks)
        for index, block in enumerate(body):
            blocks[block] = function.append_basic_block(name=f"bb{index}")
        for argument, llvm_argument in zip(body[0].args, function.args, strict=True):
            values[argument] = llvm_argument
        for block in body[1:]:
            builder = ir.IRBuilder(blocks[block])
            for argument in block.args:
                values[argument] = builder.phi(convert_type(argument.type))
        for block in body:
            builder = ir.IRBuilder(blocks[block])
            if blocks[block].instructions:
                builder.position_after(blocks[block].instructions[-1])
            for block_op in block.ops:
                self.convert(block_op, builder, values, blocks)


def _convert_global(op: llvm.GlobalOp, module: ir.Module) -> None:
    """Gap 3: keep the alignment, and give an internal global its `undef` value."""
    variable = ir.GlobalVariable(
        module,
        convert_type(op.global_type),
        name=op.sym_name.data,
        addrspace=op.addr_space.value.data,
    )
    # llvmlite types the address of a global as a typed pointer to the global's type,
    # which its builder then refuses to load or store an element through: give it the
    # opaque pointer type of its address space, as LLVM IR itself does.
    variable.type = ir.PointerType(addrspace=op.addr_space.value.data)
    linkage = op.linkage.linkage.data
    variable.linkage = linkage
    if op.alignment is not None:
        variable.align = op.alignment.value.data  # pyright: ignore[reportAttributeAccessIssue]
    if op.value is None and linkage != "external":
        undefined = ir.Constant(variable.value_type, ir.Undefined)
        variable.initializer = undefined  # pyright: ignore[reportAttributeAccessIssue]


def _declare_function(op: llvm.FuncOp, module: ir.Module, abi: KernelAbi) -> ir.Function:
    """Gap 2: a kernel gets the target's kernel calling convention, any other function
    (a device function, a math-library declaration) its device one."""
    function_type = ir.FunctionType(
        convert_type(op.function_type.output),
        [convert_type(t) for t in op.function_type.inputs],
    )
    function = ir.Function(module, function_type, name=op.sym_name.data)
    if op.body.blocks and op.linkage is not None and op.linkage.linkage.data == "internal":
        function.linkage = "internal"
    if KERNEL_ATTRIBUTE in op.attributes:
        function.calling_convention = abi.kernel_calling_convention
    elif abi.function_calling_convention:
        function.calling_convention = abi.function_calling_convention
    return function


def translate_to_llvmlite(
    module: ModuleOp, triple: str, abi: KernelAbi, data_layout: str = ""
) -> ir.Module:
    """The llvmlite module of an LLVM dialect module made by `to_llvm`."""
    result = ir.Module()
    result.triple = triple
    result.data_layout = data_layout
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            _convert_global(op, result)
    functions = [
        (op, _declare_function(op, result, abi)) for op in module.ops if isinstance(op, llvm.FuncOp)
    ]
    translation = _Translation(result, abi)
    for op, function in functions:
        if op.body.blocks:
            translation.body(op, function)
    return result
