"""`fuse-gpu-allocs`: one backing buffer per memory space per kernel, one alias per Func.

Guarantees, for every unit of block-level code (`block_level_code`: a `gpu.func`
kernel, a `gpu.launch` body, a workgroup `func.func`):

- Every block-level shared (space 3) and heap (space 1) `gpu_alloc.alloc` is hoisted
  to the entry together with the ops computing its dynamic sizes. A size that depends
  on a thread id, a loop variable or memory is diagnosed. One made in a loop body is
  hoisted only where that adds no race (`loop_allocs`); otherwise a barrier closes the
  loop's back edge (`insert-barriers=over-limit` or `always`, reported) or the pass
  refuses it (`never`, or code not every thread enters).
- Two allocations share bytes only if a barrier separates every use of one from every
  use of the other (see `lifetimes`); every offset is a multiple of max(element size,
  the alloc's `alignment`, the `alignment` option); offsets and the backing's size are
  computed in bytes from the same quantities, so every Func ends inside the backing.
- The static part of a backing is never larger than the unfused layout (the Funcs one
  after another at their own alignment, `plan`): where padding to the `alignment`
  option would cost more than fusing saves, the Funcs keep that unfused layout, each
  offset then a multiple of max(element size, the alloc's `alignment`) only.
- Per space with more than one allocation: one `i8` backing `gpu_alloc.alloc` with
  the `backing` property, named `shared_alloc` / `global_alloc` (made unique in the
  module), aligned to its most aligned Func, recording each static Func's bytes and
  stage interval (`gpu_alloc.layout`), and one `offset_pointer` + `alias` per Func,
  carrying the Func's name. Loads and stores keep using the per-Func values.
  Static allocations come first (constant offsets), dynamic ones after them (offsets
  computed with `arith`). A heap backing is per-block storage like every space-1
  allocation: `lower-gpu-allocs` gives each block its slice. A space with a single
  allocation keeps it as it is.
- Same-name allocations with disjoint lifetimes (unrolled copies) share one slot;
  a private (space 5) allocation whose name collides with a block-level one is renamed
  `<name>_reg`. Private allocations are hoisted to the kernel entry, never packed; a
  size that grows with an enclosing loop's variable is taken at its last trip.
- With `report=true`, a per-kernel table goes to stderr. A static shared backing over
  `max-shared-bytes`, with the shared memory of the functions the code calls, or more
  static `.shared` arrays than ptxas takes, fails the pass with a diagnostic naming the
  kernel, its callees and its largest Funcs.
- All units are analysed and planned (`analysis`) before any IR changes: on
  any diagnostic the module is exactly as it was.

Running the pass twice changes nothing the second time (backings are not Funcs, and
code with nothing left to fuse keeps its allocations where they are).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import (
    LAYOUT_ATTR,
    LOWER_BOUND_ATTR,
    PROVEN_OPTIMAL_ATTR,
    AliasOp,
    AllocOp,
    FuncSlice,
    OffsetPointerOp,
    layout_attr,
)
from gpu_alloc.dialect.memory import spelling_for, unclassified_allocation
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import byte_size_ops
from gpu_alloc.names import unique_name
from gpu_alloc.packing import DEFAULT_TIME_LIMIT
from gpu_alloc.provenance import derive
from gpu_alloc.targets import Device
from gpu_alloc.transforms.block_level_code import block_level_code, kernel_allocs
from gpu_alloc.transforms.block_sizes import size_slices
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.device_option import device_option
from gpu_alloc.transforms.fuse.analysis import (
    Func,
    FuseOptions,
    KernelPlan,
    SpaceLayout,
    check_shared_limit,
    name_plan,
    plan_kernel,
)
from gpu_alloc.transforms.fuse.report import KernelReport, format_report
from gpu_alloc.transforms.fuse.reuse_barriers import FusionUnits, insert_barriers
from gpu_alloc.transforms.fuse.trip_bounds import value_at_last_trip
from gpu_alloc.transforms.gpu_buffers import print_fuse_remarks
from gpu_alloc.transforms.kernel_ir import walk_ops
from gpu_alloc.transforms.module_target import attach_target, device_at
from gpu_alloc.transforms.runs_once import RunsOnce, check_runs_once
from gpu_alloc.transforms.shared_globals import shared_global_bytes_read
from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter


@dataclass(frozen=True)
class FuseGpuAllocsPass(ModulePass):
    """Fuse each kernel's shared and heap allocations into one backing per memory
    space with one named alias per Func; on a diagnostic the module is unchanged.

    See the module docstring of `gpu_alloc.transforms.fuse.fuse_gpu_allocs`."""

    name = "fuse-gpu-allocs"

    alignment: int = 16
    """Minimum byte alignment of every Func's offset (a power of two)."""

    report: bool = False
    """Print a per-kernel layout table to stderr."""

    chip: str = ""
    """The chip to fuse for (`sm_90`, `gfx942`, ... of `gpu_alloc.targets`); sets the
    default `max-shared-bytes` (sm_90: 227 KiB, gfx942: 64 KiB, gfx950: 160 KiB; 48 KiB
    without a chip)."""

    max_shared_bytes: int | None = None
    """Shared bytes a kernel may use; by default what one block of `chip` may use."""

    budget: int | None = None
    """Work units the packer may spend per kernel and memory space (default: packing.DEFAULT_BUDGET
    without a time limit, unlimited with one); the same input then always gives the same layout."""

    time_limit: float | None = DEFAULT_TIME_LIMIT
    """Optional wall-clock cap in seconds on the packer's search (default none: the layout then
    may depend on the machine's load)."""

    insert_barriers: str = "over-limit"
    """`never`, `over-limit` or `always`: add barriers that let Funcs share bytes."""

    def device(self, at: Operation | None = None) -> Device:
        """The device the code at `at` is fused for: its `gpu.module`'s target attribute
        or the `chip` option (`module_target.device_at`; they must agree)."""
        if at is None:
            return device_option(self.name, self.chip)
        return device_at(at, self.name, self.chip)

    def shared_limit(self, at: Operation | None = None) -> int:
        """`max-shared-bytes`, or what one block of the device at `at` may use."""
        if self.max_shared_bytes is not None:
            return self.max_shared_bytes
        return self.device(at).shared_bytes_per_block

    def limit_source(self, at: Operation | None = None) -> str:
        """Where the limit of `shared_limit(at)` comes from, for messages."""
        if self.max_shared_bytes is not None:
            return "max-shared-bytes"
        return f"what one block of {self.device(at).describe()} may use"

    def fuse_options(self, at: Operation | None = None) -> FuseOptions:
        return FuseOptions(
            self.alignment,
            self.shared_limit(at),
            self.time_limit,
            self.budget,
            self.device(at).static_shared_limit,
        )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reports = self.run(op)
        if self.chip:  # the module records the chip it was fused for
            attach_target(ctx, op, self.device())
        if self.report:
            print(format_report(reports), file=sys.stderr)

    def run(self, op: ModuleOp) -> list[KernelReport]:
        """What `apply` does; returns what `report=true` prints, per kernel
        (`gpu_alloc.api.fuse` makes it a `FusionResult`)."""
        self.check_options()
        if (unknown := unclassified_allocation(op)) is not None:
            raise GpuAllocPassError(unknown.message(self.name), unknown.op)
        print_fuse_remarks(op)  # what the pass leaves alone, never silently
        fusion = fusion_units(op)
        inserted = insert_barriers(fusion, self)
        try:
            return fuse_module(op, self, fusion)
        except GpuAllocPassError:
            for barrier in inserted:  # a failed pass leaves the module as it was
                Rewriter.erase_op(barrier.op)
            raise

    def check_options(self) -> None:
        """Raises for an option value the pass cannot use."""
        self.shared_limit()
        if self.max_shared_bytes is not None and self.max_shared_bytes < 0:
            raise GpuAllocPassError(
                f"fuse-gpu-allocs: option max-shared-bytes must be a non-negative number of "
                f"bytes, got {self.max_shared_bytes}"
            )
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise GpuAllocPassError(
                f"fuse-gpu-allocs: option alignment must be a positive power of two, "
                f"got {self.alignment}"
            )
        if self.budget is not None and self.budget < 0:
            raise GpuAllocPassError(
                f"fuse-gpu-allocs: option budget must be a non-negative number of work units, "
                f"got {self.budget}"
            )
        if self.time_limit is not None and not self.time_limit >= 0:
            raise GpuAllocPassError(
                f"fuse-gpu-allocs: option time-limit must be a non-negative number of seconds, "
                f"got {self.time_limit}"
            )


