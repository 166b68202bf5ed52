"""`remove-dead-allocs`: drop allocations and aliases whose contents are never read."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect.ops import AliasOp, AllocOp
from gpu_alloc.transforms.memref_uses import (
    UseKind,
    aliases_of_pointer,
    memref_accesses,
)
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead


def is_read(storage: SSAValue) -> bool:
    """Whether the contents of an allocation or alias may be observed.

    They may if any access, directly or through a view, reads them or escapes (a call,
    a launch, an unknown op). A backing is also read when a live alias points into it,
    or when one of its pointers is used by anything but an alias; a dead alias does not
    keep its backing alive.
    """
    for access in memref_accesses(storage):
        if access.kind in (UseKind.READ, UseKind.ESCAPE):
            return True
        if access.kind is UseKind.POINTER:
            aliases, escapes = aliases_of_pointer(access.op.results[0])
            if escapes or any(is_read(alias.memref) for alias in aliases):
                return True
    return False


def _erase_with_users(op: Operation, freed_operands: list[SSAValue]) -> None:
    """Erase `op` after every op that uses its results, recursively.

    Only called on a dead allocation, whose transitive users are writes, frees, views,
    pointers and (dead) aliases. The operands of erased ops that were defined elsewhere
    are collected in `freed_operands` for `_erase_dead_definitions`.
    """
    for result in op.results:
        for use in tuple(result.uses):
            if use.operation.parent is not None:
                _erase_with_users(use.operation, freed_operands)
    freed_operands.extend(op.operands)
    Rewriter.erase_op(op)


def _erase_dead_definitions(values: list[SSAValue]) -> None:
    """Erase the now-unused, effect-free definitions of `values`, transitively.

    This is what lets removal cascade: the loads that fed a removed store go away, so
    the allocation they read can become dead in the next round.
    """
    while values:
        value = values.pop()
        if not isinstance(value, OpResult):
            continue
        owner = value.op
        if owner.parent is None or not is_trivially_dead(owner):
            continue
        values.extend(owner.operands)
        Rewriter.erase_op(owner)


def _storage_ops(module: ModuleOp) -> list[AllocOp | AliasOp]:
    return [op for op in module.walk() if isinstance(op, AllocOp | AliasOp)]


@dataclass(frozen=True)
class RemoveDeadAllocsPass(ModulePass):
    """Remove `gpu_alloc.alloc` and `gpu_alloc.alias` ops whose contents are never read.

    Guarantees:
    - An allocation or alias is removed only if no load, copy source, atomic, or
      unknown op (a call, a `gpu.launch_func`, ...) uses it, directly or through a
      view; its stores, copies into it, views, deallocs and pointers go with it, and so
      do the effect-free ops that computed values only they used.
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
        dead = [op for op in _storage_ops(module) if not is_read(op.memref)]
        freed: list[SSAValue] = []
        for storage in dead:
            if storage.parent is not None:
                _erase_with_users(storage, freed)
        _erase_dead_definitions(freed)
        return bool(dead)
