"""`lower-gpu-allocs`: the remaining `gpu_alloc` ops to the standard `gpu`/`memref` dialects.

Input is the flattened form (after `fuse-gpu-allocs` and `flatten-aliases`, or straight
from the user, unfused). Per kernel (`gpu.func` inside a `gpu.module`):

* a static shared (space 3) allocation becomes a `memref.global` in space 3, named
  `<kernel>__<alloc>` (made unique in its `gpu.module`), aligned to at least 16 bytes,
  read with `memref.get_global`;
* a dynamic shared allocation becomes the block's dynamic shared memory, its byte size
  recomputed from each `gpu.launch_func`'s operands into `dynamic_shared_memory_size`;
* a heap (space 1) backing (a 1-D `i8` buffer that only `memref.view`s read, one buffer
  per launch) becomes a `memref<?xi8, 1>` kernel argument; any other heap allocation is
  per-block storage: all of them share one more argument in which each block owns the
  slice at `linear_block_id * per_block_bytes`. Each launch of the kernel in the module
  allocates the buffers with `gpu.alloc` before it and frees them with `gpu.dealloc` after
  it. A kernel with a single heap argument whose per-block size is static carries
  `gpu_alloc.heap_bytes_per_block`, so a caller outside the module knows what to pass;
* a private (space 5) allocation becomes a `memref.alloca` at the kernel entry;
* `gpu_alloc.dealloc` disappears.

Leftover `gpu_alloc.alias`/`offset_pointer` ops are flattened first. Kernels get the
`gpu.kernel` attribute that MLIR reads, and a module with launch sites gets
`gpu.container_module`. The result holds no `gpu_alloc` op.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, MemorySpace, OffsetPointerOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.dynamic_shared import DynamicSharedMemoryOp, is_dynamic_shared_memory
from gpu_alloc.lowering.launch_values import LaunchValueBuilder
from gpu_alloc.memref_sizes import element_bytes, static_byte_size
from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    UnitAttr,
    i8,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

MIN_SHARED_ALIGNMENT = 16
"""Shared globals are aligned to at least this (the widest vector access, `ld.shared.v4`)."""

HEAP_SLICE_ALIGNMENT = 16
"""Per-block heap slices and the allocations inside them start at multiples of this."""

HEAP_BYTES_PER_BLOCK = "gpu_alloc.heap_bytes_per_block"

CONTAINER_MODULE = "gpu.container_module"
"""MLIR requires this on the module that holds `gpu.launch_func`s and their kernels."""

HEAP_ARGUMENT_TYPE = MemRefType(i8, [DYNAMIC_INDEX], memory_space=IntegerAttr(1, 32))
HOST_BUFFER_TYPE = MemRefType(i8, [DYNAMIC_INDEX])


def _round_up(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _alignment_of(alloc: AllocOp) -> int:
    return 1 if alloc.alignment is None else alloc.alignment.value.data


def _is_launch_wide_backing(alloc: AllocOp) -> bool:
    """A fused heap backing: a 1-D i8 buffer that is only viewed (DESIGN.md, pass 1)."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    if len(memref_type.get_shape()) != 1 or memref_type.element_type != i8:
        return False
    users = [use.operation for use in alloc.memref.uses]
    return bool(users) and all(isinstance(u, memref.ViewOp | DeallocOp) for u in users)


def _kernel_launches(module: ModuleOp) -> dict[tuple[str, str], list[gpu.LaunchFuncOp]]:
    launches: dict[tuple[str, str], list[gpu.LaunchFuncOp]] = defaultdict(list)
    for op in module.walk():
        if isinstance(op, gpu.LaunchFuncOp):
            nested = op.kernel.nested_references.data
            if len(nested) == 1:
                launches[(op.kernel.root_reference.data, nested[0].data)].append(op)
    return launches


def _byte_size_value(alloc: AllocOp, memref_type: MemRefType) -> tuple[list[Operation], SSAValue]:
    """Ops computing the byte size of a dynamically shaped allocation, and the value."""
    if memref_type.element_type == i8 and len(memref_type.get_shape()) == 1:
        return [], alloc.dynamic_sizes[0]
    static_part = element_bytes(memref_type.element_type)
    if static_part is None:
        raise GpuAllocPassError(
            f"allocation '{alloc.alloc_name.data}' has element type "
            f"{memref_type.element_type}, whose size in bytes is unknown",
            alloc,
        )
    for dim in memref_type.get_shape():
        if dim != DYNAMIC_INDEX:
            static_part *= dim
    ops: list[Operation] = [arith.ConstantOp.from_int_and_width(static_part, IndexType())]
    size = ops[0].results[0]
    for dynamic in alloc.dynamic_sizes:
        ops.append(arith.MuliOp(size, dynamic))
        size = ops[-1].results[0]
    return ops, size


