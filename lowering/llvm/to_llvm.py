"""Lower one `gpu.module` (after `lower-gpu-allocs`) to xDSL's `llvm` dialect for a target.

The result is a `builtin.module` of `llvm.mlir.global` and `llvm.func` ops, the shape
the embedded backend (`llvmlite_backend`) translates. It follows MLIR 22's lowerings
(`--gpu-lower-to-nvvm-pipeline`, `convert-gpu-to-rocdl`, `convert-gpu-to-llvm-spv`) so
that both backends of a target agree:

* a function takes each memref argument as MLIR's expanded descriptor (allocated
  pointer, aligned pointer, offset, sizes, strides; all `i64` but the pointers); a
  kernel is marked with `KERNEL_ATTRIBUTE`, a `func.func` or non-kernel `gpu.func` is a
  device function that `func.call` calls;
* `index` is `i64`; memref spaces become the target's LLVM address spaces
  (`target_spaces`); shared `memref.global`s become globals of bytes in the target's
  shared space keeping their alignment; the block's dynamic shared memory is an external
  array of zero bytes there;
* `gpu` ids, `lane_id`, `subgroup_size` and `gpu.barrier` are what the target's
  description says (`ids`); math-library functions are declared `llvm.func`s;
* the ops themselves are lowered by `arith` (arith, math), `memory` (memref,
  vector memory) and `vector`; `coverage.COVERAGE` lists what each backend lowers.

`scf` is first turned into `cf` with xDSL's `convert-scf-to-cf` and `WhileLowering`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gpu_alloc.dialect.attributes import KERNEL_ATTRIBUTE
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.memory import (
    attribution_alignment,
    attribution_storage,
    attributions,
    function_arguments,
)
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.llvm.arith import ARITH_LOWERINGS, MATH_LOWERINGS
from gpu_alloc.lowering.llvm.builder import (
    FunctionBuilder,
    Index,
    Lowered,
    MemrefDescriptor,
    address_space,
    llvm_type,
    pointer_type,
    row_major_strides,
)
from gpu_alloc.lowering.llvm.extras import SwitchOp
from gpu_alloc.lowering.llvm.ids import ID_LOWERINGS
from gpu_alloc.lowering.llvm.memory import DYNAMIC_SHARED_SYMBOL, MEMORY_LOWERINGS, emit_alloca
from gpu_alloc.lowering.llvm.scf_while_to_cf import WhileLowering
from gpu_alloc.lowering.llvm.target_spaces import map_memory_spaces
from gpu_alloc.lowering.llvm.vector import VECTOR_LOWERINGS
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.names import unique_name
from gpu_alloc.provenance import cloned
from gpu_alloc.targets import DEFAULT_DEVICE, Device
from xdsl.context import Context
from xdsl.dialects import cf, func, gpu, llvm, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    NoneAttr,
    StringAttr,
    UnitAttr,
    UnregisteredOp,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriteWalker
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

Lowering = Callable[[FunctionBuilder, Operation], Lowered]


def _return(b: FunctionBuilder, op: Operation) -> Lowered:
    b.emit_void(llvm.ReturnOp(*[b.value(v) for v in op.operands]))
    return None


def _branch(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, cf.BranchOp)
    b.emit_void(llvm.BrOp(b.blocks[op.successor], *[b.value(a) for a in op.arguments]))
    return None


def _conditional_branch(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, cf.ConditionalBranchOp)
    b.emit_void(
        llvm.CondBrOp(
            b.value(op.cond),
            b.blocks[op.then_block],
            [b.value(a) for a in op.then_arguments],
            b.blocks[op.else_block],
            [b.value(a) for a in op.else_arguments],
        )
    )
    return None


def _switch(b: FunctionBuilder, op: Operation) -> Lowered:
    """`cf.switch`: an `llvm.switch` whose targets with arguments are reached through a
    block that branches with them."""
    assert isinstance(op, cf.SwitchOp)
    flag = b.value(op.flag)
    here = b.block

    def target(block: Block, arguments: Sequence[SSAValue]) -> Block:
        if not arguments:
            return b.blocks[block]
        trampoline = b.new_block()
        b.block = trampoline
        b.emit_void(llvm.BrOp(b.blocks[block], *[b.value(a) for a in arguments]))
        b.block = here
        return trampoline

    default = target(op.default_block, op.default_operands)
    values = op.case_values.get_values() if op.case_values is not None else ()
    flag_type = llvm_type(op.flag.type)
    assert isinstance(flag_type, IntegerType)
    cases = [
        (IntegerAttr(value, flag_type), target(block, operands))
        for value, block, operands in zip(values, op.case_blocks, op.case_operand, strict=True)
    ]
    b.emit_void(SwitchOp(flag, default, cases))
    return None


def _call(b: FunctionBuilder, op: Operation) -> Lowered:
    assert isinstance(op, func.CallOp)
    arguments = []
    for argument in op.arguments:
        if isinstance(argument.type, MemRefType):
            d = b.descriptor(argument)
            arguments += [d.allocated, d.aligned, b.materialise(d.offset)]
            arguments += [b.materialise(v) for v in (*d.sizes, *d.strides)]
        else:
            arguments.append(b.value(argument))
    if len(op.res) > 1:
        raise b.unsupported(op, "a call with more than one result")
    result = llvm_type(op.res[0].type) if op.res else None
    call = llvm.CallOp(op.callee.string_value(), *arguments, return_type=result)
    b.block.add_op(call)
    return list(call.results)


OP_LOWERINGS: dict[str, Lowering] = {
    **ARITH_LOWERINGS,
    **MATH_LOWERINGS,
    **MEMORY_LOWERINGS,
    **VECTOR_LOWERINGS,
    **ID_LOWERINGS,
    "gpu.return": _return,
    "func.return": _return,
    "func.call": _call,
    "cf.br": _branch,
    "cf.cond_br": _conditional_branch,
    "cf.switch": _switch,
    "memref.dealloc": lambda b, op: None,
}
"""Every op the embedded backend lowers inside a function, by name."""


def op_name(op: Operation) -> str:
    """The name of `op`, also for an unregistered op (`gpu.dynamic_shared_memory`)."""
    return op.op_name.data if isinstance(op, UnregisteredOp) else op.name


def function_signature(
    function: gpu.FuncOp | func.FuncOp, device: Device = DEFAULT_DEVICE
) -> llvm.LLVMFunctionType:
    """MLIR's calling convention: each memref argument is its expanded descriptor."""
    argument_types: list[Attribute] = []
    for input_type in function.function_type.inputs.data:
        if isinstance(input_type, MemRefType):
            ptr = pointer_type(input_type)
            rank = len(input_type.get_shape())
            argument_types += [ptr, ptr, i64, *([i64] * (2 * rank))]
        else:
            argument_types.append(llvm_type(input_type))
    outputs = function.function_type.outputs.data
    if len(outputs) > 1:
        raise GpuAllocPassError(
            f"the llvmlite {device.target.backend_name} backend cannot lower function "
            f"'{function.sym_name.data}' with "
            "more than one result (use backend=mlir)",
            function,
        )
    return llvm.LLVMFunctionType(argument_types, llvm_type(outputs[0]) if outputs else None)