def fusion_units(module: ModuleOp) -> FusionUnits:
    """The block-level code of `module` and its call graph, before anything is planned."""
    return FusionUnits(module, block_level_code(module), CallGraph(module), {})


def fuse_module(
    module: ModuleOp, options: FuseGpuAllocsPass, fusion: FusionUnits | None = None
) -> list[KernelReport]:
    """Fuse every kernel of `module`; returns what `report=true` prints, per kernel.

    Plans every kernel and checks every limit (a kernel's shared memory includes that
    of the functions it calls) first, then rewrites them."""
    fusion = fusion or fusion_units(module)
    used_names = {
        o.alloc_name.data if isinstance(o, AllocOp) else o.alias_name.data
        for o in walk_ops(module)
        if isinstance(o, AllocOp | AliasOp)
    }

    def fresh_name(prefix: str) -> str:
        name = unique_name(prefix, used_names)
        used_names.add(name)
        return name

    plans: dict[Operation, KernelPlan] = {}
    runs_once = RunsOnce(fusion.graph)
    for unit in fusion.units:
        check_runs_once(unit, kernel_allocs(unit), runs_once)
    for unit in fusion.units:
        plan = fusion.base_plans.get(unit)
        if plan is None:
            depends = fusion.graph.thread_dependence(unit)
            plan = plan_kernel(unit, options.fuse_options(unit), depends)
        plans[unit] = plan
    for unit, plan in plans.items():
        callees = [plans[c] for c in fusion.graph.callees(unit) if c in plans]
        unit_options = options.fuse_options(unit)
        check_shared_limit(
            plan,
            unit_options.max_shared_bytes,
            callees,
            unit_options.static_shared_limit,
            global_bytes=shared_global_bytes_read(unit),
            limit_source=options.limit_source(unit),
        )
    named = [name_plan(plan, fresh_name) for plan in plans.values()]
    for plan in named:
        _rewrite_kernel(plan)
    return [plan.report for plan in named]


