"""`lower-gpu-allocs` outside `gpu.func`: `gpu.launch` bodies and workgroup `func.func`s.

`fuse-gpu-allocs` fuses these like kernels; this module builds their allocation sites
and lowers what fuse leaves (backings, lone Funcs, private allocations) with the same
patterns as a kernel's (`alloc_patterns`), to the forms MLIR's own pipelines consume:

* in a `gpu.launch` body,
  - a static shared allocation within the target's static-shared limit becomes a
    space-3 `memref.global` (private, aligned to at least 16 bytes, named
    `<function>__<alloc>`) beside the function holding the launch, read with
    `memref.get_global` in the body. `--gpu-kernel-outlining` clones it into the
    kernel's `gpu.module` with its alignment. (A workgroup attribution of the launch
    would be outlined too, but MLIR gives it no alignment: the `i8` backing would become
    a 1-aligned `.shared` array holding `f32` and vector Funcs. The host's copy of the
    global is unused and private: `symbol-dce` removes it after outlining);
  - a larger or dynamically sized shared allocation becomes the block's dynamic shared
    memory (`gpu.dynamic_shared_memory`, viewed at offset 0), its byte size computed
    before the launch into `dynamic_shared_memory_size`; a size may use values from
    above the launch and the grid and block sizes, not the block ids;
* in a workgroup-level `func.func` (IREE's form), a shared allocation becomes a
  `memref.alloc` in workgroup memory at the same place (what IREE's pipeline reads), or,
  in a `func.func` inside a `gpu.module` (a device function), a static one within the
  static-shared limit becomes a space-3 `memref.global` read with `memref.get_global`,
  as in a `gpu.func`;
* a private allocation becomes a `memref.alloca` (at the entry when static);
* `gpu_alloc.dealloc` disappears.

Refused with a located diagnostic (the pass then leaves the module as it was): a heap
(space 1) allocation in either (per-block heap slices are kernel arguments sized at
`gpu.launch_func`s; outline the launch first), a device `func.func`'s shared allocation
that only dynamic shared memory could hold (dynamic, or above NVIDIA's 48 KiB static
limit: only a kernel's launch sizes dynamic shared memory), and a launch whose dynamic
shared memory is already set or used.
"""

from __future__ import annotations

from gpu_alloc.dialect import AllocOp, MemorySpace, is_backing
from gpu_alloc.dialect.backing import func_names
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.alloc_patterns import (
    AllocationSite,
    check_shared,
    lower_shared_and_private,
    needs_dynamic_shared,
    symbol_of,
)
from gpu_alloc.memref_sizes import byte_size_ops
from gpu_alloc.syntax.mlir_gpu import is_dynamic_shared_memory
from gpu_alloc.syntax.mlir_gpu_kernels import LaunchOp
from gpu_alloc.syntax.mlir_syntax import set_segments
from gpu_alloc.targets import Device
from gpu_alloc.transforms.block_level_code import block_level_code, owned_by
from gpu_alloc.transforms.block_sizes import size_slice
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from xdsl.dialects import arith, func, gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, i32
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

LAUNCH_SIZE_ARGUMENTS = range(6, 12)
"""The grid and block size arguments of a `gpu.launch` body (its operands 0-5)."""


def lower_block_level(module: ModuleOp, device: Device) -> None:
    """Lowers the `gpu_alloc` ops of every `gpu.launch` body and workgroup `func.func`,
    and of every other `func.func` that allocates (private memory only: a `memref.alloca`
    per call, as docs/block-level.md says; a heap one is refused there)."""
    codes = block_level_code(module)
    for kernel in codes:
        if isinstance(kernel, gpu.LaunchOp):
            _lower_launch(kernel, device)
        elif isinstance(kernel, func.FuncOp):
            _lower_workgroup_func(kernel, device)
    for function in [o for o in walk_ops(module) if isinstance(o, func.FuncOp)]:
        if function not in codes and _owned_allocs(function):
            _lower_workgroup_func(function, device)


def _owned_allocs(kernel: Operation) -> list[AllocOp]:
    assert isinstance(kernel, gpu.LaunchOp | func.FuncOp)
    return [op for op in walk_ops(kernel) if isinstance(op, AllocOp) and owned_by(op, kernel)]


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


def _host_function(op: Operation) -> Operation:
    """The op holding `op` whose neighbours in a symbol table a global joins."""
    host: Operation = op
    while (parent := host.parent_op()) is not None and not isinstance(parent, ModuleOp):
        host = parent
    return host


def _prefix(op: Operation) -> str:
    return s.data if isinstance(s := symbol_of(op), StringAttr) else "launch"


# ------------------------------------------------------------------------ gpu.launch


def _lower_launch(launch: gpu.LaunchOp, device: Device) -> None:
    where = kernel_name(launch)
    allocs = _owned_allocs(launch)
    if not allocs:
        return
    for alloc in allocs:
        if alloc.space == MemorySpace.GLOBAL:
            raise _refuse_heap(
                alloc, where, "outline the launch first: mlir-opt --gpu-kernel-outlining"
            )
        if alloc.space == MemorySpace.SHARED:
            size_slice(alloc, launch.body.blocks[0])  # one size per block, or a diagnostic
    host = _host_function(launch)
    table = host.parent_op()
    assert table is not None
    site = AllocationSite(
        launch,
        launch.body.blocks[0],
        device,
        table,
        host,
        _prefix(host),
        f"'{where}'",
        size_in_body=False,
    )
    check_shared(site, allocs)
    dynamic = [a for a in allocs if needs_dynamic_shared(a, device)]
    if dynamic:
        launch = _rebuilt_launch(launch, _host_byte_size(launch, dynamic[0], where))
        site.op, site.entry = launch, launch.body.blocks[0]
    lower_shared_and_private(site, allocs)


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
    size_ops, total = byte_size_ops(memref_type, [mapping.get(s, s) for s in alloc.dynamic_sizes])
    host += size_ops
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


def _lower_workgroup_func(function: func.FuncOp, device: Device) -> None:
    where = kernel_name(function)
    allocs = _owned_allocs(function)
    for alloc in allocs:
        if alloc.space == MemorySpace.GLOBAL:
            raise _refuse_heap(alloc, where, "a func.func is not launched")
    gpu_module = function.parent_op()
    entry = function.body.blocks[0]
    if isinstance(gpu_module, gpu.ModuleOp):
        # A device function: its shared memory is static, beside it in the gpu.module.
        site = AllocationSite(
            function,
            entry,
            device,
            gpu_module,
            function,
            _prefix(function),
            f"device function '{where}'",
            dynamic="only a kernel's launch can size dynamic shared memory",
        )
    else:
        # IREE's workgroup functions: workgroup `memref.alloc`s, which IREE places.
        site = AllocationSite(function, entry, device, None, function, where, f"'{where}'")
    lower_shared_and_private(site, allocs)
