"""`lower-gpu-allocs`: the remaining `gpu_alloc` ops to the standard `gpu`/`memref` dialects.

Input is the flattened form (after `fuse-gpu-allocs` and `flatten-aliases`, or straight
from the user, unfused). Per kernel (`gpu.func` inside a `gpu.module`):

* a static shared (space 3) allocation becomes a `memref.global` in space 3, named
  `<kernel>__<alloc>` (made unique in its `gpu.module`), aligned to at least 16 bytes,
  read with `memref.get_global`;
* a dynamic shared allocation, or a static one above 48 KiB (`STATIC_SHARED_LIMIT`,
  the most a PTX kernel may declare statically), becomes the block's dynamic shared
  memory, its byte size recomputed from each `gpu.launch_func`'s operands into
  `dynamic_shared_memory_size`; above 48 KiB the host must also raise the kernel's
  `cudaFuncAttributeMaxDynamicSharedMemorySize` before launching (`gpu_check.py` does),
  and the kernel records the size in `gpu_alloc.dynamic_shared_bytes`;
* heap (space 1) allocations, backings included, are per-block storage: they become
  consecutive slots of one per-block slice (each at a multiple of its alignment, at
  least 16), in one `memref<?xi8, 1>` kernel argument (the last) in which block `b`
  owns `[b * stride, (b + 1) * stride)`; the stride is the slice rounded up to the
  largest alignment, so every slot keeps its alignment in every block. One heap
  allocation may have a dynamic size if it is the kernel's only one (what
  fuse-gpu-allocs makes); its size must be block-uniform. Each launch of the kernel in
  the module allocates the buffer with `gpu.alloc` before it and frees it with
  `gpu.dealloc` after it. With a static stride the kernel carries the heap contract
  `gpu_alloc.heap_bytes_per_block` (see `gpu_alloc.dialect.backing`), so a caller
  outside the module knows what to pass;
* a private (space 5) allocation becomes a `memref.alloca` at the kernel entry;
* `gpu_alloc.dealloc` disappears;
* the op that now makes each backing (the `memref.global`, `gpu.dynamic_shared_memory`
  or `memref.alloca`; the kernel, as `gpu_alloc.heap_layout`, for a heap argument)
  carries the `gpu_alloc.layout` record of the Funcs in it (`gpu_alloc.dialect.layout`).

A dynamic shared or heap size that depends on a thread id, a region argument or
memory is refused (`block_sizes.size_slice`, the rule fuse-gpu-allocs applies).

Hidden step: leftover `gpu_alloc.alias`/`offset_pointer` ops are flattened first by
running `flatten-aliases` (so `-p lower-gpu-allocs` on fused IR equals
`-p flatten-aliases,lower-gpu-allocs`). On a diagnostic the module is unchanged. Kernels get the
`gpu.kernel` attribute that MLIR reads, and a module with launch sites gets
`gpu.container_module`. The result holds no `gpu_alloc` op.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.atomic import rollback_on_failure
from gpu_alloc.dialect import (
    HEAP_ARGUMENT_TYPE,
    HEAP_LAYOUT_ATTR,
    AliasOp,
    AllocOp,
    DeallocOp,
    MemorySpace,
    OffsetPointerOp,
    set_heap_bytes_per_block,
)
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.block_level import lower_block_level
from gpu_alloc.lowering.dynamic_shared import DynamicSharedMemoryOp, is_dynamic_shared_memory
from gpu_alloc.lowering.heap_slices import (
    HeapArgument,
    alignment_of,
    byte_size_value,
    heap_total,
    lower_heap,
)
from gpu_alloc.lowering.launch_values import LaunchValueBuilder
from gpu_alloc.lowering.targets import STATIC_SHARED_LIMIT
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.transforms.block_sizes import size_slice
from gpu_alloc.transforms.layout_record import keep_layout, shifted_layout, single_func_layout
from xdsl.context import Context
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
    i32,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

MIN_SHARED_ALIGNMENT = 16
"""Shared globals are aligned to at least this (the widest vector access, `ld.shared.v4`)."""

DYNAMIC_SHARED_BYTES = "gpu_alloc.dynamic_shared_bytes"
"""On a kernel whose dynamic shared memory has a static size (a backing above 48 KiB):
that size, for a host outside the module (the launch's `sharedMemBytes`, and the
`cudaFuncAttributeMaxDynamicSharedMemorySize` opt-in)."""

CONTAINER_MODULE = "gpu.container_module"
"""MLIR requires this on the module that holds `gpu.launch_func`s and their kernels."""

HOST_BUFFER_TYPE = MemRefType(i8, [DYNAMIC_INDEX])


def _kernel_launches(module: ModuleOp) -> dict[tuple[str, str], list[gpu.LaunchFuncOp]]:
    launches: dict[tuple[str, str], list[gpu.LaunchFuncOp]] = defaultdict(list)
    for op in module.walk():
        if isinstance(op, gpu.LaunchFuncOp):
            nested = op.kernel.nested_references.data
            if len(nested) == 1:
                launches[(op.kernel.root_reference.data, nested[0].data)].append(op)
    return launches


def _unique_symbol(gpu_module: gpu.ModuleOp, wanted: str) -> str:
    taken = {
        sym.data
        for op in gpu_module.body.ops
        if isinstance(
            sym := op.attributes.get("sym_name", op.properties.get("sym_name")), StringAttr
        )
    }
    # Symbols become PTX identifiers: a Func name like "é" is spelled with '_'.
    wanted = re.sub(r"[^A-Za-z0-9_$]", "_", wanted)
    name, suffix = wanted, 0
    while name in taken:
        suffix += 1
        name = f"{wanted}_{suffix}"
    return name


@dataclass
class _DynamicShared:
    size: SSAValue
    what: str


class _KernelLowering:
    """Lowers the `gpu_alloc` ops of one `gpu.func`."""

    def __init__(
        self,
        func: gpu.FuncOp,
        gpu_module: gpu.ModuleOp,
        launches: Sequence[gpu.LaunchFuncOp],
    ):
        self.func = func
        self.gpu_module = gpu_module
        self.launches = launches
        self.entry = func.body.blocks[0]
        self.heap: HeapArgument | None = None
        self.dynamic_shared: _DynamicShared | None = None

    @property
    def kernel_name(self) -> str:
        return self.func.sym_name.data

    def run(self) -> None:
        if self.func.kernel is not None:
            self.func.attributes["gpu.kernel"] = UnitAttr()
        for dealloc in [op for op in self.func.walk() if isinstance(op, DeallocOp)]:
            Rewriter.erase_op(dealloc)
        allocs = [op for op in self.func.walk() if isinstance(op, AllocOp)]
        for alloc in allocs:
            if alloc.space != MemorySpace.PRIVATE:
                size_slice(alloc, self.entry)  # one size per block, or a diagnostic
        per_block_heap: list[AllocOp] = []
        for alloc in allocs:
            match alloc.space:
                case MemorySpace.SHARED:
                    self._lower_shared(alloc)
                case MemorySpace.PRIVATE:
                    self._lower_private(alloc)
                case _:
                    per_block_heap.append(alloc)
        if per_block_heap:
            records = [single_func_layout(alloc, self.func) for alloc in per_block_heap]
            self.heap = lower_heap(self.func, per_block_heap)
            heap_record = shifted_layout(records, self.heap.offsets)
            if heap_record is not None and HEAP_LAYOUT_ATTR not in self.func.attributes:
                self.func.attributes[HEAP_LAYOUT_ATTR] = heap_record
        for launch in self.launches:
            self._rewrite_launch(launch)
        self._record_heap_bytes()

    # -- shared ---------------------------------------------------------------------

    def _lower_shared(self, alloc: AllocOp) -> None:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        if alloc.dynamic_sizes or (static_byte_size(memref_type) or 0) > STATIC_SHARED_LIMIT:
            # Above 48 KiB only dynamic shared memory is allowed (with the launch's
            # cudaFuncAttributeMaxDynamicSharedMemorySize opt-in).
            self._lower_dynamic_shared(alloc, memref_type)
            return
        symbol = _unique_symbol(self.gpu_module, f"{self.kernel_name}__{alloc.alloc_name.data}")
        global_op = memref.GlobalOp.get(
            StringAttr(symbol),
            memref_type,
            UnitAttr(),
            alignment=max(MIN_SHARED_ALIGNMENT, alignment_of(alloc)),
        )
        keep_layout(global_op, single_func_layout(alloc, self.func))
        Rewriter.insert_op(global_op, InsertPoint.before(self.func))
        Rewriter.replace_op(alloc, memref.GetGlobalOp(symbol, memref_type))

    def _lower_dynamic_shared(self, alloc: AllocOp, memref_type: MemRefType) -> None:
        """The kernel's one dynamic shared allocation (a fused i8 backing, or a lone
        Func that fuse-gpu-allocs kept as it is) becomes a view of the block's dynamic
        shared memory, whose byte size each launch computes."""
        if self.dynamic_shared is not None:
            raise GpuAllocPassError(
                f"kernel '{self.kernel_name}' has more than one dynamic shared allocation "
                f"('{alloc.alloc_name.data}' among them): run fuse-gpu-allocs first, so "
                "that one backing holds all dynamic shared memory",
                alloc,
            )
        if any(is_dynamic_shared_memory(o) for o in self.func.walk()):
            raise GpuAllocPassError(
                f"kernel '{self.kernel_name}' lays out gpu.dynamic_shared_memory itself, so "
                f"'{alloc.alloc_name.data}' cannot be placed in it too",
                alloc,
            )
        size_ops, byte_size = byte_size_value(alloc, memref_type)
        self.dynamic_shared = _DynamicShared(byte_size, f"'{alloc.alloc_name.data}'")
        if not alloc.dynamic_sizes:
            static_bytes = static_byte_size(memref_type) or 0
            self.func.attributes[DYNAMIC_SHARED_BYTES] = IntegerAttr(static_bytes, i64)
        base = DynamicSharedMemoryOp()
        keep_layout(base, single_func_layout(alloc, self.func))
        cast = memref.MemorySpaceCastOp(
            base.memref, MemRefType(i8, [DYNAMIC_INDEX], memory_space=memref_type.memory_space)
        )
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        view = memref.ViewOp(cast.dest, zero, list(alloc.dynamic_sizes), memref_type)
        Rewriter.replace_op(alloc, [*size_ops, base, cast, zero, view])

    # -- private --------------------------------------------------------------------

    def _lower_private(self, alloc: AllocOp) -> None:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        alignment = None if alloc.alignment is None else alloc.alignment.value.data
        alloca = memref.AllocaOp.get(
            memref_type.element_type,
            alignment=alignment,
            shape=memref_type.get_shape(),
            dynamic_sizes=list(alloc.dynamic_sizes),
            layout=memref_type.layout,
            memory_space=memref_type.memory_space,
        )
        keep_layout(alloca, single_func_layout(alloc, self.func))
        if alloc.dynamic_sizes:
            Rewriter.replace_op(alloc, alloca)
            return
        Rewriter.insert_op(alloca, InsertPoint.at_start(self.entry))
        Rewriter.replace_op(alloc, [], [alloca.memref])

    # -- heap -----------------------------------------------------------------------

    def _record_heap_bytes(self) -> None:
        if self.heap is not None and isinstance(self.heap.stride, int):
            set_heap_bytes_per_block(self.func, self.heap.stride)

    # -- launch sites ---------------------------------------------------------------

    def _rewrite_launch(self, launch: gpu.LaunchFuncOp) -> None:
        if self.heap is None and self.dynamic_shared is None:
            return
        if launch.asyncToken is not None or launch.asyncDependencies:
            raise GpuAllocPassError(
                f"asynchronous launch of kernel '{self.kernel_name}' needs heap or dynamic "
                "shared memory sized by the host: only synchronous launches are supported",
                launch,
            )
        buffers: list[SSAValue] = []
        heap_operands: list[SSAValue] = []
        for heap in [self.heap] if self.heap is not None else []:
            values = LaunchValueBuilder(self.func, launch, heap.what)
            total = heap_total(heap, values, launch)
            # MLIR 22 lowers `gpu.alloc` to the runtime only in its async form and only
            # in the default memory space: allocate there, then cast to the kernel's space.
            ready = gpu.WaitOp()
            alloc = gpu.AllocOp(
                HOST_BUFFER_TYPE, [total], async_dependencies=[ready], is_async=True
            )
            assert alloc.asyncToken is not None
            wait = gpu.WaitOp.create(operands=[alloc.asyncToken])
            cast = memref.MemorySpaceCastOp(alloc.result, HEAP_ARGUMENT_TYPE)
            Rewriter.insert_op([ready, alloc, wait, cast], InsertPoint.before(launch))
            buffers.append(alloc.result)
            heap_operands.append(cast.dest)
        dynamic_shared_size = launch.dynamicSharedMemorySize
        if self.dynamic_shared is not None:
            if dynamic_shared_size is not None:
                raise GpuAllocPassError(
                    f"the launch of kernel '{self.kernel_name}' already sets a dynamic shared "
                    "memory size, but the kernel's dynamic shared backing needs to set it",
                    launch,
                )
            values = LaunchValueBuilder(self.func, launch, self.dynamic_shared.what)
            size = values.value(self.dynamic_shared.size)
            cast = arith.IndexCastOp(size, i32)
            Rewriter.insert_op(cast, InsertPoint.before(launch))
            dynamic_shared_size = cast.result
        new_launch = gpu.LaunchFuncOp(
            launch.kernel,
            [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
            [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
            _cluster_size(launch),
            [*launch.kernelOperands, *heap_operands],
            dynamicSharedMemorySize=dynamic_shared_size,
        )
        new_launch.attributes.update(launch.attributes)
        Rewriter.replace_op(launch, new_launch)
        for buffer in reversed(buffers):
            ready = gpu.WaitOp()
            dealloc = gpu.DeallocOp(buffer, [ready], is_async=True)
            assert dealloc.asyncToken is not None
            wait = gpu.WaitOp.create(operands=[dealloc.asyncToken])
            Rewriter.insert_op([ready, dealloc, wait], InsertPoint.after(new_launch))


def _cluster_size(launch: gpu.LaunchFuncOp) -> list[SSAValue] | None:
    sizes = [launch.clusterSizeX, launch.clusterSizeY, launch.clusterSizeZ]
    if any(size is None for size in sizes):
        return None
    return [size for size in sizes if size is not None]


def _has_unflattened_aliases(module: ModuleOp) -> bool:
    return any(isinstance(op, AliasOp | OffsetPointerOp) for op in module.walk())


@dataclass(frozen=True)
class LowerGpuAllocsPass(ModulePass):
    """Lowers every `gpu_alloc` op to `builtin`/`func`/`gpu`/`memref`/`arith`/`scf`/`cf`.

    Runs `flatten-aliases` first if aliases are left (a hidden step: the same as
    `-p flatten-aliases,lower-gpu-allocs`). Every space-1 allocation is per-block
    storage: one heap argument holds each block's slice, its stride rounded up to the
    largest alignment (`gpu_alloc.heap_bytes_per_block` when static). Refuses a shared
    or heap size that depends on a thread id. On a diagnostic the module is unchanged.

    Guarantees: no `gpu_alloc` op remains; shared memory is static `memref.global`s in
    space 3 (never `memref.alloca` in space 3, which NVPTX cannot legalise) or the
    block's dynamic shared memory; heap memory is kernel arguments allocated around
    every launch in the module; kernels carry `gpu.kernel`. The output parses in
    `mlir-opt-22` and lowers with `--gpu-lower-to-nvvm-pipeline`.
    """

    name = "lower-gpu-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        rollback_on_failure(op, lambda: self._lower(ctx, op))

    def _lower(self, ctx: Context, op: ModuleOp) -> None:
        if _has_unflattened_aliases(op):
            from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass

            FlattenAliasesPass().apply(ctx, op)
        launches = _kernel_launches(op)
        if launches:
            op.attributes[CONTAINER_MODULE] = UnitAttr()
        for gpu_module in [o for o in op.walk() if isinstance(o, gpu.ModuleOp)]:
            module_name = gpu_module.sym_name.data
            for func in [o for o in gpu_module.body.ops if isinstance(o, gpu.FuncOp)]:
                kernel_launches = launches.get((module_name, func.sym_name.data), [])
                _KernelLowering(func, gpu_module, kernel_launches).run()
        lower_block_level(op)  # gpu.launch bodies and workgroup func.funcs
        for leftover in op.walk():
            if isinstance(leftover, AllocOp | DeallocOp):
                raise GpuAllocPassError(
                    f"'{leftover.name}' outside a gpu.func, a gpu.launch or a workgroup "
                    "func.func cannot be lowered",
                    leftover,
                )