def _bind_entry_arguments(
    b: FunctionBuilder, function: gpu.FuncOp | func.FuncOp, target: Block
) -> None:
    """The lowered function's arguments: each memref's expanded descriptor."""
    entry = function.body.blocks.first
    assert entry is not None
    arguments = function_arguments(function) if isinstance(function, gpu.FuncOp) else entry.args
    position = 0
    for argument in arguments:
        argument_type = argument.type
        if not isinstance(argument_type, MemRefType):
            b.values[argument] = target.args[position]
            position += 1
            continue
        shape = argument_type.get_shape()
        rank = len(shape)
        fields = target.args[position : position + 3 + 2 * rank]
        position += 3 + 2 * rank
        sizes: list[Index] = [
            s if s != DYNAMIC_INDEX else f for s, f in zip(shape, fields[3 : 3 + rank], strict=True)
        ]
        if isinstance(argument_type.layout, NoneAttr):
            # The identity layout promises offset 0 and row-major strides, as MLIR
            # assumes too: static ones fold into the addressing.
            offset, strides = 0, row_major_strides(sizes, b.mul)
        else:
            offset = fields[2]
            strides = list[Index](fields[3 + rank :])
        b.memrefs[argument] = MemrefDescriptor(fields[0], fields[1], offset, sizes, strides)