def _rewrite_kernel(plan: KernelPlan) -> None:
    """Carries out a plan; raises nothing a user can cause. Code with nothing to fuse
    whose allocations are all in its entry block already is left as it is (so a second
    run changes nothing)."""
    entry = plan.kernel.body.blocks[0]
    for private in plan.private:
        if private.new_name is not None:
            private.alloc.properties["name"] = StringAttr(private.new_name)
        for loop in private.last_trip_loops:
            for index, size in enumerate(private.alloc.dynamic_sizes):
                private.alloc.operands[index] = value_at_last_trip(size, loop)
    fused = [layout for layout in plan.spaces if layout.backing]
    kept = [layout.funcs[0].ops[0] for layout in plan.spaces if layout.backing is None]
    hoisted = [*kept, *(p.alloc for p in plan.private)]
    if not fused and all(op.parent_block() is entry for op in hoisted):
        return
    slice_ops = size_slices(plan.allocs, entry)
    for op in [*slice_ops, *hoisted]:
        op.detach()
    Rewriter.insert_op(slice_ops, InsertPoint.at_start(entry))
    # New ops go after the sizes, before the first op that stays: the Funcs' own allocs
    # (an imported attribution sits at the very start) are erased on the way.
    replaced = {op for layout in fused for f in layout.funcs for op in f.ops}
    anchor = next(op for op in list(entry.ops)[len(slice_ops) :] if op not in replaced)
    builder = Builder(InsertPoint.before(anchor))
    for layout in plan.spaces:
        _emit_space(builder, layout)
    for private in plan.private:
        builder.insert(private.alloc)


