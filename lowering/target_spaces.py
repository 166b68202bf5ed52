"""The IR contract's memory spaces renumbered as the target's LLVM address spaces.

Both backends number a memref's memory space as its LLVM address space. On NVIDIA and
AMD the contract's numbers (none: generic, 1 global, 3 shared, 5 private) already are
the target's; on SPIR-V a memref without a space is a CrossWorkgroup buffer (1) and
private memory is Function storage (0). `map_memory_spaces` rewrites every memref type
of a module (results, block arguments, attributes: function types, globals) to the
target's numbers, and does nothing where they are the same.
"""

from __future__ import annotations

from gpu_alloc.targets import AddressSpaces
from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr, i32
from xdsl.ir import Attribute, Operation
from xdsl.pattern_rewriter import PatternRewriteWalker, TypeConversionPattern

CONTRACT_SPACES = (0, 1, 3, 5)


def is_identity(spaces: AddressSpaces) -> bool:
    return all(spaces.llvm_space(space) == space for space in CONTRACT_SPACES)


class _SpaceConversion(TypeConversionPattern):
    recursive = True

    def __init__(self, spaces: AddressSpaces):
        self.spaces = spaces

    def convert_type(self, typ: Attribute, /) -> Attribute | None:
        if not isinstance(typ, MemRefType):
            return None
        space = typ.memory_space
        if isinstance(space, NoneAttr):
            number = 0
        elif isinstance(space, IntegerAttr):
            number = space.value.data
        else:
            return None  # `#gpu.address_space<...>`: the backends read it themselves
        mapped = self.spaces.llvm_space(number)
        if mapped is None or mapped == number:
            return None
        return MemRefType(typ.element_type, typ.get_shape(), typ.layout, IntegerAttr(mapped, i32))


def map_memory_spaces(op: Operation, spaces: AddressSpaces) -> None:
    """Renumbers every memref type inside `op` as `spaces` says (in place)."""
    if is_identity(spaces):
        return
    walker = PatternRewriteWalker(_SpaceConversion(spaces), apply_recursively=False)
    for region in op.regions:
        walker.rewrite_region(region)
