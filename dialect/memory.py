"""What memory a buffer is, and whose: the one answer for every form of the IR.

A kernel's buffers come in many spellings: the `gpu_alloc` dialect's `alloc`, MLIR's
`memref.alloc`/`alloca`/`memref.global` (+ `get_global`) in an integer memory space or
a `#gpu.address_space`, `gpu.func`/`gpu.launch` workgroup and private attributions,
`gpu.dynamic_shared_memory`, and kernel arguments. Every pass, tool and the simulator
asks this module what each of them is:

- its *space* (`MemorySpace`: global, shared (workgroup), private), read from the memref
  type in any spelling `dialect.spellings` classifies (the IR contract's NVVM numbers
  1, 3, 5, `#gpu.address_space`, `#spirv.storage_class`, `#nvvm.memory_space`, ...; no
  space, generic or constant memory is `None`: the target's default, global, memory); a
  spelling it cannot classify on an allocation is `unclassified_allocation`, which
  passes, the lowering and the simulator report instead of passing the buffer over;
- its *scope* (`Scope`): whose storage one execution of the op makes: one thread's
  (private memory, a device-side `memref.alloc`/`alloca` in global memory, as MLIR
  lowers it), one block's (shared memory in any form, and `gpu_alloc` heap scratch:
  the IR contract's per-block storage), or the whole launch's (kernel arguments and
  global `memref.global`s).

Nothing here is specific to a vendor: the numbers are the IR contract's, which a
target maps to its own address spaces. Which code is block level is the business of
`gpu_alloc.transforms` (one definition there); this module only reads ops and types.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from gpu_alloc.dialect.ops import AliasOp, AllocOp, MemorySpace, OffsetPointerOp, memory_space_of
from gpu_alloc.dialect.spellings import unclassified
from gpu_alloc.syntax.mlir_gpu import is_dynamic_shared_memory
from gpu_alloc.syntax.mlir_gpu_kernels import LAUNCH_CONFIG_ARGUMENTS, workgroup_count
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, IntegerAttr, MemRefType, i32
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue


class Scope(Enum):
    """Whose storage one execution of an allocation makes."""

    THREAD = "per thread"
    """Each thread that executes the op gets its own bytes."""
    BLOCK = "per block"
    """Each thread block gets its own bytes, shared by its threads."""
    LAUNCH = "launch-wide"
    """One buffer for every block of the launch."""


@dataclass(frozen=True)
class Storage:
    """What memory a buffer is (`space`; None: the default, global, memory) and whose."""

    space: MemorySpace | None
    scope: Scope

    @property
    def is_shared(self) -> bool:
        return self.space is MemorySpace.SHARED


def space_of(type_: Attribute) -> MemorySpace | None:
    """The memory space of a memref type, in either spelling; None for a type that is
    not a memref, has no memory space, or one outside the IR contract's."""
    number = memory_space_of(type_)
    return MemorySpace(number) if number in _NUMBERS else None


_NUMBERS = frozenset(int(s) for s in MemorySpace)


def is_workgroup_type(type_: Attribute) -> bool:
    return space_of(type_) is MemorySpace.SHARED


_ALLOCATING = (AllocOp, memref.AllocOp, memref.AllocaOp, memref.GlobalOp, memref.GetGlobalOp)
"""The ops that make (or, `get_global`, name) a buffer whose storage the memref type says."""


