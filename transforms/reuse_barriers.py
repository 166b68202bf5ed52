"""Barrier insertion for reuse: `fuse-gpu-allocs{insert-barriers=never|over-limit|always}`.

Two shared Funcs share bytes only when a barrier separates their uses. When every use of
one precedes every use of the other at the top level of a kernel's body, a `gpu.barrier`
between them lets them share. Every thread reaches a top-level op of the entry block
(structured control flow), so such a barrier is always correct; the only question is
whether it buys bytes. The planner answers it by measuring: it fuses a copy of the
module with each candidate barrier and keeps the best, one barrier at a time.

Guarantees: only top-level positions of a kernel's entry block are used, never next to
an existing barrier; every inserted barrier lowers the kernel's static shared backing
(never one that saves nothing); `always` stops when no single barrier saves bytes,
`over-limit` as soon as the kernel fits `max-shared-bytes`, and inserts nothing when
no set of barriers it finds makes the kernel fit (the limit error stays); `never`
inserts nothing. Each inserted barrier is reported on stderr with the bytes it bought.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from gpu_alloc.dialect import AllocOp, MemorySpace
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.transforms.gpu_buffers import Kernel, fusable_kernels
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator

MODES = ("never", "over-limit", "always")

Fuse = Callable[[ModuleOp, Any], list[Any]]
"""`fuse_module(module, options) -> [KernelReport]`, passed in to avoid an import cycle."""


@dataclass(frozen=True)
class InsertedBarrier:
    kernel: str
    after: str
    """The op the barrier follows, as `name` (`%result = name` when it has a result)."""
    bytes_before: int
    bytes_after: int
    op: Operation = field(compare=False, repr=False)
    """The inserted `gpu.barrier`."""

    def describe(self) -> str:
        return (
            f"inserted gpu.barrier in '{self.kernel}' after {self.after}: shared backing "
            f"{self.bytes_before} -> {self.bytes_after} B ({self.bytes_before - self.bytes_after} B saved)"
        )


def insert_reuse_barriers(module: ModuleOp, options: Any, fuse: Fuse) -> list[InsertedBarrier]:
    """Inserts the barriers `options.insert_barriers` asks for; returns them in order."""
    mode = options.insert_barriers
    if mode not in MODES:
        raise GpuAllocPassError(
            f"fuse-gpu-allocs: option insert-barriers must be one of {', '.join(MODES)}, "
            f"got '{mode}'"
        )
    if mode == "never":
        return []
    measuring = replace(options, insert_barriers="never", max_shared_bytes=1 << 62, report=False)
    inserted: list[InsertedBarrier] = []
    for index, kernel in enumerate(list(fusable_kernels(module))):
        planner = _Planner(module, index, kernel, measuring, fuse)
        inserted += planner.run(None if mode == "always" else options.shared_limit())
    for barrier in inserted:
        print(f"fuse-gpu-allocs: remark: {barrier.describe()}", file=sys.stderr)
    return inserted


class _Planner:
    def __init__(self, module: ModuleOp, index: int, kernel: Kernel, options: Any, fuse: Fuse):
        self.module, self.index, self.kernel = module, index, kernel
        self.options, self.fuse = options, fuse

    def shared_bytes(self, gap: int | None) -> int | None:
        """The kernel's static shared bytes with a barrier after top-level op `gap`."""
        copy = self.module.clone()
        kernel = list(fusable_kernels(copy))[self.index]
        if gap is not None:
            after = list(kernel.body.blocks[0].ops)[gap]
            Rewriter.insert_op(gpu.BarrierOp(), InsertPoint.after(after))
        try:
            reports = self.fuse(copy, self.options)
        except GpuAllocPassError:
            return None
        report = reports[self.index]
        return sum(s.plan.static_bytes for s in report.spaces if s.space == 3)

    def candidates(self) -> list[int]:
        ops = list(self.kernel.body.blocks[0].ops)
        return [
            i
            for i in range(len(ops) - 1)
            if not isinstance(ops[i], gpu.BarrierOp)
            and not isinstance(ops[i + 1], gpu.BarrierOp)
            and not ops[i + 1].has_trait(IsTerminator)
        ]

    def worth_planning(self, limit: int | None) -> bool:
        """At least two shared allocations, and (over-limit) more unfused static bytes
        than the limit: fusing never needs more than the unfused sum."""
        sizes = [
            static_byte_size(op.memref.type) or 0
            for op in walk_ops(self.kernel)
            if isinstance(op, AllocOp) and op.space == MemorySpace.SHARED
        ]
        return len(sizes) > 1 and (limit is None or sum(sizes) > limit)

    def run(self, limit: int | None) -> list[InsertedBarrier]:
        if not self.worth_planning(limit):
            return []
        current = self.shared_bytes(None)
        inserted: list[InsertedBarrier] = []
        barriers: list[Operation] = []
        while current is not None and (limit is None or current > limit):
            scored = [
                (b, gap) for gap in self.candidates() if (b := self.shared_bytes(gap)) is not None
            ]
            best = min(scored, default=None)
            if best is None or best[0] >= current:
                break
            bytes_after, gap = best
            after = list(self.kernel.body.blocks[0].ops)[gap]
            barriers.append(gpu.BarrierOp())
            Rewriter.insert_op(barriers[-1], InsertPoint.after(after))
            inserted.append(
                InsertedBarrier(
                    kernel_name(self.kernel), _describe(after), current, bytes_after, barriers[-1]
                )
            )
            current = bytes_after
        if limit is not None and current is not None and current > limit:
            for barrier in barriers:  # they do not make the kernel fit: fuse fails as before
                Rewriter.erase_op(barrier)
            return []
        return inserted


def _describe(op: Operation) -> str:
    if op.results and op.results[0].name_hint:
        return f"%{op.results[0].name_hint} = {op.name}"
    return op.name
