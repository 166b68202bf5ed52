"""`remove-dead-allocs`: drop allocations and aliases whose contents are never read."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect.ops import AliasOp, AllocOp, OffsetPointerOp
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.transforms.iv_conditions import constant_int
from gpu_alloc.transforms.kernel_ir import walk_ops
from gpu_alloc.transforms.memref_uses import (
    UseKind,
    aliases_of_pointer,
    memref_accesses,
)
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def _read_through(value: SSAValue) -> bool:
    """Whether an access of `value` or of a view of it may observe the contents.

    Pointers are not followed (see `_backing_read`); a `memref.dim` counts, since the
    value it reads cannot be erased with the storage."""
    return any(
        access.kind.reads or access.kind is UseKind.META
        for access in memref_accesses(value)
        if access.kind is not UseKind.POINTER
    )


def _aliases_of_backing(backing: SSAValue) -> tuple[list[AliasOp], bool]:
    """Every alias carved from `backing`, and whether any of its pointers escapes."""
    aliases: list[AliasOp] = []
    escapes = False
    for access in memref_accesses(backing):
        if access.kind is UseKind.POINTER:
            pointer_aliases, pointer_escapes = aliases_of_pointer(access.op.results[0])
            aliases += pointer_aliases
            escapes |= pointer_escapes
    return aliases, escapes


def _byte_range(alias: AliasOp) -> tuple[SSAValue | None, int, int] | None:
    """(base, first byte, end byte) of an alias within its backing, the offset being
    `base + constant` (base None: a constant offset); None if it is not known."""
    pointer = alias.pointer.owner
    memref_type = alias.memref.type
    if not isinstance(pointer, OffsetPointerOp) or not isinstance(memref_type, MemRefType):
        return None
    size = static_byte_size(memref_type)
    if size is None:
        return None
    offset = pointer.offset
    if (constant := constant_int(offset)) is not None:
        return None, constant, constant + size
    owner = offset.owner
    if isinstance(owner, arith.AddiOp):
        for base, addend in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            if (constant := constant_int(addend)) is not None:
                return base, constant, constant + size
    return offset, 0, size


def _may_overlap(a: AliasOp, b: AliasOp) -> bool:
    range_a, range_b = _byte_range(a), _byte_range(b)
    if range_a is None or range_b is None or range_a[0] is not range_b[0]:
        return True
    return range_a[1] < range_b[2] and range_b[1] < range_a[2]


def _backing_of(alias: AliasOp) -> SSAValue | None:
    pointer = alias.pointer.owner
    return pointer.backing if isinstance(pointer, OffsetPointerOp) else None


def is_read(storage: SSAValue) -> bool:
    """Whether the contents of an allocation or alias may be observed.

    They may if any access, directly or through a view, reads them or escapes (a call,
    a launch, an unknown op). Aliases are views of their backing's bytes: an alias is
    also read when its backing is read directly or through an escaping pointer, or
    when another alias of the same backing whose bytes may overlap its own is read
    (offsets that are not `constant` or `base + constant` over one base, and dynamic
    sizes, may overlap anything). A backing is read when it is read directly, when
    one of its pointers escapes, or when any of its aliases is read; a backing whose
    aliases are all dead does not stay for their sake.
    """
    if _read_through(storage):
        return True
    owner = storage.owner
    if isinstance(owner, AliasOp):
        backing = _backing_of(owner)
        if backing is None:
            return True
        aliases, escapes = _aliases_of_backing(backing)
        return (
            escapes
            or _read_through(backing)
            or any(_may_overlap(owner, other) and _read_through(other.memref) for other in aliases)
        )
    aliases, escapes = _aliases_of_backing(storage)
    return escapes or any(_read_through(alias.memref) for alias in aliases)


class DropDeadStorage(RewritePattern):
    """Erases each allocation or alias of `dead` after every op that uses it,
    recursively, and then the effect-free definitions that only the erased ops used.

    The dead storage is decided before the walk (`is_read`); its transitive users are
    writes, frees, views, pointers and dead aliases. Erasing the definitions that fed
    them is what lets removal cascade: the loads that fed a removed store go away, so
    the allocation they read can become dead in the next round."""

    def __init__(self, dead: set[Operation]):
        self.dead = dead
        self.freed: set[Operation] = set()

    def listener(self) -> PatternRewriterListener:
        return PatternRewriterListener(operation_removal_handler=[self._removed])

    def _removed(self, op: Operation) -> None:
        for nested in op.walk():
            self.freed.update(
                operand.owner for operand in nested.operands if isinstance(operand, OpResult)
            )

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.parent is None:
            return
        if op in self.dead:
            _erase_with_users(op, rewriter)
        elif op in self.freed and is_trivially_dead(op):
            self.freed.discard(op)
            rewriter.erase(op)


def _erase_with_users(op: Operation, rewriter: PatternRewriter) -> None:
    for result in op.results:
        for use in tuple(result.uses):
            if use.operation.parent is not None:
                _erase_with_users(use.operation, rewriter)
    rewriter.erase(op)


def _storage_ops(module: ModuleOp) -> list[AllocOp | AliasOp]:
    return [op for op in walk_ops(module) if isinstance(op, AllocOp | AliasOp)]


@dataclass(frozen=True)
class RemoveDeadAllocsPass(ModulePass):
    """Remove `gpu_alloc.alloc` and `gpu_alloc.alias` ops whose contents are never read.

    Guarantees:
    - An allocation or alias is removed only if no op that reads memory (see
      `memory_effects`: loads, copy sources, atomics, vector reads) or unknown op (a
      call, a `gpu.launch_func`, ...) uses it, directly or through a view; its stores,
      copies into it, views, deallocs and pointers go with it, and so do the
      effect-free ops that computed values only they used.
    - Aliases are views of their backing's bytes: an alias stays while any alias of
      the same backing whose bytes may overlap its own is read (so a store through
      one alias that another reads after a barrier is kept), or while the backing is
      read by other means.
    - A backing stays while any live alias points into it (Halide dropped such a
      backing before its fix); once all its aliases are gone and nothing else reads
      it, it goes too.
    - Runs to a fixed point: removing a write-only Func removes the loads that fed its
      stores, which can make the Funcs they read dead in turn.

    Per-Func aliases that stay are untouched, so the pass composes with
    `fuse-gpu-allocs` and `flatten-aliases` on either side.
    """

    name = "remove-dead-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        while self._remove_one_round(op):
            pass

    @staticmethod
    def _remove_one_round(module: ModuleOp) -> bool:
        dead: set[Operation] = {op for op in _storage_ops(module) if not is_read(op.memref)}
        if dead:
            pattern = DropDeadStorage(dead)
            PatternRewriteWalker(pattern, listener=pattern.listener()).rewrite_module(module)
        return bool(dead)
