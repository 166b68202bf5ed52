"""`import-gpu-allocs`: shared and private memory as real GPU IR writes it, to `gpu_alloc`.

Guarantees, for every block-level region (`gpu.func`, kernel or not; `gpu.launch` body;
`func.func` that allocates workgroup memory, see `gpu_buffers`):

- Every type keeps the spelling the user wrote (`#gpu.address_space<workgroup>` and
  `memref<..., 3>` mean the same, `gpu_alloc.dialect.memory`): an imported allocation
  has the type of the buffer it replaces, and nothing else is retyped.
- Each workgroup/private `memref.alloc`/`alloca` becomes a `gpu_alloc.alloc` at the same
  place with the same dynamic sizes and alignment; its direct `memref.dealloc`s become
  `gpu_alloc.dealloc`. Each workgroup/private attribution of a `gpu.func` or a
  `gpu.launch` becomes a `gpu_alloc.alloc` at the entry (and leaves the signature). A workgroup `memref.global`
  (uninitialized, not constant) whose `memref.get_global`s are all in one block-level
  region becomes one `gpu_alloc.alloc` at that region's entry, and the global goes.
- Names are stable and readable: the SSA name (`%tile` -> "tile"), the attribution's
  argument name, the global's symbol, else `smem0`, `smem1`, ... (`pmem0`, ... for
  private), made unique in the region with `_1`, `_2`, ...
- A buffer whose storage leaves the block-level code (returned or yielded, stored as a
  value, passed to a kernel launch), has a layout or symbol operands, or a global shared
  between regions or initialized, stays as it is, with a remark on stderr saying why. A
  buffer that escapes within the kernel (passed to a call, an unregistered or unknown
  op, used inside an op whose regions are not modelled) is imported, with a remark: the
  analyses take it as read and written, whole, from its first use to the end of the
  kernel (`memory_effects`), so it never shares bytes, and the rest is still fused.
  Nothing else changes.

Running the pass twice changes nothing the second time.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gpu_alloc.dialect import AllocOp, DeallocOp, MemorySpace
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.memory import (
    ATTRIBUTION_ATTRS,
    attribution_alignment,
    attribution_start,
    is_workgroup_type,
    unclassified_allocation,
)
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.names import unique_name
from gpu_alloc.provenance import derive
from gpu_alloc.remarks import Remark, emit_remark
from gpu_alloc.syntax.mlir_gpu_kernels import WORKGROUP_ATTRIBUTIONS, workgroup_count
from gpu_alloc.transforms.gpu_buffers import (
    Escape,
    block_level_regions,
    buffer_space,
    escape_of,
    region_name,
)
from gpu_alloc.transforms.kernel_ir import walk_ops
from xdsl.context import Context
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass(frozen=True)
class ImportGpuAllocsPass(ModulePass):
    """Turns every workgroup and private buffer of block-level code into a
    `gpu_alloc.alloc` (see the module docstring); remarks go to stderr."""

    name = "import-gpu-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if (unknown := unclassified_allocation(op)) is not None:
            raise GpuAllocPassError(unknown.message(self.name), unknown.op)
        for remark in import_gpu_allocs(op):
            emit_remark(self.name, remark.message, remark.op)


def import_gpu_allocs(module: ModuleOp) -> list[Remark]:
    """Imports every buffer of `module` it can own; returns a remark per one it cannot
    (at the buffer's op: the alloc, the global, the function of an attribution)."""
    regions = dict(block_level_regions(module))
    remarks: list[Remark] = []
    importers = {
        owner: _RegionImporter(owner, region, remarks) for owner, region in regions.items()
    }
    for owner, importer in importers.items():
        if isinstance(owner, gpu.FuncOp | gpu.LaunchOp):
            importer.import_attributions(owner)
    for op in list(walk_ops(module)):
        if isinstance(op, memref.AllocOp | memref.AllocaOp) and buffer_space(op.memref.type):
            owner = _block_level_owner(op, importers)
            if owner is None:
                remarks.append(Remark(f"{_describe(op)} is not in block-level code; it stays", op))
            else:
                importers[owner].import_allocation(op)
    for op in list(walk_ops(module)):
        if isinstance(op, memref.GlobalOp) and is_workgroup_type(op.type):
            _import_global(op, module, importers, remarks)
    return remarks


def _block_level_owner(
    op: Operation, importers: dict[Operation, _RegionImporter]
) -> Operation | None:
    parent = op.parent_op()
    while parent is not None and parent not in importers:
        parent = parent.parent_op()
    return parent


def _describe(op: Operation) -> str:
    if isinstance(op, memref.AllocOp | memref.AllocaOp):
        hint = op.memref.name_hint
        return f"{op.name} %{hint}" if hint else op.name
    return op.name


class _RegionImporter:
    """Imports the buffers of one block-level region, naming them uniquely in it."""

    def __init__(self, owner: Operation, region: Region, remarks: list[Remark]):
        self.owner = owner
        self.entry: Block | None = region.blocks[0] if region.blocks else None
        self.remarks = remarks
        self.where = region_name(owner)
        self.names = {o.alloc_name.data for o in walk_ops(owner) if isinstance(o, AllocOp)}
        self.counters = {MemorySpace.SHARED: 0, MemorySpace.PRIVATE: 0}

    def fresh_name(self, hint: str | None, space: MemorySpace) -> str:
        if not hint or hint[0].isdigit():
            prefix = "smem" if space is MemorySpace.SHARED else "pmem"
            while f"{prefix}{self.counters[space]}" in self.names:
                self.counters[space] += 1
            hint = f"{prefix}{self.counters[space]}"
        name = unique_name(hint, self.names)
        self.names.add(name)
        return name

    def remark(self, what: str, why: str, op: Operation) -> None:
        self.remarks.append(Remark(f"in '{self.where}': {what} stays as it is: {why}", op))

    def note_escape(self, what: str, escape: Escape | None, op: Operation) -> None:
        """An imported buffer that escapes within the kernel lives for all of it."""
        if escape is not None:
            message = f"in '{self.where}': {what} is {escape.describe()}, so it lives for the "
            self.remarks.append(Remark(message + "whole kernel", op))

    def import_allocation(self, op: memref.AllocOp | memref.AllocaOp) -> None:
        memref_type = op.memref.type
        assert isinstance(memref_type, MemRefType)
        if not isinstance(memref_type.layout, NoneAttr):
            return self.remark(_describe(op), "it has a layout map", op)
        if op.symbol_operands:
            return self.remark(_describe(op), "it has symbol operands", op)
        escape = escape_of(op.memref)
        if escape is not None and escape.leaves:
            return self.remark(_describe(op), f"its storage is {escape.describe()}", op)
        self.note_escape(_describe(op), escape, op)
        space = buffer_space(memref_type)
        assert space is not None
        alignment = op.alignment.value.data if op.alignment is not None else None
        alloc = AllocOp(
            self.fresh_name(op.memref.name_hint, space), memref_type, op.dynamic_sizes, alignment
        )
        alloc.memref.name_hint = op.memref.name_hint
        derive(alloc, op)  # diagnostics on `alloc` point at the memref.alloc
        Rewriter.insert_op(alloc, InsertPoint.before(op))
        op.memref.replace_all_uses_with(alloc.memref)
        Rewriter.erase_op(op)
        _own_deallocs(alloc.memref)

    def import_attributions(self, func_op: gpu.FuncOp | gpu.LaunchOp) -> None:
        if self.entry is None:
            return
        n_inputs = attribution_start(func_op)
        n_workgroup = workgroup_count(func_op)
        kept_workgroup = n_workgroup
        attrs = _AttributionAttrs(func_op, n_workgroup)
        for index, arg in reversed(list(enumerate(self.entry.args[n_inputs:]))):
            space = buffer_space(arg.type)
            kind = "workgroup" if index < n_workgroup else "private"
            what = f"{kind} attribution %{arg.name_hint or arg.index}"
            if space is None:
                default = isinstance(arg.type, MemRefType) and index >= n_workgroup
                why = (
                    "it is in the default memory space (MLIR's private memory); the "
                    "lowering allocates it per thread as it is"
                    if default
                    else "it is not a workgroup or private memref"
                )
                self.remark(what, why, func_op)
                continue
            escape = escape_of(arg)
            if escape is not None and escape.leaves:
                self.remark(what, f"its storage is {escape.describe()}", func_op)
                continue
            self.note_escape(what, escape, func_op)
            assert isinstance(arg.type, MemRefType)
            alignment = attribution_alignment(arg)
            alloc = AllocOp(self.fresh_name(arg.name_hint, space), arg.type, (), alignment)
            attrs.drop(index)
            alloc.memref.name_hint = arg.name_hint
            Rewriter.insert_op(alloc, InsertPoint.at_start(self.entry))
            arg.replace_all_uses_with(alloc.memref)
            self.entry.erase_arg(arg)
            if index < n_workgroup:
                kept_workgroup -= 1
        attrs.store()
        if n_workgroup:
            if kept_workgroup:
                func_op.attributes[WORKGROUP_ATTRIBUTIONS] = IntegerAttr(kept_workgroup, 64)
            else:
                del func_op.attributes[WORKGROUP_ATTRIBUTIONS]


class _AttributionAttrs:
    """A `gpu.func`'s (or `gpu.launch`'s) per-attribution attribute dictionaries
    (`llvm.align`), in step with the attributions the importer removes."""

    def __init__(self, func_op: gpu.FuncOp | gpu.LaunchOp, n_workgroup: int):
        self.func_op = func_op
        self.n_workgroup = n_workgroup
        self.lists: list[list[Attribute] | None] = []
        for key in ATTRIBUTION_ATTRS:
            value = func_op.attributes.get(key)
            self.lists.append(list(value.data) if isinstance(value, ArrayAttr) else None)

    def drop(self, index: int) -> None:
        which, position = (0, index) if index < self.n_workgroup else (1, index - self.n_workgroup)
        entries = self.lists[which]
        if entries is not None and position < len(entries):
            del entries[position]

    def store(self) -> None:
        for key, entries in zip(ATTRIBUTION_ATTRS, self.lists, strict=True):
            if entries is None:
                continue
            if any(isinstance(e, DictionaryAttr) and e.data for e in entries):
                self.func_op.attributes[key] = ArrayAttr(entries)
            else:
                del self.func_op.attributes[key]


def _own_deallocs(value: SSAValue) -> None:
    for use in list(value.uses):
        if isinstance(use.operation, memref.DeallocOp):
            Rewriter.replace_op(use.operation, DeallocOp.build(operands=[value]))


def _import_global(
    global_op: memref.GlobalOp,
    module: ModuleOp,
    importers: dict[Operation, _RegionImporter],
    remarks: list[Remark],
) -> None:
    symbol = global_op.sym_name.data
    scope = global_op.parent_op() or module
    users = [
        o
        for o in walk_ops(scope)
        if isinstance(o, memref.GetGlobalOp) and o.name_.string_value() == symbol
    ]
    owners = {_block_level_owner(u, importers) for u in users}
    why = _global_refusal(global_op, users, owners)
    if why is None and _entered_by_calls(next(iter(owners)), module):
        # A global's bytes persist from one call to the next, an allocation's do not;
        # and fused with the function's Funcs it would share their bytes.
        why = "it is used by a device function, whose calls it outlives"
    escape: Escape | None = None
    if why is None:
        (owner,) = owners
        assert owner is not None
        escape = _global_escape(users)
        if escape is not None and escape.leaves:
            why = f"its storage is {escape.describe()}"
    if why is not None:
        remarks.append(Remark(f"workgroup global @{symbol} stays as it is: {why}", global_op))
        return
    importer = importers[owner]  # pyright: ignore[reportPossiblyUnbound]
    importer.note_escape(f"workgroup global @{symbol}", escape, global_op)
    assert importer.entry is not None
    memref_type = global_op.type
    assert isinstance(memref_type, MemRefType)
    alignment = global_op.alignment.value.data if global_op.alignment is not None else None
    alloc = AllocOp(importer.fresh_name(symbol, MemorySpace.SHARED), memref_type, (), alignment)
    alloc.memref.name_hint = symbol
    derive(alloc, global_op)
    Rewriter.insert_op(alloc, InsertPoint.at_start(importer.entry))
    for user in users:
        user.results[0].replace_all_uses_with(alloc.memref)
        Rewriter.erase_op(user)
    Rewriter.erase_op(global_op)


def _entered_by_calls(owner: Operation | None, module: ModuleOp) -> bool:
    """Whether `owner` is a function that calls enter (a device function), not a
    kernel, a launch body or an uncalled top-level entry run once per workgroup."""
    if not isinstance(owner, func.FuncOp) or is_kernel(owner):
        return False
    parent = owner.parent_op()
    while parent is not None:
        if isinstance(parent, gpu.ModuleOp):
            return True
        parent = parent.parent_op()
    name = owner.sym_name.data
    return any(
        isinstance(o, func.CallOp) and o.callee.string_value() == name for o in walk_ops(module)
    )


def _global_refusal(
    global_op: memref.GlobalOp, users: list[memref.GetGlobalOp], owners: set[Operation | None]
) -> str | None:
    if not users:
        return "it is never used"
    if None in owners:
        return "it is used outside block-level code"
    if len(owners) > 1:
        return "it is used by more than one kernel or function"
    if not isinstance(global_op.initial_value, UnitAttr) or global_op.constant is not None:
        return "it has an initial value"
    if global_op.type != users[0].memref.type:
        return "its uses have another type"
    return None


def _global_escape(users: Iterable[memref.GetGlobalOp]) -> Escape | None:
    escapes = [e for user in users if (e := escape_of(user.memref)) is not None]
    return next((e for e in escapes if e.leaves), escapes[0] if escapes else None)
