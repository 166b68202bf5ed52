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

from gpu_alloc.dialect.mlir_gpu import space_number
from gpu_alloc.targets import AddressSpaces
from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr, i32
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriteWalker, TypeConversionPattern


class _SpaceConversion(TypeConversionPattern):
    recursive = True

    def __init__(self, spaces: AddressSpaces | None):
        self.spaces = spaces
        """None: write the contract's own numbers for spelled spaces."""

    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        if not isinstance(typ, MemRefType):
            return None
        space = typ.memory_space
        number = 0 if isinstance(space, NoneAttr) else space_number(space)
        if number is None:
            return None
        target = number if self.spaces is None else self.spaces.llvm_space(number)
        if target is None or (target == number and isinstance(space, IntegerAttr | NoneAttr)):
            return None
        return MemRefType(typ.element_type, typ.get_shape(), typ.layout, IntegerAttr(target, i32))


def _rewrite(op: Operation, pattern: _SpaceConversion) -> None:
    walker = PatternRewriteWalker(pattern, apply_recursively=False)
    for region in op.regions:
        walker.rewrite_region(region)


def map_memory_spaces(op: Operation, spaces: AddressSpaces) -> None:
    """Renumbers every memref type inside `op` as `spaces` says (in place)."""
    _rewrite(op, _SpaceConversion(spaces))


def number_memory_spaces(op: Operation) -> None:
    """Writes every spelled memref space inside `op` as the contract's number (in place)."""
    _rewrite(op, _SpaceConversion(None))


def renumber_address_spaces(llvm_ir: str, renumbered: dict[int, int]) -> str:
    """`llvm_ir` with each `addrspace(N)` of `renumbered` written as the target's."""
    for source, target in renumbered.items():
        llvm_ir = llvm_ir.replace(f"addrspace({source})", f"addrspace({target})")
    return llvm_ir
