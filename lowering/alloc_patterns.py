"""The one-op rewrites of `lower-gpu-allocs`: a kernel's shared and private allocations.

`lower_shared_and_private` applies them with one `PatternRewriteWalker` per kernel,
after `check_shared` has raised every diagnostic they could meet (so a pattern never
fails half-way):

* `LowerSharedAlloc`: a static shared allocation of at most 48 KiB becomes a
  `memref.global` in space 3 (`<kernel>__<alloc>`, unique in its `gpu.module`, aligned
  to at least 16 bytes) read with `memref.get_global`; a dynamic one, or a static one
  above 48 KiB, a view of the block's dynamic shared memory, whose byte size the
  kernel's `KernelAllocs.dynamic_shared` keeps for the launch sites;
* `LowerPrivateAlloc`: a private allocation becomes a `memref.alloca` (at the kernel
  entry when its size is static);
* `EraseDealloc`: `gpu_alloc.dealloc` disappears (run first, so that the lifetimes the
  layout records read do not see it).

The op that now makes each backing carries its `gpu_alloc.layout` record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import DYNAMIC_SHARED_BYTES, AllocOp, DeallocOp, MemorySpace
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.dynamic_shared import DynamicSharedMemoryOp, is_dynamic_shared_memory
from gpu_alloc.lowering.heap_slices import alignment_of, byte_size_value, check_byte_size
from gpu_alloc.lowering.targets import STATIC_SHARED_LIMIT
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.transforms.layout_record import keep_layout, single_func_layout
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    UnitAttr,
    i8,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

MIN_SHARED_ALIGNMENT = 16
"""Shared globals are aligned to at least this (the widest vector access, `ld.shared.v4`)."""


@dataclass
class DynamicShared:
    size: SSAValue
    what: str


@dataclass
class KernelAllocs:
    """What the allocation patterns of one kernel share."""

    func: gpu.FuncOp
    gpu_module: gpu.ModuleOp
    entry: Block
    dynamic_shared: DynamicShared | None = None
    """The kernel's dynamic shared memory, once an allocation was placed in it."""

    @property
    def kernel_name(self) -> str:
        return self.func.sym_name.data


def shared_alignment(alloc: AllocOp) -> int:
    """The alignment a shared global or buffer gets: at least `MIN_SHARED_ALIGNMENT`."""
    return max(MIN_SHARED_ALIGNMENT, alignment_of(alloc))


def symbol_of(op: Operation) -> Attribute | None:
    return op.attributes.get("sym_name", op.properties.get("sym_name"))


def unique_symbol(table: Operation, wanted: str) -> str:
    """`wanted`, spelled as a PTX identifier, made unique among the symbols of `table`
    (a `gpu.module`, or any op whose first region is a symbol table)."""
    taken = {s.data for op in table.regions[0].ops if isinstance(s := symbol_of(op), StringAttr)}
    # Symbols become PTX identifiers: a Func name like "é" is spelled with '_'.
    wanted = re.sub(r"[^A-Za-z0-9_$]", "_", wanted)
    name, suffix = wanted, 0
    while name in taken:
        suffix += 1
        name = f"{wanted}_{suffix}"
    return name


def _memref_type(alloc: AllocOp) -> MemRefType:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    return memref_type


def needs_dynamic_shared(alloc: AllocOp) -> bool:
    """A shared allocation with a dynamic size or above 48 KiB: only dynamic shared
    memory may hold it (with the launch's cudaFuncAttributeMaxDynamicSharedMemorySize
    opt-in above 48 KiB)."""
    return alloc.space == MemorySpace.SHARED and bool(
        alloc.dynamic_sizes or (static_byte_size(_memref_type(alloc)) or 0) > STATIC_SHARED_LIMIT
    )


def check_shared(kernel: KernelAllocs, allocs: Sequence[AllocOp]) -> None:
    """Raises what `LowerSharedAlloc` would meet on `allocs` (in walk order): at most
    one allocation may take the dynamic shared memory, and only if the kernel does not
    lay it out itself."""
    dynamic = [alloc for alloc in allocs if needs_dynamic_shared(alloc)]
    if not dynamic:
        return
    first = dynamic[0]
    if any(is_dynamic_shared_memory(o) for o in kernel.func.walk()):
        raise GpuAllocPassError(
            f"kernel '{kernel.kernel_name}' lays out gpu.dynamic_shared_memory itself, so "
            f"'{first.alloc_name.data}' cannot be placed in it too",
            first,
        )
    check_byte_size(first, _memref_type(first))
    if len(dynamic) > 1:
        raise GpuAllocPassError(
            f"kernel '{kernel.kernel_name}' has more than one dynamic shared allocation "
            f"('{dynamic[1].alloc_name.data}' among them): run fuse-gpu-allocs first, so "
            "that one backing holds all dynamic shared memory",
            dynamic[1],
        )


class EraseDealloc(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DeallocOp, rewriter: PatternRewriter):
        rewriter.erase(op)