def _lower_function(function: gpu.FuncOp | func.FuncOp, module: _ModuleLowering) -> llvm.FuncOp:
    signature = function_signature(function, module.device)
    b = FunctionBuilder(function.sym_name.data, module.device, region=Region())
    for index, source in enumerate(function.body.blocks):
        if index == 0:
            target = Block(arg_types=signature.inputs.data)
        else:
            if any(isinstance(a.type, MemRefType) for a in source.args):
                raise b.unsupported(source, "a memref block argument")
            target = Block(arg_types=[llvm_type(a.type) for a in source.args])
            b.values.update(zip(source.args, target.args, strict=True))
        b.region.add_block(target)
        b.blocks[source] = target
    if (entry := function.body.blocks.first) is None:  # a declaration: nothing to lower
        raise b.unsupported(function, "a function declaration")
    b.block = b.blocks[entry]
    _bind_entry_arguments(b, function, b.block)
    _bind_attributions(b, function, module)
    for source, target in list(b.blocks.items()):
        b.block = target
        for op in source.ops:
            lowering = OP_LOWERINGS.get(op_name(op))
            if lowering is None:
                raise b.unsupported(op)
            results = lowering(b, op)
            if results is not None:
                b.values.update(zip(op.results, results, strict=True))
    module.callees.update(b.callees)
    module.needs_dynamic_shared |= b.needs_dynamic_shared
    kernel = is_kernel(function)
    linkage = "external" if kernel else module.device.target.abi.function_linkage
    lowered = llvm.FuncOp(
        function.sym_name.data, signature, linkage=llvm.LinkageAttr(linkage), body=b.region
    )
    if kernel:
        lowered.attributes[KERNEL_ATTRIBUTE] = UnitAttr()
    return lowered


