"""The one lowering of shared and private allocations, for every kind of block-level code.

`lower_shared_and_private(site, allocs)` lowers a site's allocations with one
`PatternRewriteWalker`, after `check_shared` has raised every diagnostic the patterns
could meet (so a pattern never fails half-way). A site (`AllocationSite`) is a kernel
(`gpu.func`), a `gpu.launch` body or a workgroup `func.func`; it says where shared
globals go, whether shared memory may be sized at a launch, and for which target
(`gpu_alloc.targets.Device`):

* `LowerSharedAlloc`: a static shared allocation within the target's static-shared
  limit becomes a `memref.global` in space 3 (`<site>__<alloc>`, unique in its symbol
  table, aligned to at least 16 bytes) read with `memref.get_global`, or, in a
  workgroup `func.func` outside a `gpu.module` (IREE's form), a workgroup
  `memref.alloc`; a dynamic one, or a static one above the limit (NVIDIA's 48 KiB), a
  view of the block's dynamic shared memory, whose byte size the site keeps
  (`AllocationSite.dynamic_shared`) for whoever sizes the launch;
* `LowerPrivateAlloc`: a private allocation becomes a `memref.alloca` (at the site's
  entry when its size is static);
* `EraseDealloc`: `gpu_alloc.dealloc` disappears (run first, so that the lifetimes the
  layout records read do not see it).

The op that now makes each backing carries its `gpu_alloc.layout` record.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.dialect import (
    DYNAMIC_SHARED_BYTES,
    DYNAMIC_SHARED_COMPUTED,
    AllocOp,
    DeallocOp,
    MemorySpace,
)
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.heap_slices import alignment_of, check_byte_size
from gpu_alloc.memref_sizes import byte_size_ops, static_byte_size
from gpu_alloc.names import unique_name
from gpu_alloc.remarks import emit_remark
from gpu_alloc.syntax.mlir_gpu import DynamicSharedMemoryOp, is_dynamic_shared_memory
from gpu_alloc.targets import Device
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from gpu_alloc.transforms.layout_record import keep_layout, single_func_layout
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
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
class AllocationSite:
    """Block-level code whose allocations are lowered together.

    `op` is the `gpu.func`, `gpu.launch` or `func.func`; `entry` its entry block;
    `symbol_table` the op (a `gpu.module`, a `builtin.module`) whose region receives
    the shared globals, before `global_anchor`, or None where a shared allocation
    becomes a workgroup `memref.alloc`; `name` the prefix of their symbols; `where` how
    diagnostics name the site; `dynamic` why this site cannot have dynamic shared memory
    ("" if it can); `kernel` the `gpu.func` whose stages the layout records name (None
    outside one)."""

    op: Operation
    entry: Block
    device: Device
    symbol_table: Operation | None
    global_anchor: Operation
    name: str
    where: str
    dynamic: str = ""
    kernel: gpu.FuncOp | None = None
    size_in_body: bool = True
    """Whether the dynamic shared size is computed in the body (a kernel's launches
    recompute it); a `gpu.launch` computes it before the launch instead."""
    owned: set[AllocOp] = field(default_factory=set[AllocOp])
    dynamic_shared: DynamicShared | None = None
    """The site's dynamic shared memory, once an allocation was placed in it."""


def kernel_site(func: gpu.FuncOp, gpu_module: gpu.ModuleOp, device: Device) -> AllocationSite:
    """The site of a `gpu.func` kernel: globals in its `gpu.module`, before the kernel."""
    entry = func.body.blocks[0]
    name = func.sym_name.data
    return AllocationSite(
        func, entry, device, gpu_module, func, name, f"kernel '{name}'", kernel=func
    )


def shared_alignment(alloc: AllocOp) -> int:
    """The alignment a shared global or buffer gets: at least `MIN_SHARED_ALIGNMENT`."""
    return max(MIN_SHARED_ALIGNMENT, alignment_of(alloc))


def symbol_of(op: Operation) -> Attribute | None:
    return op.attributes.get("sym_name", op.properties.get("sym_name"))


def unique_symbol(table: Operation, wanted: str) -> str:
    """`wanted`, spelled as an assembler identifier, made unique among the symbols of
    `table` (a `gpu.module`, or any op whose first region is a symbol table)."""
    taken = {s.data for op in table.regions[0].ops if isinstance(s := symbol_of(op), StringAttr)}
    # Symbols become assembler identifiers: a Func name like "é" is spelled with '_'.
    return unique_name(re.sub(r"[^A-Za-z0-9_$]", "_", wanted), taken)


