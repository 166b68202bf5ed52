"""Walk the users of an allocation's memref, through views and pointers.

Passes that reason about an allocation (is it ever read? may it be re-shaped?) need
to see every access of its storage, including accesses made through a view of it
(`memref.subview`, `arith.select` between buffers, an `scf.if` result, ...) and, for
a backing buffer, through the `gpu_alloc.alias` ops that its
`gpu_alloc.offset_pointer`s feed. What each op does is decided by the one table in
`memory_effects`; anything it does not name is an `ESCAPE`, which callers must treat
as "may read and write anything". The walks are iterative (no recursion limit).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gpu_alloc.dialect.ops import AliasOp
from gpu_alloc.syntax.mlir_nvgpu import DeviceAsyncCreateGroupOp, DeviceAsyncWaitOp
from gpu_alloc.transforms.memory_effects import UseKind, aliased_values, effect_of, use_kind
from xdsl.ir import Operation, SSAValue

__all__ = ["MemrefAccess", "UseKind", "aliases_of_pointer", "memref_accesses"]


@dataclass(frozen=True)
class MemrefAccess:
    """One use of `value`, which is the allocation itself or a view of it."""

    op: Operation
    value: SSAValue
    kind: UseKind


def memref_accesses(value: SSAValue) -> Iterator[MemrefAccess]:
    """Every direct or through-a-view use of `value`'s storage, depth first.

    Views are yielded (kind VIEW) before their own users; a value reached twice (a
    select of a buffer with itself) is walked once. An asynchronous access is also
    yielded at each op that waits for it (`_completions`). Pointers are yielded (kind
    POINTER) but not followed: a backing's aliases are separate storage names, see
    `aliases_of_pointer`.
    """
    seen: set[SSAValue] = {value}
    stack = [(value, iter(tuple(value.uses)))]
    while stack:
        current, uses = stack[-1]
        use = next(uses, None)
        if use is None:
            stack.pop()
            continue
        effect = effect_of(use)
        kind = effect.kind
        yield MemrefAccess(use.operation, current, kind)
        if effect.asynchronous:
            yield from _completions(use.operation, current, kind)
        if kind is UseKind.VIEW:
            for result in reversed(aliased_values(use)):
                if result not in seen:
                    seen.add(result)
                    stack.append((result, iter(tuple(result.uses))))


def _completions(op: Operation, value: SSAValue, kind: UseKind) -> Iterator[MemrefAccess]:
    """Where an asynchronous access of `value` by `op` may still be going on: the waits
    its token reaches through groups (as the same kind of access), or, if the token goes
    anywhere else (a loop-carried token, an unknown op), an escape there."""
    work = list(op.results)
    while work:
        token = work.pop()
        for use in token.uses:
            user = use.operation
            if isinstance(user, DeviceAsyncCreateGroupOp):
                work.extend(user.results)
            elif isinstance(user, DeviceAsyncWaitOp):
                yield MemrefAccess(user, value, kind)
            else:
                yield MemrefAccess(user, value, UseKind.ESCAPE)


def aliases_of_pointer(pointer: SSAValue) -> tuple[list[AliasOp], bool]:
    """The aliases a pointer feeds, and whether it has any other (escaping) user."""
    aliases: list[AliasOp] = []
    escapes = False
    for use in pointer.uses:
        if use_kind(use) is UseKind.ALIAS:
            assert isinstance(use.operation, AliasOp)
            aliases.append(use.operation)
        else:
            escapes = True
    return aliases, escapes
