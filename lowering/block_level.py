"""`lower-gpu-allocs` outside `gpu.func`: `gpu.launch` bodies and workgroup `func.func`s.

`fuse-gpu-allocs` fuses these like kernels; this module lowers what it leaves (backings,
lone Funcs, private allocations) to the forms MLIR's own pipelines consume:

* in a `gpu.launch` body,
  - a static shared allocation of at most 48 KiB becomes a space-3 `memref.global`
    (private, aligned to at least 16 bytes, named `<function>__<alloc>`) beside the
    function holding the launch, read with `memref.get_global` in the body.
    `--gpu-kernel-outlining` clones it into the kernel's `gpu.module` with its
    alignment. (A workgroup attribution of the launch would be outlined too, but MLIR
    gives it no alignment: the `i8` backing would become a 1-aligned `.shared` array
    holding `f32` and vector Funcs. The host's copy of the global is unused and private:
    `symbol-dce` removes it after outlining);
  - a larger or dynamically sized shared allocation becomes the block's dynamic shared
    memory (`gpu.dynamic_shared_memory`, viewed at offset 0), its byte size computed
    before the launch into `dynamic_shared_memory_size`; a size may use values from
    above the launch and the grid and block sizes, not the block ids;
* in a workgroup-level `func.func` (IREE's form), a shared allocation becomes a
  `memref.alloc` in workgroup memory at the same place (what IREE's pipeline reads), or,
  in a `func.func` inside a `gpu.module` (a device function), a static one becomes a
  space-3 `memref.global` read with `memref.get_global`, as in a `gpu.func`;
* a private allocation becomes a `memref.alloca` (at the entry when static);
* `gpu_alloc.dealloc` disappears.

Refused with a located diagnostic (the pass then leaves the module as it was): a heap
(space 1) allocation in either (per-block heap slices are kernel arguments sized at
`gpu.launch_func`s; outline the launch first), a dynamic shared allocation in a device
`func.func`, and a launch whose dynamic shared memory is already set or used.
"""

from __future__ import annotations

from collections.abc import Iterator

from gpu_alloc.dialect import AllocOp, DeallocOp, MemorySpace, is_backing
from gpu_alloc.dialect.backing import func_names
from gpu_alloc.dialect.mlir_gpu import set_segments
from gpu_alloc.dialect.mlir_gpu_kernels import LaunchOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.alloc_patterns import (
    dynamic_shared_view,
    needs_dynamic_shared,
    private_alloca,
    shared_alignment,
    shared_global,
    symbol_of,
    unique_symbol,
)
from gpu_alloc.lowering.dynamic_shared import is_dynamic_shared_memory
from gpu_alloc.memref_sizes import element_bytes
from gpu_alloc.transforms.block_level_code import block_level_code, owned_by
from gpu_alloc.transforms.block_sizes import size_slice
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from gpu_alloc.transforms.layout_record import keep_layout, single_func_layout
from xdsl.dialects import arith, func, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    MemRefType,
    ModuleOp,
    StringAttr,
    i32,
)
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

LAUNCH_SIZE_ARGUMENTS = range(6, 12)
"""The grid and block size arguments of a `gpu.launch` body (its operands 0-5)."""


def lower_block_level(module: ModuleOp) -> None:
    """Lowers the `gpu_alloc` ops of every `gpu.launch` body and workgroup `func.func`."""
    for kernel in block_level_code(module):
        if isinstance(kernel, gpu.LaunchOp):
            _lower_launch(kernel)
        elif isinstance(kernel, func.FuncOp):
            _lower_workgroup_func(kernel)


def _owned_allocs(kernel: Operation) -> Iterator[AllocOp]:
    assert isinstance(kernel, gpu.LaunchOp | func.FuncOp)
    for op in list(walk_ops(kernel)):
        if isinstance(op, AllocOp) and owned_by(op, kernel):
            yield op


def _erase_deallocs(kernel: gpu.LaunchOp | func.FuncOp) -> None:
    for op in list(walk_ops(kernel)):
        if isinstance(op, DeallocOp) and owned_by(op, kernel):
            Rewriter.erase_op(op)