def _bind_attributions(
    b: FunctionBuilder, function: gpu.FuncOp | func.FuncOp, module: _ModuleLowering
) -> None:
    """A `gpu.func`'s attributions, as MLIR lowers them: a workgroup one is a shared
    global of the module (`__wg_<function>_<k>`), a private one an `alloca` at the entry;
    both aligned to their `llvm.align`, else to their element."""
    for k, argument in enumerate(attributions(function)):
        memref_type = argument.type
        storage = attribution_storage(argument)
        size = static_byte_size(memref_type) if isinstance(memref_type, MemRefType) else None
        if storage is None or size is None:
            raise b.unsupported(function, "an attribution that is not a static memref")
        assert isinstance(memref_type, MemRefType)
        element = static_byte_size(MemRefType(memref_type.element_type, [1])) or 1
        alignment = attribution_alignment(argument) or element
        if storage.is_shared:
            symbol = module.fresh_symbol(f"__wg_{function.sym_name.data}_{k}")
            module.globals.append(
                llvm.GlobalOp(
                    llvm.LLVMArrayType(IntAttr(size), i8),
                    symbol,
                    "internal",
                    addr_space=module.device.target.spaces.shared,
                    alignment=alignment,
                )
            )
            pointer = b.emit(llvm.AddressOfOp(symbol, pointer_type(memref_type)))
        else:
            count = b.constant(size // element)
            pointer = emit_alloca(b, count, llvm_type(memref_type.element_type), alignment)
        sizes: list[Index] = list(memref_type.get_shape())
        b.memrefs[argument] = MemrefDescriptor(
            pointer, pointer, 0, sizes, row_major_strides(sizes, b.mul)
        )


class _ModuleLowering:
    """Lowers one `gpu.module` into a `builtin.module` of LLVM dialect ops."""

    def __init__(self, gpu_module: gpu.ModuleOp, device: Device):
        self.gpu_module = gpu_module
        self.device = device
        self.needs_dynamic_shared = False
        self.callees: dict[str, llvm.LLVMFunctionType] = {}
        self.globals: list[Operation] = []
        """Globals made while lowering functions (workgroup attributions)."""
        self._symbols = {
            name.data
            for op in gpu_module.body.ops
            if isinstance(
                name := op.properties.get("sym_name", op.attributes.get("sym_name")), StringAttr
            )
        }

    def fresh_symbol(self, wanted: str) -> str:
        name = unique_name(wanted, self._symbols)
        self._symbols.add(name)
        return name

    def lower(self) -> ModuleOp:
        ops: list[Operation] = []
        for op in self.gpu_module.body.ops:
            match op:
                case memref.GlobalOp():
                    ops.append(_global(op, self.device))
                case gpu.FuncOp() | func.FuncOp():
                    ops.append(_lower_function(op, self))
                case _:
                    raise GpuAllocPassError(
                        f"the llvmlite {self.device.target.backend_name} backend cannot lower "
                        f"'{op.name}' in gpu.module "
                        f"'{self.gpu_module.sym_name.data}' (use backend=mlir)",
                        op,
                    )
        ops[0:0] = self.globals
        for name, signature in sorted(self.callees.items()):
            declaration = llvm.FuncOp(name, signature, linkage=llvm.LinkageAttr("external"))
            ops.insert(0, declaration)
        if self.needs_dynamic_shared:
            ops.insert(
                0,
                llvm.GlobalOp(
                    llvm.LLVMArrayType(IntAttr(0), i8),
                    DYNAMIC_SHARED_SYMBOL,
                    "external",
                    addr_space=self.device.target.spaces.shared,
                    alignment=16,
                ),
            )
        return ModuleOp(ops)


def _global(op: memref.GlobalOp, device: Device) -> llvm.GlobalOp:
    memref_type = op.type
    size = static_byte_size(memref_type)
    if size is None or not isinstance(op.initial_value, UnitAttr):
        raise GpuAllocPassError(
            f"the llvmlite {device.target.backend_name} backend lowers only uninitialised "
            "static memref.globals, "
            f"not '{op.sym_name.data}' (use backend=mlir)",
            op,
        )
    # As MLIR's lowering: at least the element's alignment (an i8 array alone gets 1, and
    # the global is accessed as its element type: 8-byte accesses of an i64 global).
    element = static_byte_size(MemRefType(memref_type.element_type, [1])) or 1
    natural = 1 << (element - 1).bit_length()  # a power of two
    given = 1 if op.alignment is None else op.alignment.value.data
    return llvm.GlobalOp(
        llvm.LLVMArrayType(IntAttr(size), i8),
        op.sym_name.data,
        "internal",
        addr_space=address_space(memref_type),
        alignment=max(given, natural),
        value=None,
    )


def lower_gpu_module_to_llvm(gpu_module: gpu.ModuleOp, device: Device = DEFAULT_DEVICE) -> ModuleOp:
    """The LLVM dialect form of `gpu_module` for `device`; the input is not modified."""
    wrapper = ModuleOp([cloned(gpu_module)])
    map_memory_spaces(wrapper, device.target.spaces)
    PatternRewriteWalker(WhileLowering()).rewrite_module(wrapper)
    ConvertScfToCf().apply(Context(), wrapper)
    lowered = wrapper.body.block.first_op
    assert isinstance(lowered, gpu.ModuleOp)
    return _ModuleLowering(lowered, device).lower()


__all__ = [
    "OP_LOWERINGS",
    "MemrefDescriptor",
    "lower_gpu_module_to_llvm",
]
