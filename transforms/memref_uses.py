"""Classify the users of an allocation's memref, through views and pointers.

Passes that reason about an allocation (is it ever read? may it be re-shaped?) need
to see every access of its storage, including accesses made through a view of it
(`memref.subview`, `memref.cast`, ...) and, for a backing buffer, through the
`gpu_alloc.alias` ops that its `gpu_alloc.offset_pointer`s feed. `memref_accesses`
yields each such access with a `UseKind`; anything it does not understand is an
`ESCAPE`, which callers must treat as "may read and write anything".
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum, auto

from gpu_alloc.dialect.ops import AliasOp, DeallocOp, OffsetPointerOp
from gpu_alloc.transforms.kernel_ir import VIEW_OPS
from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue, Use


class UseKind(Enum):
    """What one user does with the storage of a memref."""

    READ = auto()
    """Reads elements (a load, the source of a copy, an atomic read-modify-write)."""
    WRITE = auto()
    """Only writes elements (a store, the target of a copy)."""
    FREE = auto()
    """Ends the lifetime (`gpu_alloc.dealloc`)."""
    VIEW = auto()
    """Makes another memref over the same storage; its users are visited too."""
    POINTER = auto()
    """A `gpu_alloc.offset_pointer` into this backing; its aliases are users of it."""
    ALIAS = auto()
    """A `gpu_alloc.alias` whose storage a pointer gives (only for pointer values)."""
    ESCAPE = auto()
    """Anything else: a call, a launch, an unknown op. Assume it reads and writes."""


def classify_use(use: Use) -> UseKind:
    """The kind of one use of a memref (or `!gpu_alloc.ptr`) value."""
    op = use.operation
    if isinstance(op, memref.LoadOp):
        return UseKind.READ
    if isinstance(op, memref.StoreOp):
        return UseKind.WRITE if use.index == 1 else UseKind.ESCAPE
    if isinstance(op, memref.CopyOp):
        return UseKind.READ if use.index == 0 else UseKind.WRITE
    if isinstance(op, memref.AtomicRMWOp):
        return UseKind.READ
    if isinstance(op, DeallocOp):
        return UseKind.FREE
    if isinstance(op, VIEW_OPS) and use.index == 0:
        return UseKind.VIEW
    if isinstance(op, OffsetPointerOp) and use.index == 0:
        return UseKind.POINTER
    if isinstance(op, AliasOp) and use.index == 0:
        return UseKind.ALIAS
    return UseKind.ESCAPE


@dataclass(frozen=True)
class MemrefAccess:
    """One use of `value`, which is the allocation itself or a view of it."""

    op: Operation
    value: SSAValue
    kind: UseKind


def memref_accesses(value: SSAValue) -> Iterator[MemrefAccess]:
    """Every direct or through-a-view use of `value`'s storage.

    Views are yielded (kind VIEW) before their own users. Pointers are yielded (kind
    POINTER) but not followed: a backing's aliases are separate allocations, see
    `aliases_of_backing`.
    """
    for use in tuple(value.uses):
        kind = classify_use(use)
        yield MemrefAccess(use.operation, value, kind)
        if kind is UseKind.VIEW:
            for result in use.operation.results:
                yield from memref_accesses(result)


def aliases_of_pointer(pointer: SSAValue) -> tuple[list[AliasOp], bool]:
    """The aliases a pointer feeds, and whether it has any other (escaping) user."""
    aliases: list[AliasOp] = []
    escapes = False
    for use in pointer.uses:
        if classify_use(use) is UseKind.ALIAS:
            assert isinstance(use.operation, AliasOp)
            aliases.append(use.operation)
        else:
            escapes = True
    return aliases, escapes
