"""`remove-dead-allocs`: not implemented yet (see the issue tracker)."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.errors import not_implemented
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass


@dataclass(frozen=True)
class RemoveDeadAllocsPass(ModulePass):
    """Placeholder: fails with a clear diagnostic until it is built."""

    name = "remove-dead-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise not_implemented(self.name)