def _unique_symbol(gpu_module: gpu.ModuleOp, wanted: str) -> str:
    taken = {
        sym.data
        for op in gpu_module.body.ops
        if isinstance(
            sym := op.attributes.get("sym_name", op.properties.get("sym_name")), StringAttr
        )
    }
    name, suffix = wanted, 0
    while name in taken:
        suffix += 1
        name = f"{wanted}_{suffix}"
    return name


@dataclass
class _HeapArgument:
    """One `memref<?xi8, 1>` kernel argument and how its launch-wide size is known."""

    argument: SSAValue
    what: str
    static_bytes_per_block: int | None
    """The per-block size when the buffer is per-block slices of a static size."""
    launch_wide_size: SSAValue | int | None
    """For a fused backing: its total size (a kernel value or a constant)."""


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
        self.heap_arguments: list[_HeapArgument] = []
        self.dynamic_shared: _DynamicShared | None = None

    @property
    def kernel_name(self) -> str:
        return self.func.sym_name.data

    def run(self) -> None:
        if self.func.kernel is not None:
            self.func.attributes["gpu.kernel"] = UnitAttr()
        for dealloc in [op for op in self.func.walk() if isinstance(op, DeallocOp)]:
            Rewriter.erase_op(dealloc)
        per_block_heap: list[AllocOp] = []
        for alloc in [op for op in self.func.walk() if isinstance(op, AllocOp)]:
            match alloc.space:
                case MemorySpace.SHARED:
                    self._lower_shared(alloc)
                case MemorySpace.PRIVATE:
                    self._lower_private(alloc)
                case _ if _is_launch_wide_backing(alloc):
                    self._lower_heap_backing(alloc)
                case _:
                    per_block_heap.append(alloc)
        if per_block_heap:
            self._lower_per_block_heap(per_block_heap)
        for launch in self.launches:
            self._rewrite_launch(launch)
        self._record_heap_bytes()

    # -- shared ---------------------------------------------------------------------

    def _lower_shared(self, alloc: AllocOp) -> None:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        if alloc.dynamic_sizes:
            self._lower_dynamic_shared(alloc, memref_type)
            return
        symbol = _unique_symbol(self.gpu_module, f"{self.kernel_name}__{alloc.alloc_name.data}")
        global_op = memref.GlobalOp.get(
            StringAttr(symbol),
            memref_type,
            UnitAttr(),
            alignment=max(MIN_SHARED_ALIGNMENT, _alignment_of(alloc)),
        )
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
        size_ops, byte_size = _byte_size_value(alloc, memref_type)
        self.dynamic_shared = _DynamicShared(byte_size, f"'{alloc.alloc_name.data}'")
        base = DynamicSharedMemoryOp()
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
        if alloc.dynamic_sizes:
            Rewriter.replace_op(alloc, alloca)
            return
        Rewriter.insert_op(alloca, InsertPoint.at_start(self.entry))
        Rewriter.replace_op(alloc, [], [alloca.memref])

    # -- heap -----------------------------------------------------------------------

    def _add_heap_argument(self) -> SSAValue:
        argument = self.entry.insert_arg(HEAP_ARGUMENT_TYPE, len(self.entry.args))
        self.func.function_type = FunctionType.from_lists(
            [*self.func.function_type.inputs.data, HEAP_ARGUMENT_TYPE],
            self.func.function_type.outputs.data,
        )
        return argument

    def _lower_heap_backing(self, alloc: AllocOp) -> None:
        memref_type = alloc.memref.type
        assert isinstance(memref_type, MemRefType)
        argument = self._add_heap_argument()
        name = alloc.alloc_name.data
        bytes_per_block = self.func.attributes.get(HEAP_BYTES_PER_BLOCK)
        self.heap_arguments.append(
            _HeapArgument(
                argument,
                f"heap backing '{name}'",
                bytes_per_block.value.data if isinstance(bytes_per_block, IntegerAttr) else None,
                alloc.dynamic_sizes[0] if alloc.dynamic_sizes else memref_type.get_shape()[0],
            )
        )
        if memref_type == HEAP_ARGUMENT_TYPE:
            Rewriter.replace_op(alloc, [], [argument])
            return
        zero = arith.ConstantOp.from_int_and_width(0, IndexType())
        Rewriter.replace_op(alloc, [zero, memref.ViewOp(argument, zero, [], memref_type)])

    def _lower_per_block_heap(self, allocs: list[AllocOp]) -> None:
        """Unfused heap allocations: consecutive slots of one per-block slice, no reuse."""
        offsets: list[int] = []
        per_block = 0
        for alloc in allocs:
            memref_type = alloc.memref.type
            assert isinstance(memref_type, MemRefType)
            size = static_byte_size(memref_type)
            if size is None:
                raise GpuAllocPassError(
                    f"heap allocation '{alloc.alloc_name.data}' has a dynamic size: run "
                    "fuse-gpu-allocs first, which sizes each block's heap slice",
                    alloc,
                )
            alignment = max(HEAP_SLICE_ALIGNMENT, _alignment_of(alloc))
            per_block = _round_up(per_block, alignment)
            offsets.append(per_block)
            per_block += size
        per_block = _round_up(per_block, HEAP_SLICE_ALIGNMENT)
        argument = self._add_heap_argument()
        names = ", ".join(f"'{a.alloc_name.data}'" for a in allocs)
        self.heap_arguments.append(_HeapArgument(argument, f"heap {names}", per_block, None))

        ops: list[Operation] = []

        def emit(op: Operation) -> SSAValue:
            ops.append(op)
            return op.results[0]

        def dimension(op_type: type[gpu.BlockIdOp] | type[gpu.GridDimOp], dim: str) -> SSAValue:
            return emit(op_type(gpu.DimensionAttr(gpu.DimensionEnum(dim))))

        bx, by, bz = (dimension(gpu.BlockIdOp, d) for d in ("x", "y", "z"))
        gx, gy = (dimension(gpu.GridDimOp, d) for d in ("x", "y"))
        linear = emit(arith.MuliOp(gy, bz))
        linear = emit(arith.AddiOp(by, linear))
        linear = emit(arith.MuliOp(gx, linear))
        linear = emit(arith.AddiOp(bx, linear))
        slice_bytes = emit(arith.ConstantOp.from_int_and_width(per_block, IndexType()))
        base = emit(arith.MuliOp(linear, slice_bytes))
        base.name_hint = "heap_slice"
        for alloc, offset in zip(allocs, offsets, strict=True):
            shift = base
            if offset:
                constant = emit(arith.ConstantOp.from_int_and_width(offset, IndexType()))
                shift = emit(arith.AddiOp(base, constant))
            view = emit(memref.ViewOp(argument, shift, [], alloc.memref.type))
            view.name_hint = alloc.memref.name_hint
            alloc.memref.replace_all_uses_with(view)
            Rewriter.erase_op(alloc)
        Rewriter.insert_op(ops, InsertPoint.at_start(self.entry))

    def _record_heap_bytes(self) -> None:
        if len(self.heap_arguments) == 1:
            per_block = self.heap_arguments[0].static_bytes_per_block
            if per_block is not None:
                self.func.attributes[HEAP_BYTES_PER_BLOCK] = IntegerAttr(per_block, 64)

    # -- launch sites ---------------------------------------------------------------

    def _rewrite_launch(self, launch: gpu.LaunchFuncOp) -> None:
        if not self.heap_arguments and self.dynamic_shared is None:
            return
        if launch.asyncToken is not None or launch.asyncDependencies:
            raise GpuAllocPassError(
                f"asynchronous launch of kernel '{self.kernel_name}' needs heap or dynamic "
                "shared memory sized by the host: only synchronous launches are supported",
                launch,
            )
        buffers: list[SSAValue] = []
        heap_operands: list[SSAValue] = []
        for heap in self.heap_arguments:
            values = LaunchValueBuilder(self.func, launch, heap.what)
            total = self._heap_total(heap, values, launch)
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

    def _heap_total(
        self, heap: _HeapArgument, values: LaunchValueBuilder, launch: gpu.LaunchFuncOp
    ) -> SSAValue:
        size = heap.launch_wide_size
        if isinstance(size, SSAValue):
            return values.value(size)
        if isinstance(size, int):
            constant = arith.ConstantOp.from_int_and_width(size, IndexType())
            Rewriter.insert_op(constant, InsertPoint.before(launch))
            return constant.result
        assert heap.static_bytes_per_block is not None
        per_block = arith.ConstantOp.from_int_and_width(heap.static_bytes_per_block, IndexType())
        grid = [
            values.value(gpu.GridDimOp(gpu.DimensionAttr(gpu.DimensionEnum(d))).result)
            for d in ("x", "y", "z")
        ]
        ops: list[Operation] = [per_block]
        total: SSAValue = per_block.result
        for blocks in grid:
            ops.append(arith.MuliOp(total, blocks))
            total = ops[-1].results[0]
        Rewriter.insert_op(ops, InsertPoint.before(launch))
        return total


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

    Guarantees: no `gpu_alloc` op remains; shared memory is static `memref.global`s in
    space 3 (never `memref.alloca` in space 3, which NVPTX cannot legalise) or the
    block's dynamic shared memory; heap memory is kernel arguments allocated around
    every launch in the module; kernels carry `gpu.kernel`. The output parses in
    `mlir-opt-22` and lowers with `--gpu-lower-to-nvvm-pipeline`.
    """

    name = "lower-gpu-allocs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
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
        for leftover in op.walk():
            if isinstance(leftover, AllocOp | DeallocOp):
                raise GpuAllocPassError(
                    f"'{leftover.name}' outside a gpu.func inside a gpu.module cannot be lowered",
                    leftover,
                )