def _refuse_heap(alloc: AllocOp, where: str, hint: str) -> GpuAllocPassError:
    what = f"heap allocation '{alloc.alloc_name.data}'"
    if is_backing(alloc) and (names := func_names(alloc)):  # name the user's Funcs
        listed = ", ".join(f"'{name}'" for name in names)
        what = f"heap Func{'s' if len(names) > 1 else ''} {listed} (fused into '{alloc.alloc_name.data}')"
    return GpuAllocPassError(
        f"{what} in '{where}' cannot be lowered: per-block heap slices are kernel "
        f"arguments sized at gpu.launch_func ({hint})",
        alloc,
    )


def _lower_private(alloc: AllocOp, entry: Block) -> None:
    alloca = private_alloca(alloc, None)
    if alloc.dynamic_sizes:
        Rewriter.replace_op(alloc, alloca)
        return
    Rewriter.insert_op(alloca, InsertPoint.at_start(entry))
    Rewriter.replace_op(alloc, [], [alloca.memref])


# ------------------------------------------------------------------------ gpu.launch


def _lower_launch(launch: gpu.LaunchOp) -> None:
    where = kernel_name(launch)
    allocs = list(_owned_allocs(launch))
    if not allocs:
        return
    for alloc in allocs:
        if alloc.space == MemorySpace.GLOBAL:
            raise _refuse_heap(
                alloc, where, "outline the launch first: mlir-opt --gpu-kernel-outlining"
            )
        if alloc.space == MemorySpace.SHARED:
            size_slice(alloc, launch.body.blocks[0])  # one size per block, or a diagnostic
    shared = [a for a in allocs if a.space == MemorySpace.SHARED]
    dynamic = [a for a in shared if needs_dynamic_shared(a)]
    if len(dynamic) > 1:
        raise GpuAllocPassError(
            f"'{where}' has more than one dynamic shared allocation ('{dynamic[1].alloc_name.data}' "
            "among them): run fuse-gpu-allocs first, so that one backing holds them",
            dynamic[1],
        )
    host = _host_function(launch)
    if dynamic:
        launch = _rebuilt_launch(launch, _host_byte_size(launch, dynamic[0], where))
    entry = launch.body.blocks[0]
    _erase_deallocs(launch)
    for alloc in allocs:
        if alloc.space == MemorySpace.PRIVATE:
            _lower_private(alloc, entry)
        elif alloc in dynamic:
            Rewriter.replace_op(alloc, dynamic_shared_view(alloc, None))
        else:
            _lower_to_global(alloc, host)


def _host_function(launch: gpu.LaunchOp) -> Operation:
    """The op holding `launch` whose neighbours in a symbol table the global joins."""
    host: Operation = launch
    while (parent := host.parent_op()) is not None and not isinstance(parent, ModuleOp):
        host = parent
    return host


def _rebuilt_launch(launch: gpu.LaunchOp, dynamic_size: SSAValue | None) -> LaunchOp:
    """The launch as this project's `LaunchOp` (whose verifier knows attributions), with
    `dynamic_size` as its dynamic shared memory size if given."""
    operands = [*launch.asyncDependencies]
    operands += [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ]
    operands += [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ]
    clusters = [launch.clusterSizeX, launch.clusterSizeY, launch.clusterSizeZ]
    operands += [c for c in clusters if c is not None]
    dynamic = dynamic_size or launch.dynamicSharedMemorySize
    operands += [dynamic] if dynamic is not None else []
    properties = dict(launch.properties)
    segments = [len(launch.asyncDependencies), 1, 1, 1, 1, 1, 1]
    segments += [0 if c is None else 1 for c in clusters] + [0 if dynamic is None else 1]
    new_launch = LaunchOp.create(
        operands=operands,
        result_types=[r.type for r in launch.results],
        properties=properties,
        attributes=dict(launch.attributes),
        regions=[launch.detach_region(0)],
    )
    set_segments(new_launch, segments, as_property=True)
    Rewriter.replace_op(launch, new_launch)
    return new_launch


