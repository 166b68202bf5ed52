"""The IR contract's memory spaces as the target's LLVM address spaces, or as MLIR's
spelled GPU address spaces.

The embedded backend numbers a memref's memory space as its LLVM address space. On NVIDIA
and AMD the contract's numbers (none: generic, 1 global, 3 shared, 5 private) already are
the target's; on SPIR-V a memref without a space is a CrossWorkgroup buffer (1) and
private memory is Function storage (0). `map_memory_spaces` rewrites every memref type
of a module (results, block arguments, attributes: function types, globals), in either
spelling (`5 : i32`, `#gpu.address_space<private>`), to the target's numbers (only once:
SPIR-V's private 0 would read back as generic).

MLIR's SPIR-V lowering takes a memref's number as its address space, but makes 0 (and no
space) global and refuses spelled spaces it meets outside attributions:
`number_memory_spaces` writes the contract's numbers for spelled spaces, and
`renumber_address_spaces` then moves private memory (contract 5) to the target's
address space in the LLVM IR MLIR made.
"""

from __future__ import annotations

from gpu_alloc.dialect import memory_space_of
from gpu_alloc.dialect.memory import (
    ATTRIBUTION_ATTRS,
    attribution_alignment,
    attribution_storage,
    attributions,
)
from gpu_alloc.lowering.alloc_patterns import unique_symbol
from gpu_alloc.provenance import DerivingPattern
from gpu_alloc.syntax.mlir_gpu import is_dynamic_shared_memory
from gpu_alloc.syntax.mlir_gpu_kernels import WORKGROUP_ATTRIBUTIONS
from gpu_alloc.targets import AddressSpaces
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import (
    IntegerAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    i32,
)
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    TypeConversionPattern,
)
from xdsl.rewriter import InsertPoint, Rewriter


class _SpaceConversion(TypeConversionPattern):
    recursive = True

    def __init__(self, spaces: AddressSpaces | None):
        self.spaces = spaces
        """None: write the contract's own numbers for spelled spaces."""

    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        if not isinstance(typ, MemRefType):
            return None
        space = typ.memory_space
        number = 0 if isinstance(space, NoneAttr) else memory_space_of(typ)
        if number is None:
            return None
        target = number if self.spaces is None else self.spaces.llvm_space(number)
        if target is None or (target == number and isinstance(space, IntegerAttr | NoneAttr)):
            return None
        return MemRefType(typ.element_type, typ.get_shape(), typ.layout, IntegerAttr(target, i32))


class _KeepingDynamicSharedMemory(RewritePattern):
    """The conversion on every op but `gpu.dynamic_shared_memory`, whose type MLIR fixes
    (`#gpu.address_space<workgroup>`)."""

    def __init__(self, conversion: _SpaceConversion):
        self.conversion = conversion

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not is_dynamic_shared_memory(op):
            self.conversion.match_and_rewrite(op, rewriter)


def _rewrite(op: Operation, pattern: _SpaceConversion) -> None:
    # Deriving: an op rebuilt with the new types keeps the user's location for diagnostics.
    walker = PatternRewriteWalker(
        DerivingPattern(_KeepingDynamicSharedMemory(pattern)), apply_recursively=False
    )
    for region in op.regions:
        walker.rewrite_region(region)


def map_memory_spaces(op: Operation, spaces: AddressSpaces) -> None:
    """Renumbers every memref type inside `op` as `spaces` says (in place)."""
    _rewrite(op, _SpaceConversion(spaces))


def number_memory_spaces(op: Operation) -> None:
    """Writes every spelled memref space inside `op` as the contract's number (in place).

    `gpu.dynamic_shared_memory` keeps the spelled type MLIR requires; its users get the
    numbered one through an `unrealized_conversion_cast` (both lower to the same LLVM
    descriptor, so the cast reconciles away), else a `memref.view` of it would have a base
    and a view in different memory spaces, which MLIR refuses."""
    conversion = _SpaceConversion(None)
    _rewrite(op, conversion)
    for dynamic in [o for o in op.walk() if is_dynamic_shared_memory(o)]:
        spelled = dynamic.results[0]
        numbered = conversion.convert_type(spelled.type)
        if numbered is None or not spelled.uses:
            continue
        cast = UnrealizedConversionCastOp.get([spelled], [numbered])
        Rewriter.insert_op(cast, InsertPoint.after(dynamic))
        for use in [u for u in spelled.uses if u.operation is not cast]:
            use.operation.operands[use.index] = cast.results[0]


def renumber_address_spaces(llvm_ir: str, renumbered: dict[int, int]) -> str:
    """`llvm_ir` with each `addrspace(N)` of `renumbered` written as the target's."""
    for source, target in renumbered.items():
        llvm_ir = llvm_ir.replace(f"addrspace({source})", f"addrspace({target})")
    return llvm_ir


def attributions_as_buffers(op: Operation) -> None:
    """Each `gpu.func` attribution inside `op` as the buffer it stands for: a private one a
    `memref.alloca` at the entry, a workgroup one a `memref.global` of the `gpu.module`
    read with `memref.get_global` (the same storage, aligned as the attribution says),
    for MLIR lowerings whose own treatment of attributions differs from the embedded
    backend's (SPIR-V: workgroup ones become `__local` kernel arguments)."""
    for function in [f for f in op.walk() if isinstance(f, gpu.FuncOp)]:
        table = function.parent_op()
        entry = function.body.blocks[0] if function.body.blocks else None
        if entry is None or not isinstance(table, gpu.ModuleOp):
            continue
        for argument in reversed(list(attributions(function))):
            memref_type = argument.type
            assert isinstance(memref_type, MemRefType)
            alignment = attribution_alignment(argument)
            storage = attribution_storage(argument)
            if storage is not None and storage.is_shared:
                symbol = unique_symbol(table, f"{function.sym_name.data}__{argument.index}")
                global_op = memref.GlobalOp.get(
                    StringAttr(symbol), memref_type, UnitAttr(), alignment=alignment
                )
                Rewriter.insert_op(global_op, InsertPoint.before(function))
                buffer: Operation = memref.GetGlobalOp(symbol, memref_type)
            else:
                buffer = memref.AllocaOp.get(
                    memref_type.element_type,
                    alignment=alignment,
                    shape=memref_type.get_shape(),
                    layout=memref_type.layout,
                    memory_space=memref_type.memory_space,
                )
            Rewriter.insert_op(buffer, InsertPoint.at_start(entry))
            argument.replace_all_uses_with(buffer.results[0])
            entry.erase_arg(argument)
        for key in (*ATTRIBUTION_ATTRS, WORKGROUP_ATTRIBUTIONS):
            function.attributes.pop(key, None)