class LowerSharedAlloc(RewritePattern):
    """A shared allocation to a `memref.global` or to the dynamic shared memory."""

    def __init__(self, kernel: KernelAllocs):
        self.kernel = kernel

    @op_type_rewrite_pattern
    def match_and_rewrite(self, alloc: AllocOp, rewriter: PatternRewriter):
        if alloc.space != MemorySpace.SHARED:
            return
        if needs_dynamic_shared(alloc):
            self._lower_dynamic(alloc, rewriter)
            return
        kernel, memref_type = self.kernel, _memref_type(alloc)
        symbol = unique_symbol(kernel.gpu_module, f"{kernel.kernel_name}__{alloc.alloc_name.data}")
        global_op = shared_global(alloc, symbol, kernel.func)
        rewriter.insert(global_op, InsertPoint.before(kernel.func))
        rewriter.replace(alloc, memref.GetGlobalOp(symbol, memref_type))

    def _lower_dynamic(self, alloc: AllocOp, rewriter: PatternRewriter) -> None:
        """The kernel's one dynamic shared allocation (a fused i8 backing, or a lone
        Func that fuse-gpu-allocs kept as it is) becomes a view of the block's dynamic
        shared memory, whose byte size each launch computes."""
        kernel, memref_type = self.kernel, _memref_type(alloc)
        assert kernel.dynamic_shared is None, "check_shared allows one"
        size_ops, byte_size = byte_size_value(alloc, memref_type)
        kernel.dynamic_shared = DynamicShared(byte_size, f"'{alloc.alloc_name.data}'")
        if not alloc.dynamic_sizes:
            static_bytes = static_byte_size(memref_type) or 0
            kernel.func.attributes[DYNAMIC_SHARED_BYTES] = IntegerAttr(static_bytes, i64)
        rewriter.replace(alloc, [*size_ops, *dynamic_shared_view(alloc, kernel.func)])


class LowerPrivateAlloc(RewritePattern):
    """A private allocation to a `memref.alloca`, hoisted to the kernel entry when its
    size is static."""

    def __init__(self, kernel: KernelAllocs):
        self.kernel = kernel

    @op_type_rewrite_pattern
    def match_and_rewrite(self, alloc: AllocOp, rewriter: PatternRewriter):
        if alloc.space != MemorySpace.PRIVATE:
            return
        alloca = private_alloca(alloc, self.kernel.func)
        if alloc.dynamic_sizes:
            rewriter.replace(alloc, alloca)
            return
        rewriter.insert(alloca, InsertPoint.at_start(self.kernel.entry))
        rewriter.replace(alloc, [], [alloca.memref])


def dynamic_shared_view(alloc: AllocOp, kernel: gpu.FuncOp | None) -> list[Operation]:
    """The ops that replace a shared allocation placed in the block's dynamic shared
    memory: a view of it at offset 0 (the base carries the layout record; `kernel` as for
    `private_alloca`). Its byte size is the launch's business."""
    memref_type = _memref_type(alloc)
    base = DynamicSharedMemoryOp()
    keep_layout(base, single_func_layout(alloc, kernel))
    # The base is cast to the allocation's spelling first: stock xdsl-opt, which reads
    # the lowered IR too, does not know `#gpu.address_space` (the base's type).
    bytes_type = MemRefType(i8, [DYNAMIC_INDEX], memory_space=memref_type.memory_space)
    ops: list[Operation] = [base]
    if bytes_type != base.memref.type:
        ops.append(memref.MemorySpaceCastOp(base.memref, bytes_type))
    zero = arith.ConstantOp.from_int_and_width(0, IndexType())
    view = memref.ViewOp(ops[-1].results[0], zero, list(alloc.dynamic_sizes), memref_type)
    return [*ops, zero, view]


def shared_global(alloc: AllocOp, symbol: str, kernel: gpu.FuncOp | None) -> memref.GlobalOp:
    """The private space-3 `memref.global` a static shared allocation becomes: aligned to
    at least `MIN_SHARED_ALIGNMENT`, carrying its layout record (`kernel` as for
    `private_alloca`)."""
    global_op = memref.GlobalOp.get(
        StringAttr(symbol),
        _memref_type(alloc),
        UnitAttr(),
        alignment=shared_alignment(alloc),
    )
    keep_layout(global_op, single_func_layout(alloc, kernel))
    return global_op


def private_alloca(alloc: AllocOp, kernel: gpu.FuncOp | None) -> memref.AllocaOp:
    """The `memref.alloca` a private allocation becomes, carrying its layout record
    (`kernel`: the `gpu.func` whose stages the record names, None outside one)."""
    memref_type = _memref_type(alloc)
    alloca = memref.AllocaOp.get(
        memref_type.element_type,
        alignment=None if alloc.alignment is None else alloc.alignment.value.data,
        shape=memref_type.get_shape(),
        dynamic_sizes=list(alloc.dynamic_sizes),
        layout=memref_type.layout,
        memory_space=memref_type.memory_space,
    )
    keep_layout(alloca, single_func_layout(alloc, kernel))
    return alloca


def lower_shared_and_private(kernel: KernelAllocs, allocs: Sequence[AllocOp]) -> None:
    """Erases the kernel's deallocs and lowers its shared and private `allocs` (heap
    ones are left for `heap_slices`); raises before any change if one cannot be."""
    check_shared(kernel, allocs)
    body = kernel.func.body
    PatternRewriteWalker(EraseDealloc(), apply_recursively=False).rewrite_region(body)
    patterns = [LowerSharedAlloc(kernel), LowerPrivateAlloc(kernel)]
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier(list[RewritePattern](patterns), dce_enabled=False),
        apply_recursively=False,
    )
    walker.rewrite_region(body)