def _host_byte_size(launch: gpu.LaunchOp, alloc: AllocOp, where: str) -> SSAValue:
    """The byte size of `alloc` as an `i32` computed before `launch`: its size slice,
    the launch body's grid and block size arguments mapped to the launch's operands."""
    if launch.dynamicSharedMemorySize is not None or any(
        is_dynamic_shared_memory(o) for o in walk_ops(launch)
    ):
        raise GpuAllocPassError(
            f"'{where}' sets or lays out its dynamic shared memory itself, so shared "
            f"allocation '{alloc.alloc_name.data}' cannot be placed in it",
            alloc,
        )
    entry = launch.body.blocks[0]
    sizes = [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ]
    sizes += [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ]
    mapping: dict[SSAValue, SSAValue] = {
        entry.args[i]: sizes[k] for k, i in enumerate(LAUNCH_SIZE_ARGUMENTS)
    }
    host: list[Operation] = []
    for op in size_slice(alloc, entry):
        for operand in op.operands:
            _check_host_value(operand, entry, alloc, where)
        clone = op.clone(value_mapper=mapping)
        mapping.update(zip(op.results, clone.results, strict=True))
        host.append(clone)
    for size in alloc.dynamic_sizes:
        _check_host_value(size, entry, alloc, where)
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    static_part = element_bytes(memref_type.element_type) or 1
    for dim in memref_type.get_shape():
        if dim != DYNAMIC_INDEX:
            static_part *= dim
    host.append(arith.ConstantOp.from_int_and_width(static_part, IndexType()))
    total = host[-1].results[0]
    for size in alloc.dynamic_sizes:
        host.append(arith.MuliOp(total, mapping.get(size, size)))
        total = host[-1].results[0]
    host.append(arith.IndexCastOp(total, i32))
    Rewriter.insert_op(host, InsertPoint.before(launch))
    return host[-1].results[0]


def _check_host_value(value: SSAValue, entry: Block, alloc: AllocOp, where: str) -> None:
    if (
        isinstance(value, BlockArgument)
        and value.block is entry
        and value.index not in LAUNCH_SIZE_ARGUMENTS
    ):
        raise GpuAllocPassError(
            f"the size of shared allocation '{alloc.alloc_name.data}' in '{where}' depends "
            "on a block id; the host sizes a launch's dynamic shared memory once for every "
            "block",
            alloc,
        )


# ------------------------------------------------------------- workgroup func.func


def _lower_workgroup_func(function: func.FuncOp) -> None:
    where = kernel_name(function)
    allocs = list(_owned_allocs(function))
    gpu_module = function.parent_op()
    in_gpu_module = isinstance(gpu_module, gpu.ModuleOp)
    for alloc in allocs:
        if alloc.space == MemorySpace.GLOBAL:
            raise _refuse_heap(alloc, where, "a func.func is not launched")
        if alloc.space == MemorySpace.SHARED and in_gpu_module and alloc.dynamic_sizes:
            raise GpuAllocPassError(
                f"dynamic shared allocation '{alloc.alloc_name.data}' in device function "
                f"'{where}' cannot be lowered: only a kernel's launch can size dynamic "
                "shared memory",
                alloc,
            )
    _erase_deallocs(function)
    entry = function.body.blocks[0]
    for alloc in allocs:
        if alloc.space == MemorySpace.PRIVATE:
            _lower_private(alloc, entry)
        elif in_gpu_module:
            _lower_to_global(alloc, function)
        else:
            _lower_to_memref_alloc(alloc)


def _lower_to_memref_alloc(alloc: AllocOp) -> None:
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    new = memref.AllocOp.get(
        memref_type.element_type,
        alignment=shared_alignment(alloc),
        shape=memref_type.get_shape(),
        dynamic_sizes=list(alloc.dynamic_sizes),
        layout=memref_type.layout,
        memory_space=memref_type.memory_space,
    )
    keep_layout(new, single_func_layout(alloc, None))
    new.memref.name_hint = alloc.memref.name_hint
    Rewriter.replace_op(alloc, new)


def _lower_to_global(alloc: AllocOp, function: Operation) -> None:
    """A static shared allocation to a space-3 `memref.global` beside `function` (in its
    symbol table), named `<function>__<alloc>`, read with `memref.get_global`."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    table = function.parent_op()
    assert table is not None
    prefix = s.data if isinstance(s := symbol_of(function), StringAttr) else "launch"
    symbol = unique_symbol(table, f"{prefix}__{alloc.alloc_name.data}")
    global_op = shared_global(alloc, symbol, None)
    Rewriter.insert_op(global_op, InsertPoint.before(function))
    Rewriter.replace_op(alloc, memref.GetGlobalOp(symbol, memref_type))