def _memref_type(alloc: AllocOp) -> MemRefType:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    return memref_type


def needs_dynamic_shared(alloc: AllocOp, device: Device) -> bool:
    """A shared allocation with a dynamic size, or above `device`'s static-shared limit
    (NVIDIA: 48 KiB, and the launch's cudaFuncAttributeMaxDynamicSharedMemorySize opt-in
    above it): only dynamic shared memory may hold it."""
    if alloc.space != MemorySpace.SHARED:
        return False
    limit = device.static_shared_limit
    size = static_byte_size(_memref_type(alloc)) or 0
    return bool(alloc.dynamic_sizes) or (limit is not None and size > limit)


def _refuse_dynamic(site: AllocationSite, alloc: AllocOp) -> GpuAllocPassError:
    name = alloc.alloc_name.data
    if alloc.dynamic_sizes:
        what = f"dynamic shared allocation '{name}'"
    else:
        size = static_byte_size(_memref_type(alloc))
        what = (
            f"shared allocation '{name}' of {size} bytes (above the "
            f"{site.device.static_shared_limit} {site.device.target.vendor} kernels may "
            "declare statically)"
        )
    return GpuAllocPassError(f"{what} in {site.where} cannot be lowered: {site.dynamic}", alloc)


def check_shared(site: AllocationSite, allocs: Sequence[AllocOp]) -> None:
    """Raises what `LowerSharedAlloc` would meet on `allocs` (in walk order): at most
    one allocation may take the dynamic shared memory, only where the site and the
    target allow it, and only if the site does not lay it out itself."""
    dynamic = [alloc for alloc in allocs if needs_dynamic_shared(alloc, site.device)]
    if not dynamic:
        return
    first = dynamic[0]
    if site.dynamic:
        raise _refuse_dynamic(site, first)
    if site.device.target.no_dynamic_shared:
        raise GpuAllocPassError(
            f"dynamic shared allocation '{first.alloc_name.data}' in {site.where} cannot "
            f"be lowered for {site.device.target.name}: {site.device.target.no_dynamic_shared} "
            "(give it a static size)",
            first,
        )
    if any(is_dynamic_shared_memory(o) for o in walk_ops(site.op)):
        raise GpuAllocPassError(
            f"{site.where} lays out gpu.dynamic_shared_memory itself, so "
            f"'{first.alloc_name.data}' cannot be placed in it too",
            first,
        )
    if (callee := _callee_laying_out_dynamic_shared(site.op)) is not None:
        raise GpuAllocPassError(
            f"'{kernel_name(callee)}', which {site.where} calls, lays out "
            f"gpu.dynamic_shared_memory itself (from offset 0), so "
            f"'{first.alloc_name.data}' cannot be placed in it too",
            first,
        )
    check_byte_size(first, _memref_type(first))
    if len(dynamic) > 1:
        raise GpuAllocPassError(
            f"{site.where} has more than one dynamic shared allocation "
            f"('{dynamic[1].alloc_name.data}' among them): run fuse-gpu-allocs first, so "
            "that one backing holds all dynamic shared memory",
            dynamic[1],
        )


def _callee_laying_out_dynamic_shared(code: Operation) -> Operation | None:
    """The first function `code` calls (directly or not) that reads the block's dynamic
    shared memory itself: it lays it out from offset 0 as the site's backing would."""
    root = code
    while (parent := root.parent_op()) is not None:
        root = parent
    if not isinstance(root, ModuleOp):
        return None
    for callee in CallGraph(root).callees(code):
        if any(is_dynamic_shared_memory(o) for o in walk_ops(callee)):
            return callee
    return None


class EraseDealloc(RewritePattern):
    def __init__(self, site: AllocationSite):
        self.site = site

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: DeallocOp, rewriter: PatternRewriter):
        owner = op.memref.owner
        if not isinstance(owner, AllocOp) or owner in self.site.owned:
            rewriter.erase(op)