def _emit_space(builder: Builder, layout: SpaceLayout) -> None:
    funcs, plan = layout.funcs, layout.plan
    if layout.backing is None:
        builder.insert(funcs[0].ops[0])  # detached by the caller
        return
    offsets, total = _layout_values(builder, funcs, layout)
    static_total = DYNAMIC_INDEX if plan.dynamic_order else plan.static_bytes
    spelling = spelling_for(layout.space, (op.memref.type for f in funcs for op in f.ops))
    backing_type = MemRefType(i8, [static_total], memory_space=spelling)
    backing_op = AllocOp(
        layout.backing,
        backing_type,
        [total] if total is not None else [],
        alignment=max(f.alignment for f in funcs),
        backing=True,
    )
    derive(backing_op, funcs[0].ops[0])  # a diagnostic on the backing points at a Func
    if record := _fused_layout(layout):
        backing_op.attributes[LAYOUT_ATTR] = record
    if plan.optimal and plan.static_bytes > plan.max_load:  # `fusion_result` reads both
        backing_op.attributes[PROVEN_OPTIMAL_ATTR] = UnitAttr()
    elif plan.lower_bound > plan.max_load:
        backing_op.attributes[LOWER_BOUND_ATTR] = IntegerAttr(plan.lower_bound, i64)
    backing = builder.insert(backing_op).memref
    backing.name_hint = layout.backing
    for func, offset in zip(funcs, offsets, strict=True):
        aliases: dict[MemRefType, SSAValue] = {}
        for alloc in func.ops:
            memref_type = alloc.memref.type
            assert isinstance(memref_type, MemRefType)
            if memref_type not in aliases or alloc.dynamic_sizes:
                pointer = builder.insert(OffsetPointerOp(backing, offset)).pointer
                alias_op = builder.insert(
                    AliasOp(func.name, pointer, memref_type, list(alloc.dynamic_sizes))
                )
                derive(alias_op, alloc)  # later diagnostics point at the Func's alloc
                alias = alias_op.memref
                alias.name_hint = alloc.memref.name_hint
                aliases[memref_type] = alias
            alloc.memref.replace_all_uses_with(aliases[memref_type])
            Rewriter.erase_op(alloc)


def _fused_layout(layout: SpaceLayout) -> ArrayAttr | None:
    """The `gpu_alloc.layout` record of a new backing: each static Func's bytes and the
    stages fusion gave it (its lifetime), so that later passes (`remove-dead-allocs`)
    know which Funcs share bytes only because their stages are disjoint."""
    slices = [
        FuncSlice(func.name, offset, func.static_bytes, func.lifetime.start, func.lifetime.end - 1)
        for func, offset in zip(layout.funcs, layout.plan.static_offsets, strict=True)
        if offset is not None and func.static_bytes is not None
    ]
    return layout_attr(slices) if slices else None


def _const(builder: Builder, value: int) -> SSAValue:
    result = builder.insert(arith.ConstantOp(IntegerAttr(value, IndexType()))).result
    result.name_hint = f"c{value}"
    return result


def _align_up(builder: Builder, value: SSAValue, alignment: int) -> SSAValue:
    if alignment == 1:
        return value
    bumped = builder.insert(arith.AddiOp(value, _const(builder, alignment - 1))).result
    quotient = builder.insert(arith.DivUIOp(bumped, _const(builder, alignment))).result
    return builder.insert(arith.MuliOp(quotient, _const(builder, alignment))).result


def _layout_values(
    builder: Builder, funcs: Sequence[Func], layout: SpaceLayout
) -> tuple[list[SSAValue], SSAValue | None]:
    """The byte offset of every Func and, with dynamic Funcs, the total bytes."""
    plan = layout.plan
    offsets: list[SSAValue | None] = [None] * len(funcs)
    constants: dict[int, SSAValue] = {}
    for k, offset in enumerate(plan.static_offsets):
        if offset is not None:
            if offset not in constants:
                constants[offset] = _const(builder, offset)
            offsets[k] = constants[offset]
    total: SSAValue | None = None
    if plan.dynamic_order:
        cursor = _const(builder, plan.static_bytes)
        for k in plan.dynamic_order:
            start = _align_up(builder, cursor, funcs[k].alignment)
            offsets[k] = start
            size = _dynamic_byte_size(builder, funcs[k].ops[0])
            cursor = builder.insert(arith.AddiOp(start, size)).result
        total = cursor
    assert all(o is not None for o in offsets)
    return [o for o in offsets if o is not None], total


def _dynamic_byte_size(builder: Builder, alloc: AllocOp) -> SSAValue:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    ops, size = byte_size_ops(memref_type, alloc.dynamic_sizes)
    for op in ops:
        builder.insert(op)
    return size
