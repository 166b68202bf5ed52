"""The embedded PTX backend: xDSL's LLVM backend + llvmlite's NVPTX target, in-process.

xDSL 0.75's `xdsl.backend.llvm` translates most of what `to_llvm` emits, but has three
gaps for NVPTX that this module closes from the outside, reusing xDSL's public
`convert_op` / `convert_type` for everything else:

1. `llvm.getelementptr` on a pointer outside address space 0: xDSL bitcasts the pointer
   to an address-space-0 typed pointer first, which LLVM rejects ("invalid cast").
   Here GEPs are built on the pointer as it is (opaque pointers need no cast).
   Upstream fix: in `_convert_getelementptr`, drop the bitcast and call
   `builder.gep(ptr, indices, source_etype=...)` on the original pointer.
2. No kernel marking: `llvm.func` has no `ptx_kernel` calling convention in xDSL and
   the translation ignores `cconv`. Functions with MLIR's `nvvm.kernel` attribute get
   `ptx_kernel` here. Upstream fix: add `ptx_kernel` to `LLVM_CALLING_CONVS` and set
   `fn.calling_convention` from `op.CConv` in `_declare_func`.
3. Global alignment (and the `undef` initialiser of an uninitialised internal global)
   is dropped by `_convert_global`, so a 16-byte aligned shared buffer comes out
   aligned to 1. Here globals keep both. Upstream fix: copy `op.alignment` to
   `gvar.align` in `_convert_global` (and `ir.Undefined` when `value` is absent and the
   linkage is not external).

Plus the casts of `llvm_extras` that xDSL's `llvm` dialect lacks.
"""

from __future__ import annotations

import llvmlite.binding as llvm_binding
import llvmlite.ir as ir
from gpu_alloc.lowering.llvm_extras import EXTRA_CASTS
from gpu_alloc.lowering.to_llvm import KERNEL_ATTRIBUTE
from xdsl.backend.llvm.convert_op import convert_op
from xdsl.backend.llvm.convert_type import convert_type
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"

_initialised = False


def _initialise_llvm() -> None:
    global _initialised
    if not _initialised:
        llvm_binding.initialize_all_targets()
        llvm_binding.initialize_all_asmprinters()
        _initialised = True


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


def _convert(
    op: Operation,
    builder: ir.IRBuilder,
    values: dict[SSAValue, ir.Value],
    blocks: dict[Block, ir.Block],
) -> None:
    if isinstance(op, llvm.GEPOp):
        _convert_gep(op, builder, values)
    elif type(op) in EXTRA_CASTS:
        emit = getattr(builder, EXTRA_CASTS[type(op)])  # pyright: ignore[reportArgumentType]
        values[op.results[0]] = emit(values[op.operands[0]], convert_type(op.results[0].type))
    else:
        convert_op(op, builder, values, blocks)


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


def _convert_function(op: llvm.FuncOp, module: ir.Module) -> None:
    """Gap 2: `nvvm.kernel` becomes the `ptx_kernel` calling convention."""
    function_type = ir.FunctionType(
        convert_type(op.function_type.output),
        [convert_type(t) for t in op.function_type.inputs],
    )
    function = ir.Function(module, function_type, name=op.sym_name.data)
    if KERNEL_ATTRIBUTE in op.attributes:
        function.calling_convention = "ptx_kernel"
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
            _convert(block_op, builder, values, blocks)


def translate_to_llvmlite(module: ModuleOp, data_layout: str = "") -> ir.Module:
    """The llvmlite module of an LLVM dialect module made by `to_llvm`."""
    result = ir.Module()
    result.triple = NVPTX_TRIPLE
    result.data_layout = data_layout
    for op in module.ops:
        if isinstance(op, llvm.GlobalOp):
            _convert_global(op, result)
    for op in module.ops:
        if isinstance(op, llvm.FuncOp):
            _convert_function(op, result)
    return result


def nvptx_target_machine(chip: str, features: str) -> llvm_binding.TargetMachine:
    _initialise_llvm()
    target = llvm_binding.Target.from_triple(NVPTX_TRIPLE)
    return target.create_target_machine(cpu=chip, features=features, opt=2)


def compile_to_ptx(module: ModuleOp, chip: str, features: str) -> str:
    """PTX for an LLVM dialect module, optimised at -O2 like MLIR's pipeline."""
    machine = nvptx_target_machine(chip, features)
    llvm_ir = translate_to_llvmlite(module, str(machine.target_data))
    parsed = llvm_binding.parse_assembly(str(llvm_ir))
    parsed.verify()
    options = llvm_binding.create_pipeline_tuning_options(speed_level=2)
    pass_builder = llvm_binding.create_pass_builder(machine, options)
    pass_builder.getModulePassManager().run(parsed, pass_builder)
    return machine.emit_assembly(parsed)