class LowerSharedAlloc(RewritePattern):
    """A shared allocation to a `memref.global`, a workgroup `memref.alloc`, or the
    dynamic shared memory."""

    def __init__(self, site: AllocationSite):
        self.site = site

    @op_type_rewrite_pattern
    def match_and_rewrite(self, alloc: AllocOp, rewriter: PatternRewriter):
        site = self.site
        if alloc.space != MemorySpace.SHARED or alloc not in site.owned:
            return
        if needs_dynamic_shared(alloc, site.device):
            self._lower_dynamic(alloc, rewriter)
            return
        if site.symbol_table is None:
            rewriter.replace(alloc, workgroup_alloc(alloc))
            return
        symbol = unique_symbol(site.symbol_table, f"{site.name}__{alloc.alloc_name.data}")
        rewriter.insert(
            shared_global(alloc, symbol, site.kernel), InsertPoint.before(site.global_anchor)
        )
        rewriter.replace(alloc, memref.GetGlobalOp(symbol, _memref_type(alloc)))

    def _lower_dynamic(self, alloc: AllocOp, rewriter: PatternRewriter) -> None:
        """The site's one dynamic shared allocation (a fused i8 backing, or a lone Func
        that fuse-gpu-allocs kept as it is) becomes a view of the block's dynamic shared
        memory, whose byte size the launch gives."""
        site, memref_type = self.site, _memref_type(alloc)
        assert site.dynamic_shared is None, "check_shared allows one"
        size_ops: list[Operation] = []
        if site.size_in_body:
            size_ops, byte_size = byte_size_ops(memref_type, alloc.dynamic_sizes)
            site.dynamic_shared = DynamicShared(byte_size, f"'{alloc.alloc_name.data}'")
        if not alloc.dynamic_sizes and site.kernel is not None:
            static_bytes = static_byte_size(memref_type) or 0
            site.kernel.attributes[DYNAMIC_SHARED_BYTES] = IntegerAttr(static_bytes, i64)
            emit_remark(  # the target moved it: say so, with what the launch now needs
                "lower-gpu-allocs",
                f"'{alloc.alloc_name.data}' ({static_bytes} B) in {site.where} is placed in "
                f"dynamic shared memory, above the {site.device.static_shared_limit} B "
                f"{site.device.target.vendor} kernels may declare statically: each launch "
                f"sets dynamic_shared_memory_size, the kernel records "
                f"{DYNAMIC_SHARED_BYTES} = {static_bytes}, and the host must raise "
                f"{site.device.target.dynamic_shared_opt_in} to {static_bytes}",
                alloc,
            )
        elif site.kernel is not None:  # a run-time size: the kernel's view says it
            site.kernel.attributes[DYNAMIC_SHARED_COMPUTED] = UnitAttr()
        rewriter.replace(alloc, [*size_ops, *dynamic_shared_view(alloc, site.kernel)])


class LowerPrivateAlloc(RewritePattern):
    """A private allocation to a `memref.alloca`, hoisted to the site's entry when its
    size is static."""

    def __init__(self, site: AllocationSite):
        self.site = site

    @op_type_rewrite_pattern
    def match_and_rewrite(self, alloc: AllocOp, rewriter: PatternRewriter):
        if alloc.space != MemorySpace.PRIVATE or alloc not in self.site.owned:
            return
        alloca = private_alloca(alloc, self.site.kernel)
        if alloc.dynamic_sizes:
            rewriter.replace(alloc, alloca)
            return
        rewriter.insert(alloca, InsertPoint.at_start(self.site.entry))
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


def workgroup_alloc(alloc: AllocOp) -> memref.AllocOp:
    """The workgroup `memref.alloc` a shared allocation of a workgroup `func.func` outside
    a `gpu.module` becomes (what IREE's pipeline reads), at the same place."""
    memref_type = _memref_type(alloc)
    new = memref.AllocOp.get(
        memref_type.element_type,
        alignment=shared_alignment(alloc),
        shape=memref_type.get_shape(),
        dynamic_sizes=list(alloc.dynamic_sizes),
        layout=memref_type.layout,
        memory_space=memref_type.memory_space,
    )
    keep_layout(new, single_func_layout(alloc, None))
    return new


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


def lower_shared_and_private(site: AllocationSite, allocs: Sequence[AllocOp]) -> None:
    """Erases the site's deallocs and lowers its shared and private `allocs` (heap ones
    are left for `heap_slices`); raises before any change if one cannot be."""
    check_shared(site, allocs)
    site.owned = set(allocs)
    body = site.op.regions[0]
    walker = PatternRewriteWalker(EraseDealloc(site), apply_recursively=False)
    walker.rewrite_region(body)
    patterns = [LowerSharedAlloc(site), LowerPrivateAlloc(site)]
    walker = PatternRewriteWalker(
        GreedyRewritePatternApplier(list[RewritePattern](patterns), dce_enabled=False),
        apply_recursively=False,
    )
    walker.rewrite_region(body)
