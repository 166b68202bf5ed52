"""`remove-dead-allocs`: drop allocations and aliases whose contents are never read."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect import (
    LAYOUT_ATTR,
    LOWER_BOUND_ATTR,
    PROVEN_OPTIMAL_ATTR,
    FuncSlice,
    layout_attr,
    layout_of,
)
from gpu_alloc.dialect.ops import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from gpu_alloc.dialect.slice_overlap import meeting
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
from xdsl.rewriter import Rewriter
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


def _backing_of(alias: AliasOp) -> SSAValue | None:
    pointer = alias.pointer.owner
    return pointer.backing if isinstance(pointer, OffsetPointerOp) else None


ALL_STAGES = (0, 2**62)
"""The stage interval of an alias the record does not name: it may be live at any time."""


def _slices(
    aliases: list[AliasOp], recorded: dict[tuple[str, int, int], FuncSlice]
) -> dict[AliasOp, tuple[SSAValue | None, FuncSlice] | None]:
    """Per alias: its offset's base and its bytes with the stages the record gives its
    Func (every stage when the record does not name it); None when its bytes are unknown.
    A new slice per alias, so that two aliases of one Func meet each other."""
    found: dict[AliasOp, tuple[SSAValue | None, FuncSlice] | None] = {}
    for alias in aliases:
        known = _byte_range(alias)
        if known is None:
            found[alias] = None
            continue
        base, first, end = known
        name = alias.alias_name.data
        entry = recorded.get((name, first, end - first)) if base is None else None
        stages = (entry.first_stage, entry.last_stage) if entry else ALL_STAGES
        found[alias] = base, FuncSlice(name, first, end - first, *stages)
    return found


def _dead_aliases(backing: SSAValue, aliases: list[AliasOp], escapes: bool) -> set[AliasOp]:
    """The aliases of `backing` whose contents no read can observe.

    An alias is dead when nothing reads it (directly or through a view), nothing reads
    the backing directly, no pointer into it escapes, and every other alias that is read
    and may share bytes with it is one that fusion let share them because their stages
    are disjoint: both are in the backing's `gpu_alloc.layout` record and their stage
    intervals do not meet. An alias the record does not name (written by hand) may be
    live at any time; one whose bytes are unknown may overlap anything. O(n log n)."""
    if escapes or _read_through(backing):
        return set()
    read = {a for a in aliases if _read_through(a.memref)}
    unread = [a for a in aliases if a not in read]
    if not read:
        return set(unread)
    owner = backing.owner
    record = (layout_of(owner) if isinstance(owner, AllocOp) else None) or []
    slices = _slices(aliases, {(s.name, s.offset, s.bytes): s for s in record})
    read_slices = [slices[a] for a in aliases if a in read]
    if any(found is None for found in read_slices):
        return set()
    bases = {id(found[0]) for found in read_slices if found is not None}
    queries = [
        (alias, found[1])
        for alias in unread
        if (found := slices[alias]) is not None and bases == {id(found[0])}
    ]
    data = [found[1] for found in read_slices if found is not None]
    met = meeting([query for _, query in queries], data)
    return {alias for (alias, _), hit in zip(queries, met, strict=True) if not hit}


def dead_storage(module: ModuleOp) -> set[Operation]:
    """The allocations and aliases of `module` whose contents are never read.

    A plain allocation is dead when nothing reads it (directly, through a view, or by an
    escape: a call, a launch, an unknown op). Aliases are views of their backing's bytes
    (`_dead_aliases` says which are dead); a backing is dead when nothing reads it
    directly, no pointer into it escapes and none of its aliases is read."""
    backings: dict[SSAValue, None] = {}  # in program order, each once
    dead: set[Operation] = set()
    for op in walk_ops(module):
        if isinstance(op, AliasOp) and (backing := _backing_of(op)) is not None:
            backings[backing] = None
        elif isinstance(op, AllocOp):
            backings[op.memref] = None
    for backing in backings:
        aliases, escapes = _aliases_of_backing(backing)
        gone = _dead_aliases(backing, aliases, escapes)
        dead |= gone
        owner = backing.owner
        if isinstance(owner, AllocOp) and not escapes and len(gone) == len(aliases):
            if not _read_through(backing):  # and so none of its aliases is read
                dead.add(owner)
    return dead


def _removed_tops(dead: set[Operation]) -> dict[AllocOp, int]:
    """Per backing that loses aliases: the end of the highest byte range they covered."""
    tops: dict[AllocOp, int] = {}
    for op in dead:
        if isinstance(op, AliasOp) and isinstance(backing := _backing_of(op), OpResult):
            owner, known = backing.owner, _byte_range(op)
            if not isinstance(owner, AllocOp):
                continue
            top = known[2] if known is not None and known[0] is None else 0  # 0: no shrink
            tops[owner] = max(tops.get(owner, 0), top)
    return tops


def shrink_backings(removed_tops: dict[AllocOp, int]) -> None:
    """A backing that lost aliases drops their Funcs' entries from its record; if the
    bytes they covered were its top (a static 1-D backing, used only by pointers and
    frees, every alias left at a constant offset with a static size), it gets as small as
    the end of the highest alias left. A hole below that stays: moving a live Func down
    would need a new layout, which fusing the unfused kernel again gives."""
    for op, removed_top in removed_tops.items():
        if op.parent is None:
            continue  # the backing went too
        aliases, escapes = _aliases_of_backing(op.memref)
        ranges = [_byte_range(a) for a in aliases]
        if (record := layout_of(op)) is not None:
            names = {
                (a.alias_name.data, r[1], r[2] - r[1])
                for a, r in zip(aliases, ranges, strict=True)
                if r is not None and r[0] is None
            }
            kept = [s for s in record if (s.name, s.offset, s.bytes) in names]
            op.attributes[LAYOUT_ATTR] = layout_attr(kept)
            if len(kept) < len(record):  # fuse's bound was for the Funcs it placed, not these
                op.attributes.pop(PROVEN_OPTIMAL_ATTR, None)
                op.attributes.pop(LOWER_BOUND_ATTR, None)
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        shape = memref_type.get_shape()
        if escapes or len(shape) != 1 or shape[0] != removed_top:
            continue
        if any(r is None or r[0] is not None for r in ranges) or not all(
            isinstance(use.operation, OffsetPointerOp | DeallocOp) for use in op.memref.uses
        ):
            continue
        top = max((r[2] for r in ranges if r is not None), default=0)
        if 0 < top < shape[0]:
            Rewriter.replace_value_with_new_type(
                op.memref,
                MemRefType(
                    memref_type.element_type, [top], memref_type.layout, memref_type.memory_space
                ),
            )


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
      read by other means, unless the backing's `gpu_alloc.layout` record (written by
      `fuse-gpu-allocs`) names both with disjoint stage intervals: fusion let them share
      bytes because a barrier separates all their accesses, so after fusion the pass
      removes the Funcs it removes before it.
    - A backing that loses aliases drops them from its record, and with them fuse's
      `gpu_alloc.proven_optimal` and `gpu_alloc.lower_bound` (claims about the Funcs it
      placed, which a hole left behind can make false); when the bytes
      they covered were its top, shrinks to the end of the highest alias left (static
      1-D backings used only by pointers and frees, all aliases at constant offsets). A
      hole lower down stays: moving a live Func down would need a new layout (fusing the
      unfused kernel again gives one).
    - A backing stays while any live alias points into it (Halide dropped such a
      backing before its fix); once all its aliases are gone and nothing else reads
      it, it goes too.
    - Runs to a fixed point: removing a write-only Func removes the loads that fed its
      stores, which can make the Funcs they read dead in turn. Each round is
      O(n log n) in the aliases of a backing (`dialect.slice_overlap`).

    Per-Func aliases that stay are untouched, so the pass composes with
    `fuse-gpu-allocs` and `flatten-aliases` on either side.
    """

    name = "remove-dead-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        removed_tops: dict[AllocOp, int] = {}
        while dead := dead_storage(op):
            for backing, top in _removed_tops(dead).items():
                removed_tops[backing] = max(removed_tops.get(backing, 0), top)
            pattern = DropDeadStorage(dead)
            PatternRewriteWalker(pattern, listener=pattern.listener()).rewrite_module(op)
        shrink_backings(removed_tops)
