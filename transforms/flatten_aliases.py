"""`flatten-aliases`: fold every alias into a plain `memref.view` of its backing.

Guarantees:
- every `gpu_alloc.alias(gpu_alloc.offset_pointer(b, off))` becomes
  `memref.view b[off][sizes]` of the same type; the alias, its pointer (once unused)
  and the alias's `gpu_alloc.dealloc`s disappear; the backing's dealloc stays;
- every access through such a view that takes an `alignment` attribute (those
  `memory_effects.takes_alignment` names: `memref.load`/`store`, `vector.load`/`store`)
  carries `alignment = N` (an i64 attribute, which MLIR reads as the access's
  alignment): the largest power of two dividing the byte offset, the backing's
  alignment and the access's own alignment (its `alignment` attribute, else its
  element size) — never the alignment the access had before the shift;
- every backing that aliases pointed into carries a `gpu_alloc.layout` record naming
  each Func's byte range and barrier-stage interval (`gpu_alloc.dialect.layout`), so
  profilers still attribute every byte to its Func: the record `fuse-gpu-allocs` wrote
  is kept, and aliases it does not name get entries;
- it is idempotent, and a module without aliases is left unchanged;
- every alias is checked before the first is flattened: on a diagnostic the module
  is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
from gpu_alloc.dialect.memory import view_ops
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.transforms.alignment import known_alignment, lowest_set_bit
from gpu_alloc.transforms.kernel_ir import walk_ops
from gpu_alloc.transforms.layout_record import record_alias_layouts
from gpu_alloc.transforms.memory_effects import takes_alignment
from xdsl.context import Context
from xdsl.dialects import vector
from xdsl.dialects.builtin import IntegerAttr, MemRefType, ModuleOp, VectorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)


def _backing_alignment(backing: SSAValue) -> int:
    owner = backing.owner
    if isinstance(owner, AllocOp) and owner.alignment is not None:
        return owner.alignment.value.data
    backing_type = backing.type
    assert isinstance(backing_type, MemRefType)
    return element_bytes(backing_type.get_element_type()) or 1


def _own_alignment(access: Operation, memref_type: MemRefType) -> int:
    existing = access.attributes.get("alignment")
    if isinstance(existing, IntegerAttr):
        return existing.value.data
    element = memref_type.get_element_type()
    if isinstance(access, vector.LoadOp | vector.StoreOp):
        vector_type = (
            access.result.type if isinstance(access, vector.LoadOp) else access.vector.type
        )
        if isinstance(vector_type, VectorType):
            element = vector_type.get_element_type()
    return element_bytes(element) or 1


def check_flattenable(alias: AliasOp) -> None:
    if not isinstance(alias.pointer.owner, OffsetPointerOp):
        raise GpuAllocPassError(
            f"alias '{alias.alias_name.data}' is not fed by a gpu_alloc.offset_pointer; "
            "flatten-aliases cannot find its backing",
            alias,
        )


class FlattenAlias(RewritePattern):
    """`gpu_alloc.alias(offset_pointer(b, off))` -> `memref.view b[off][sizes]`.

    Drops the alias's deallocs, re-derives the `alignment` of every access through it,
    and erases the pointer once nothing else uses it. The alias must have passed
    `check_flattenable` (the pass checks every alias before the first rewrite)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, alias: AliasOp, rewriter: PatternRewriter):
        pointer_op = alias.pointer.owner
        memref_type = alias.memref.type
        if not isinstance(pointer_op, OffsetPointerOp) or not isinstance(memref_type, MemRefType):
            return
        new_ops = view_ops(pointer_op.backing, pointer_op.offset, alias.dynamic_sizes, memref_type)
        new_ops[-1].results[0].name_hint = alias.memref.name_hint
        shift_alignment = min(
            known_alignment(pointer_op.offset), _backing_alignment(pointer_op.backing)
        )
        for use in list(alias.memref.uses):
            user = use.operation
            if isinstance(user, DeallocOp):
                rewriter.erase(user)
            elif takes_alignment(user):
                alignment = min(shift_alignment, _own_alignment(user, memref_type))
                user.attributes["alignment"] = IntegerAttr(lowest_set_bit(alignment), 64)
                rewriter.notify_op_modified(user)
        rewriter.replace(alias, new_ops)
        if not pointer_op.pointer.uses:
            rewriter.erase(pointer_op)


@dataclass(frozen=True)
class FlattenAliasesPass(ModulePass):
    """Fold aliases into `memref.view`s of their backings; see the module docstring."""

    name = "flatten-aliases"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        aliases = [o for o in walk_ops(op) if isinstance(o, AliasOp)]
        for alias in aliases:
            check_flattenable(alias)  # every diagnostic before the first change
        record_alias_layouts(op)
        if aliases:
            PatternRewriteWalker(FlattenAlias(), apply_recursively=False).rewrite_module(op)