def allocation_storage(op: Operation) -> Storage | None:
    """The storage one execution of `op` makes, if `op` allocates (or names) a buffer:

    | op | shared | private | global or none |
    |---|---|---|---|
    | `gpu_alloc.alloc` (backings included) | block | thread | block (heap scratch) |
    | `memref.alloc`, `memref.alloca` | block | thread | thread (device `malloc`, stack) |
    | `memref.global`, `memref.get_global` | block | thread | launch |
    | `gpu.dynamic_shared_memory` | block | | |

    None for any other op (a view, a cast: ask about its source)."""
    if is_dynamic_shared_memory(op):
        return Storage(MemorySpace.SHARED, Scope.BLOCK)
    if not isinstance(op, _ALLOCATING):
        return None
    space = space_of(op.type if isinstance(op, memref.GlobalOp) else op.results[0].type)
    if space is MemorySpace.SHARED:
        return Storage(space, Scope.BLOCK)
    if space is MemorySpace.PRIVATE:
        return Storage(space, Scope.THREAD)
    if isinstance(op, AllocOp):
        return Storage(space, Scope.BLOCK)
    if isinstance(op, memref.GlobalOp | memref.GetGlobalOp):
        return Storage(space, Scope.LAUNCH)
    return Storage(space, Scope.THREAD)


# ------------------------------------------------------------------------- attributions


def attribution_start(op: gpu.FuncOp | func.FuncOp | gpu.LaunchOp) -> int:
    """The index of the first attribution among `op`'s entry block arguments (after a
    function's inputs: a `func.func` has none after them, or a `gpu.launch`'s ids and
    sizes)."""
    if isinstance(op, gpu.LaunchOp):
        return LAUNCH_CONFIG_ARGUMENTS
    return len(op.function_type.inputs.data)


def attributions(op: Operation) -> Sequence[BlockArgument]:
    """A `gpu.func`'s or `gpu.launch`'s workgroup then private attributions."""
    if not isinstance(op, gpu.FuncOp | gpu.LaunchOp) or not op.body.blocks:
        return ()
    return op.body.blocks[0].args[attribution_start(op) :]


def function_arguments(op: gpu.FuncOp | func.FuncOp) -> Sequence[BlockArgument]:
    """A kernel's arguments proper: its entry block arguments but the attributions."""
    if not op.body.blocks:
        return ()
    return op.body.blocks[0].args[: attribution_start(op)]


def attribution_storage(argument: BlockArgument) -> Storage | None:
    """Workgroup attributions are per block, private ones per thread; None for a block
    argument that is not an attribution."""
    owner = argument.block.parent_op()
    if owner is None or argument.block is not owner.regions[0].blocks.first:
        return None
    if not isinstance(owner, gpu.FuncOp | gpu.LaunchOp):
        return None
    start = attribution_start(owner)
    if argument.index < start:
        return None
    if argument.index < start + workgroup_count(owner):
        return Storage(MemorySpace.SHARED, Scope.BLOCK)
    return Storage(MemorySpace.PRIVATE, Scope.THREAD)


ATTRIBUTION_ATTRS = ("workgroup_attrib_attrs", "private_attrib_attrs")
"""MLIR's per-attribution attribute dictionaries of a `gpu.func`/`gpu.launch`."""


def attribution_alignment(argument: BlockArgument) -> int | None:
    """The alignment MLIR's `llvm.align` gives an attribution, if any."""
    owner = argument.block.parent_op()
    if attribution_storage(argument) is None or not isinstance(owner, gpu.FuncOp | gpu.LaunchOp):
        return None
    position = argument.index - attribution_start(owner)
    n_workgroup = workgroup_count(owner)
    key = ATTRIBUTION_ATTRS[position >= n_workgroup]
    position -= n_workgroup if position >= n_workgroup else 0
    entries = owner.attributes.get(key)
    if not isinstance(entries, ArrayAttr) or position >= len(entries.data):
        return None
    entry = entries.data[position]
    align = entry.data.get("llvm.align") if isinstance(entry, DictionaryAttr) else None
    return align.value.data if isinstance(align, IntegerAttr) else None


def storage_of(value: SSAValue) -> Storage | None:
    """The storage `value` is the base of: an allocation's result (see
    `allocation_storage`), an alias of a backing (the backing's), an attribution, or a
    `gpu.func` kernel argument (launch-wide). None for a view or any other value."""
    if isinstance(value, BlockArgument):
        if (found := attribution_storage(value)) is not None:
            return found
        owner = value.block.parent_op()
        if (
            isinstance(owner, gpu.FuncOp)
            and value.block is owner.body.blocks.first
            and isinstance(value.type, MemRefType)
        ):
            return Storage(space_of(value.type), Scope.LAUNCH)
        return None
    owner = value.owner
    assert isinstance(owner, Operation)
    if isinstance(owner, AliasOp):
        pointer = owner.pointer.owner
        if isinstance(pointer, OffsetPointerOp):
            return storage_of(pointer.backing)
        return None
    return allocation_storage(owner)


