"""`fuse-gpu-allocs`: one backing buffer per memory space per kernel, one alias per Func.

Guarantees, for every kernel (`gpu.func` with `kernel`/`gpu.kernel`):

- Every block-level shared (space 3) and heap (space 1) `gpu_alloc.alloc` is hoisted
  to the kernel entry together with the ops computing its dynamic sizes. A size that
  depends on a thread id, a loop variable or memory is diagnosed.
- Two allocations share bytes only if a barrier separates every use of one from every
  use of the other (see `lifetimes`); every offset is a multiple of max(element size,
  the alloc's `alignment`, the `alignment` option); offsets and the backing's size are
  computed in bytes from the same quantities, so every Func ends inside the backing.
- Per space with more than one allocation (or any heap allocation): one `i8` backing
  `gpu_alloc.alloc` named `shared_alloc` / `global_alloc` (made unique in the module)
  and one `offset_pointer` + `alias` per Func, carrying the Func's name. Loads and
  stores keep using the per-Func values. Static allocations come first (constant
  offsets), dynamic ones after them (offsets computed with `arith`). Heap offsets add
  `linear_block_id * per_block_bytes`; the kernel gets `gpu_alloc.heap_bytes_per_block`
  when that is static. A kernel with exactly one shared allocation keeps it as it is.
- Same-name allocations with disjoint lifetimes (unrolled copies) share one slot;
  a private (space 5) allocation whose name collides with a block-level one is renamed
  `<name>_reg`. Private allocations are hoisted to the kernel entry, never packed.
- With `report=true`, a per-kernel table goes to stderr. A static shared backing over
  `max-shared-bytes` fails the pass with a diagnostic naming the kernel and its
  largest Funcs.

Running the pass twice changes nothing the second time.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.dialect import AliasOp, AllocOp, MemorySpace, OffsetPointerOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import element_bytes, static_byte_size
from gpu_alloc.transforms.fusion_plan import Slot, SpacePlan, plan_space
from gpu_alloc.transforms.fusion_report import FuncRow, KernelReport, format_report
from gpu_alloc.transforms.gpu_buffers import Kernel, fusable_kernels, print_fuse_remarks
from gpu_alloc.transforms.kernel_ir import (
    BLOCK_UNIFORM_OPS,
    THREAD_ID_OPS,
    ThreadDependence,
    enclosing_ops,
    kernel_name,
    next_power_of_two,
)
from gpu_alloc.transforms.lifetimes import Lifetime, StageMap, lifetime, stage_map
from gpu_alloc.transforms.packing import DEFAULT_TIME_LIMIT
from gpu_alloc.transforms.reuse_barriers import insert_reuse_barriers
from gpu_alloc.transforms.trip_bounds import is_non_decreasing, value_at_last_trip
from xdsl.context import Context
from xdsl.dialects import arith, gpu, scf
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i8,
)
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free

BACKING_NAMES = {MemorySpace.SHARED: "shared_alloc", MemorySpace.GLOBAL: "global_alloc"}
HEAP_BYTES_ATTR = "gpu_alloc.heap_bytes_per_block"


@dataclass
class Func:
    """One block-level allocation of a kernel (or several same-name copies)."""

    ops: list[AllocOp]
    lifetime: Lifetime
    static_bytes: int | None
    alignment: int

    @property
    def name(self) -> str:
        return self.ops[0].alloc_name.data

    @property
    def space(self) -> int:
        return self.ops[0].space


@dataclass
class _Builder:
    """Collects new ops (in order) for the kernel entry."""

    ops: list[Operation] = field(default_factory=list[Operation])

    def add(self, op: Operation) -> SSAValue:
        self.ops.append(op)
        return op.results[0]

    def const(self, value: int) -> SSAValue:
        result = self.add(arith.ConstantOp(IntegerAttr(value, IndexType())))
        result.name_hint = f"c{value}"
        return result

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(arith.MuliOp(a, b))

    def add_index(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.add(arith.AddiOp(a, b))

    def align_up(self, value: SSAValue, alignment: int) -> SSAValue:
        if alignment == 1:
            return value
        bumped = self.add_index(value, self.const(alignment - 1))
        return self.mul(
            self.add(arith.DivUIOp(bumped, self.const(alignment))), self.const(alignment)
        )


def _error(message: str, op: Operation) -> GpuAllocPassError:
    return GpuAllocPassError(message, op)


@dataclass(frozen=True)
class FuseGpuAllocsPass(ModulePass):
    """Fuse each kernel's shared and heap allocations; see the module docstring."""

    name = "fuse-gpu-allocs"

    alignment: int = 16
    """Minimum byte alignment of every Func's offset (a power of two)."""

    report: bool = False
    """Print a per-kernel layout table to stderr."""

    max_shared_bytes: int = 49152
    """Static shared bytes a kernel may use (CUDA's default limit per block)."""

    time_limit: float = DEFAULT_TIME_LIMIT
    """Seconds the packer may search per kernel and memory space."""

    insert_barriers: str = "over-limit"
    """`never`, `over-limit` or `always`: add barriers that let Funcs share bytes."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.alignment <= 0 or self.alignment & (self.alignment - 1):
            raise GpuAllocPassError(
                f"fuse-gpu-allocs: option alignment must be a positive power of two, "
                f"got {self.alignment}"
            )
        print_fuse_remarks(op)  # what the pass leaves alone, never silently
        insert_reuse_barriers(op, self, fuse_module)
        reports = fuse_module(op, self)
        if self.report:
            print(format_report(reports), file=sys.stderr)


def fuse_module(module: ModuleOp, options: FuseGpuAllocsPass) -> list[KernelReport]:
    """Fuse every kernel of `module`; returns what `report=true` prints, per kernel."""
    used_names = {
        o.alloc_name.data if isinstance(o, AllocOp) else o.alias_name.data
        for o in module.walk()
        if isinstance(o, AllocOp | AliasOp)
    }
    return [_KernelFuser(options, k, used_names).run() for k in list(fusable_kernels(module))]


class _KernelFuser:
    def __init__(self, options: FuseGpuAllocsPass, kernel: Kernel, used_names: set[str]):
        self.options = options
        self.kernel = kernel
        self.entry = kernel.body.blocks[0]
        self.used_names = used_names
        self.depends_on_thread = ThreadDependence(kernel)

    def unique_name(self, prefix: str) -> str:
        name, n = prefix, 0
        while name in self.used_names:
            n += 1
            name = f"{prefix}_{n}"
        self.used_names.add(name)
        return name

    # ----------------------------------------------------------------- analysis

    def run(self) -> KernelReport:
        allocs = [
            o
            for o in self.kernel.walk()
            if isinstance(o, AllocOp)
            and not any(isinstance(u.operation, OffsetPointerOp) for u in o.memref.uses)
        ]
        block_level = [a for a in allocs if a.space != MemorySpace.PRIVATE]
        private = [a for a in allocs if a.space == MemorySpace.PRIVATE]
        for alloc in block_level:
            self.check_block_level(alloc)
        stages = stage_map(self.kernel)
        funcs = self.merge_same_names(block_level, stages)
        for alloc in private:
            self.size_for_largest_trip(alloc)
        last_hoisted = self.hoist_sizes(allocs)
        hoisted_private = self.rename_and_hoist_private(private, block_level)
        report = KernelReport(
            kernel=kernel_name(self.kernel),
            stages=stages.last_stage + 1,
            not_intact_reason=stages.not_intact_reason,
        )
        new_ops: list[Operation] = []
        for space in (MemorySpace.SHARED, MemorySpace.GLOBAL):
            space_funcs = [f for f in funcs if f.space == space]
            if space_funcs:
                new_ops += self.fuse_space(space, space_funcs, report)
        insert_at = (
            InsertPoint.after(last_hoisted)
            if last_hoisted is not None
            else InsertPoint.at_start(self.entry)
        )
        Rewriter.insert_op(new_ops + hoisted_private, insert_at)
        return report

    def check_block_level(self, alloc: AllocOp) -> None:
        for parent in enclosing_ops(alloc, stop=self.kernel):
            thread_dependent = (
                isinstance(parent, scf.IfOp)
                and self.depends_on_thread(parent.cond)
                or isinstance(parent, scf.ForOp)
                and any(self.depends_on_thread(v) for v in (parent.lb, parent.ub, parent.step))
                or not isinstance(parent, scf.IfOp | scf.ForOp)
            )
            if thread_dependent:
                raise _error(
                    f"{_space_word(alloc.space)} allocation '{alloc.alloc_name.data}' is under "
                    f"thread-dependent control flow ('{parent.name}'); block-level "
                    "allocations must be made by every thread of the block",
                    alloc,
                )

    def merge_same_names(self, allocs: Sequence[AllocOp], stages: StageMap) -> list[Func]:
        funcs: list[Func] = []
        by_key: dict[tuple[int, str], list[Func]] = {}
        for alloc in allocs:
            memref_type = alloc.memref.type
            assert isinstance(memref_type, MemRefType)
            elem = element_bytes(memref_type.get_element_type())
            if elem is None:
                raise _error(
                    f"allocation '{alloc.alloc_name.data}' has element type "
                    f"{memref_type.get_element_type()}, whose size in bytes is unknown",
                    alloc,
                )
            alignment = max(
                next_power_of_two(elem),
                self.options.alignment,
                alloc.alignment.value.data if alloc.alignment else 1,
            )
            func = Func(
                [alloc],
                lifetime(alloc, alloc.memref, stages),
                static_byte_size(memref_type),
                alignment,
            )
            same = by_key.setdefault((func.space, func.name), [])
            partner = next(
                (
                    f
                    for f in same
                    if f.static_bytes is not None
                    and func.static_bytes is not None
                    and not f.lifetime.overlaps(func.lifetime)
                ),
                None,
            )
            if partner is not None:
                partner.ops.append(alloc)
                partner.lifetime = partner.lifetime.union(func.lifetime)
                partner.static_bytes = max(partner.static_bytes or 0, func.static_bytes or 0)
                partner.alignment = max(partner.alignment, func.alignment)
            else:
                same.append(func)
                funcs.append(func)
        return funcs

    def hoist_sizes(self, allocs: Sequence[AllocOp]) -> Operation | None:
        """Move the ops computing dynamic sizes to the kernel entry, in order.

        Returns the last of them: the allocations go right after it."""
        slice_ops: list[Operation] = []
        seen: set[Operation] = set()
        for alloc in allocs:
            for size in alloc.dynamic_sizes:
                self.collect_size_slice(alloc, size, slice_ops, seen)
        for op in slice_ops:
            op.detach()
        Rewriter.insert_op(slice_ops, InsertPoint.at_start(self.entry))
        return slice_ops[-1] if slice_ops else None

    def collect_size_slice(
        self, alloc: AllocOp, value: SSAValue, out: list[Operation], seen: set[Operation]
    ) -> None:
        name = alloc.alloc_name.data
        if isinstance(value, BlockArgument):
            if value.block is self.entry:
                return
            raise _error(
                f"the size of allocation '{name}' depends on a loop variable or region "
                "argument; sizes must be computed from kernel arguments, constants and "
                "block/grid ids",
                alloc,
            )
        op = value.owner
        assert isinstance(op, Operation)
        if op in seen:
            return
        if isinstance(op, THREAD_ID_OPS):
            raise _error(
                f"the size of allocation '{name}' depends on the thread id ('{op.name}'); "
                "a block-level allocation has one size for the whole block",
                alloc,
            )
        if op.regions or not (is_side_effect_free(op) or isinstance(op, BLOCK_UNIFORM_OPS)):
            raise _error(
                f"the size of allocation '{name}' is computed by '{op.name}'; sizes must be "
                "computed from kernel arguments, constants and block/grid ids",
                alloc,
            )
        for operand in op.operands:
            self.collect_size_slice(alloc, operand, out, seen)
        seen.add(op)
        out.append(op)

    def size_for_largest_trip(self, alloc: AllocOp) -> None:
        """Replace each loop-dependent size of a private alloc by its largest-trip value."""
        for parent in enclosing_ops(alloc, stop=self.kernel):
            if not isinstance(parent, scf.ForOp):
                continue
            for index, size in enumerate(alloc.dynamic_sizes):
                if not is_non_decreasing(size, parent):
                    raise _error(
                        f"the size of private allocation '{alloc.alloc_name.data}' does not "
                        "grow monotonically with the enclosing loop's induction variable; "
                        "it cannot be sized for the largest trip",
                        alloc,
                    )
                alloc.operands[index] = value_at_last_trip(size, parent)

    def rename_and_hoist_private(
        self, private: Sequence[AllocOp], block_level: Sequence[AllocOp]
    ) -> list[Operation]:
        block_names = {a.alloc_name.data for a in block_level}
        for alloc in private:
            if alloc.alloc_name.data in block_names:
                renamed = self.unique_name(f"{alloc.alloc_name.data}_reg")
                alloc.properties["name"] = StringAttr(renamed)
            alloc.detach()
        return list(private)

    # ----------------------------------------------------------------- emission

    def fuse_space(
        self, space: MemorySpace, funcs: list[Func], report: KernelReport
    ) -> list[Operation]:
        plan = plan_space(
            [Slot(f.lifetime, f.static_bytes, f.alignment) for f in funcs],
            time_limit=self.options.time_limit,
        )
        if space == MemorySpace.SHARED:
            self.check_shared_limit(funcs, plan)
        keep_as_is = space == MemorySpace.SHARED and len(funcs) == 1 and len(funcs[0].ops) == 1
        builder = _Builder()
        if keep_as_is:
            alloc = funcs[0].ops[0]
            alloc.detach()
            builder.ops.append(alloc)
            report.add_space(
                space,
                alloc.alloc_name.data,
                plan,
                [FuncRow(funcs[0].name, space, funcs[0].static_bytes, 0, funcs[0].lifetime)],
            )
            return builder.ops
        backing_name = self.unique_name(BACKING_NAMES[space])
        is_heap = space == MemorySpace.GLOBAL
        offsets, total = self.layout_values(
            builder, funcs, plan, need_total=is_heap or bool(plan.dynamic_order)
        )
        base: SSAValue | None = None
        size_operand = total
        if is_heap:
            assert total is not None
            base, size_operand = self.heap_slice(builder, total)
            if not plan.dynamic_order:
                self.kernel.attributes[HEAP_BYTES_ATTR] = IntegerAttr(plan.static_bytes, 64)
        static_total = (
            plan.static_bytes
            if not plan.dynamic_order and space == MemorySpace.SHARED
            else DYNAMIC_INDEX
        )
        backing_type = MemRefType(i8, [static_total], memory_space=IntegerAttr(int(space), 32))
        backing_alignment = max(f.alignment for f in funcs)
        backing = builder.add(
            AllocOp(
                backing_name,
                backing_type,
                [size_operand]
                if size_operand is not None and static_total == DYNAMIC_INDEX
                else [],
                alignment=backing_alignment,
            )
        )
        backing.name_hint = backing_name
        rows: list[FuncRow] = []
        for k, (func, offset) in enumerate(zip(funcs, offsets, strict=True)):
            if base is not None:
                offset = builder.add_index(base, offset)
            aliases: dict[MemRefType, SSAValue] = {}
            for alloc in func.ops:
                memref_type = alloc.memref.type
                assert isinstance(memref_type, MemRefType)
                if memref_type not in aliases or alloc.dynamic_sizes:
                    pointer = builder.add(OffsetPointerOp(backing, offset))
                    alias = builder.add(
                        AliasOp(func.name, pointer, memref_type, list(alloc.dynamic_sizes))
                    )
                    alias.name_hint = alloc.memref.name_hint
                    aliases[memref_type] = alias
                alloc.memref.replace_all_uses_with(aliases[memref_type])
                Rewriter.erase_op(alloc)
            rows.append(
                FuncRow(
                    func.name,
                    space,
                    func.static_bytes,
                    plan.static_offsets[k],
                    func.lifetime,
                )
            )
        report.add_space(space, backing_name, plan, rows)
        return builder.ops

    def layout_values(
        self, builder: _Builder, funcs: Sequence[Func], plan: SpacePlan, need_total: bool
    ) -> tuple[list[SSAValue], SSAValue | None]:
        """The byte offset of every Func and (if needed) the total bytes, as index values."""
        offsets: list[SSAValue | None] = [None] * len(funcs)
        constants: dict[int, SSAValue] = {}
        for k, offset in enumerate(plan.static_offsets):
            if offset is not None:
                if offset not in constants:
                    constants[offset] = builder.const(offset)
                offsets[k] = constants[offset]
        if not plan.dynamic_order:
            total = None if not need_total else builder.const(plan.static_bytes)
        else:
            cursor = builder.const(plan.static_bytes)
            for k in plan.dynamic_order:
                start = builder.align_up(cursor, funcs[k].alignment)
                offsets[k] = start
                cursor = builder.add_index(start, self.dynamic_byte_size(builder, funcs[k].ops[0]))
            total = cursor
        assert all(o is not None for o in offsets)
        return [o for o in offsets if o is not None], total

    def dynamic_byte_size(self, builder: _Builder, alloc: AllocOp) -> SSAValue:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        static_part = element_bytes(memref_type.get_element_type()) or 1
        for dim in memref_type.get_shape():
            if dim != DYNAMIC_INDEX:
                static_part *= dim
        size = builder.const(static_part)
        for dynamic in alloc.dynamic_sizes:
            size = builder.mul(size, dynamic)
        return size

    def heap_slice(self, builder: _Builder, per_block: SSAValue) -> tuple[SSAValue, SSAValue]:
        """This block's slice start, and the bytes of the whole grid's heap buffer."""
        dims = [
            gpu.DimensionAttr(d)
            for d in (gpu.DimensionEnum.X, gpu.DimensionEnum.Y, gpu.DimensionEnum.Z)
        ]
        bid = [builder.add(gpu.BlockIdOp(d)) for d in dims]
        nblocks = [builder.add(gpu.GridDimOp(d)) for d in dims]
        # linear id = bx + nbx * (by + nby * bz)
        inner = builder.add_index(bid[1], builder.mul(nblocks[1], bid[2]))
        linear = builder.add_index(bid[0], builder.mul(nblocks[0], inner))
        grid = builder.mul(builder.mul(nblocks[0], nblocks[1]), nblocks[2])
        return builder.mul(linear, per_block), builder.mul(per_block, grid)

    def check_shared_limit(self, funcs: Sequence[Func], plan: SpacePlan) -> None:
        limit = self.options.max_shared_bytes
        if plan.static_bytes <= limit:
            return
        largest = sorted(
            (f for f in funcs if f.static_bytes is not None), key=lambda f: -(f.static_bytes or 0)
        )[:3]
        names = ", ".join(f"'{f.name}' ({f.static_bytes} B)" for f in largest)
        raise _error(
            f"kernel '{kernel_name(self.kernel)}' needs {plan.static_bytes} bytes of shared "
            f"memory, over the limit of {limit} (max-shared-bytes); largest: {names}",
            self.kernel,
        )


def _space_word(space: int) -> str:
    return {1: "heap", 3: "shared", 5: "private"}.get(space, "")
