"""`lower-gpu-allocs`: the remaining `gpu_alloc` ops to the standard `gpu`/`memref` dialects.

Input is the flattened form (after `fuse-gpu-allocs` and `flatten-aliases`, or straight
from the user, unfused). Per kernel (`gpu.func` inside a `gpu.module`):

* a static shared (space 3) allocation becomes a `memref.global` in space 3, named
  `<kernel>__<alloc>` (made unique in its `gpu.module`), aligned to at least 16 bytes,
  read with `memref.get_global`;
* a dynamic shared allocation, or a static one above the target's static-shared limit
  (NVIDIA's 48 KiB, the most a PTX kernel may declare statically; none on AMD and
  SPIR-V), becomes the block's dynamic shared memory (refused on SPIR-V, where OpenCL
  passes it as a kernel argument), its byte size recomputed from each `gpu.launch_func`'s operands into
  `dynamic_shared_memory_size`; above 48 KiB the host must also raise the kernel's
  `cudaFuncAttributeMaxDynamicSharedMemorySize` before launching (`gpu_check.py` does),
  and the kernel records the size in `gpu_alloc.dynamic_shared_bytes` (a run-time size:
  `gpu_alloc.dynamic_shared_computed`, the kernel's view of it says how much);
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

The shared and private allocations are rewritten by the `RewritePattern`s of
`gpu_alloc.lowering.alloc_patterns` (one walk per kernel, after every diagnostic they
could meet is raised); the heap slice, which places all of a kernel's heap
allocations together, is `gpu_alloc.lowering.heap_slices`; launch sites are
rewritten here.

A dynamic shared or heap size that depends on a thread id, a region argument or
memory is refused (`block_sizes.size_slice`, the rule fuse-gpu-allocs applies).

Hidden step: leftover `gpu_alloc.alias`/`offset_pointer` ops are flattened first by
running `flatten-aliases` (so `-p lower-gpu-allocs` on fused IR equals
`-p flatten-aliases,lower-gpu-allocs`). On a diagnostic the module is unchanged. Kernels get the
`gpu.kernel` attribute that MLIR reads, and a module with launch sites gets
`gpu.container_module`. The result holds no `gpu_alloc` op.
"""

from __future__ import annotations

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
from gpu_alloc.dialect.memory import unclassified_allocation
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.alloc_patterns import (
    DYNAMIC_SHARED_BYTES,
    DynamicShared,
    kernel_site,
    lower_shared_and_private,
)
from gpu_alloc.lowering.block_level import lower_block_level
from gpu_alloc.lowering.heap_slices import HeapArgument, heap_total, lower_heap
from gpu_alloc.lowering.launch_values import LaunchValueBuilder
from gpu_alloc.targets import Device
from gpu_alloc.transforms.block_sizes import size_slice
from gpu_alloc.transforms.device_option import device_option
from gpu_alloc.transforms.layout_record import shifted_layout, single_func_layout
from gpu_alloc.transforms.module_target import device_at
from gpu_alloc.transforms.runs_once import check_module_runs_once
from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    MemRefType,
    ModuleOp,
    UnitAttr,
    i8,
    i32,
)
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

__all__ = ["CONTAINER_MODULE", "DYNAMIC_SHARED_BYTES", "LowerGpuAllocsPass"]

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


class _KernelLowering:
    """Lowers the `gpu_alloc` ops of one `gpu.func`."""

    def __init__(
        self,
        func: gpu.FuncOp,
        gpu_module: gpu.ModuleOp,
        launches: Sequence[gpu.LaunchFuncOp],
        device: Device,
    ):
        self.func = func
        self.device = device
        self.gpu_module = gpu_module
        self.launches = launches
        self.entry = func.body.blocks[0]
        self.heap: HeapArgument | None = None
        self.dynamic_shared: DynamicShared | None = None

    @property
    def kernel_name(self) -> str:
        return self.func.sym_name.data

    def run(self) -> None:
        if self.func.kernel is not None:
            self.func.attributes["gpu.kernel"] = UnitAttr()
        allocs = [op for op in self.func.walk() if isinstance(op, AllocOp)]
        for alloc in allocs:
            if alloc.space != MemorySpace.PRIVATE:
                size_slice(alloc, self.entry)  # one size per block, or a diagnostic
        site = kernel_site(self.func, self.gpu_module, self.device)
        lower_shared_and_private(site, allocs)
        self.dynamic_shared = site.dynamic_shared
        per_block_heap = [
            alloc
            for alloc in allocs
            if alloc.space not in (MemorySpace.SHARED, MemorySpace.PRIVATE)
        ]
        if per_block_heap:
            records = [single_func_layout(alloc, self.func) for alloc in per_block_heap]
            self.heap = lower_heap(self.func, per_block_heap)
            heap_record = shifted_layout(records, self.heap.offsets)
            if heap_record is not None and HEAP_LAYOUT_ATTR not in self.func.attributes:
                self.func.attributes[HEAP_LAYOUT_ATTR] = heap_record
        for launch in self.launches:
            self._rewrite_launch(launch)
        self._record_heap_bytes()

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

    target: str = ""
    """The target to lower for (`ptx`, `amdgcn`, `spirv`): its static-shared limit decides
    which shared allocations need dynamic shared memory; a chip implies it."""

    chip: str = ""
    """The chip to lower for (`sm_90`, `gfx942`, `generic`); a `gpu.module`'s target
    attribute names it too (they must agree); without either, NVIDIA's rules (48 KiB of
    static shared memory)."""

    def device(self) -> Device:
        return device_option(self.name, self.chip, self.target)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.device()  # a bad option is refused before the module is read
        device = device_at(op, self.name, self.chip, self.target)  # of host code
        rollback_on_failure(op, lambda: self._lower(ctx, op, device))

    def _lower(self, ctx: Context, op: ModuleOp, device: Device) -> None:
        if (unknown := unclassified_allocation(op)) is not None:
            raise GpuAllocPassError(unknown.message(self.name), unknown.op)
        if _has_unflattened_aliases(op):
            from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass

            FlattenAliasesPass().apply(ctx, op)
        check_module_runs_once(op)  # fuse's rule for code run more than once per block
        launches = _kernel_launches(op)
        if launches:
            op.attributes[CONTAINER_MODULE] = UnitAttr()
        for gpu_module in [o for o in op.walk() if isinstance(o, gpu.ModuleOp)]:
            module_name = gpu_module.sym_name.data
            module_device = device_at(gpu_module, self.name, self.chip, self.target)
            for func in [o for o in gpu_module.body.ops if isinstance(o, gpu.FuncOp)]:
                kernel_launches = launches.get((module_name, func.sym_name.data), [])
                _KernelLowering(func, gpu_module, kernel_launches, module_device).run()
        lower_block_level(op, device)  # gpu.launch bodies and workgroup func.funcs
        for leftover in op.walk():
            if isinstance(leftover, AllocOp | DeallocOp):
                raise GpuAllocPassError(
                    f"'{leftover.name}' outside a gpu.func, a gpu.launch or a workgroup "
                    "func.func cannot be lowered",
                    leftover,
                )