# ------------------------------------------------------------ unclassified spellings


@dataclass(frozen=True)
class UnclassifiedSpace:
    """An allocation (or attribution, at its function) whose memref memory space
    `dialect.spellings` has no meaning for: it may be workgroup memory, so no pass may
    take it for global memory and pass it over."""

    op: Operation
    space: Attribute

    def message(self, what: str) -> str:
        return (
            f"{what}: {self.op.name} allocates a memref in memory space {self.space}, "
            "which is none of the spellings read as global, workgroup or private memory "
            "(see gpu_alloc.dialect.spellings)"
        )


def _walk(root: Operation) -> Iterable[Operation]:
    """`root` and every op nested in it, without recursion (deep kernels)."""
    stack = [root]
    while stack:
        op = stack.pop()
        yield op
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                stack.extend(reversed(list(block.ops)))


def unclassified_allocation(module: Operation) -> UnclassifiedSpace | None:
    """The first allocation of `module` (`allocation_storage`'s ops, `gpu.func` and
    `gpu.launch` attributions) in a memory space `dialect.spellings` cannot classify."""
    for op in _walk(module):
        if isinstance(op, _ALLOCATING):
            type_ = op.type if isinstance(op, memref.GlobalOp) else op.results[0].type
            types = [type_]
        else:
            types = [a.type for a in attributions(op)]
        for type_ in types:
            if isinstance(type_, MemRefType) and unclassified(type_.memory_space):
                return UnclassifiedSpace(op, type_.memory_space)
    return None


# -------------------------------------------------------------------------- spellings


def integer_space(space: int) -> IntegerAttr:
    """The IR contract's spelling of `space`: `3 : i32`."""
    return IntegerAttr(int(space), i32)


def spelling_for(space: int, types: Iterable[Attribute]) -> Attribute:
    """The memory space attribute a new buffer of `space` made for buffers of `types`
    gets: their spelling when they all agree (so views of it keep the user's types),
    else the IR contract's integer one."""
    spellings = {t.memory_space for t in types if isinstance(t, MemRefType)}
    if len(spellings) == 1:
        (spelling,) = spellings
        if memory_space_of(MemRefType(i32, [1], memory_space=spelling)) == int(space):
            return spelling
    return integer_space(space)


def view_ops(
    source: SSAValue, byte_shift: SSAValue, sizes: Sequence[SSAValue], result_type: MemRefType
) -> list[Operation]:
    """A `memref.view` of the byte buffer `source` as `result_type`: MLIR's view keeps its
    source's memory space attribute, so a result that spells the space otherwise (`3 :
    i32` against `#gpu.address_space<workgroup>`) is the view cast to it. The last op's
    result is the view."""
    source_type = source.type
    assert isinstance(source_type, MemRefType)
    view_type = MemRefType(
        result_type.element_type, result_type.shape, result_type.layout, source_type.memory_space
    )
    ops: list[Operation] = [memref.ViewOp(source, byte_shift, list(sizes), view_type)]
    if view_type != result_type:
        ops.append(memref.MemorySpaceCastOp(ops[0].results[0], result_type))
    return ops


__all__ = [
    "MemorySpace",
    "Scope",
    "Storage",
    "UnclassifiedSpace",
    "ATTRIBUTION_ATTRS",
    "allocation_storage",
    "attribution_alignment",
    "attribution_start",
    "attribution_storage",
    "attributions",
    "function_arguments",
    "integer_space",
    "is_workgroup_type",
    "space_of",
    "spelling_for",
    "storage_of",
    "unclassified_allocation",
    "view_ops",
]
