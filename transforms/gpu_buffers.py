"""Shared and private buffers as real GPU IR writes them, before `import-gpu-allocs`.

Block-level code is a `gpu.func` (kernel or device function), a `gpu.launch` body, or a
`func.func` that allocates workgroup memory (IREE's workgroup-level code). In it, a
buffer is a workgroup/private `memref.alloc`/`alloca`, a `gpu.func` attribution, a
`memref.get_global` of a workgroup `memref.global`, or `gpu.dynamic_shared_memory`.
Workgroup memory is `#gpu.address_space<workgroup>` or an integer space 3, private memory
`#gpu.address_space<private>` or 5 (`normalize_spaces` rewrites both to `3 : i32` and
`5 : i32`, this project's spelling).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gpu_alloc.dialect import AllocOp
from gpu_alloc.dialect.mlir_gpu import is_dynamic_shared_memory, space_number
from gpu_alloc.dialect.mlir_gpu_kernels import LAUNCH_CONFIG_ARGUMENTS
from gpu_alloc.remarks import Remark, emit_remark
from gpu_alloc.transforms.kernel_ir import Kernel, is_kernel, kernel_name, walk_ops
from gpu_alloc.transforms.memory_effects import (
    UseKind,
    aliased_values,
    opaque_ancestor,
    use_kind,
)
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    UnregisteredOp,
    i32,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue, Use
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import CallableOpInterface, IsTerminator

BLOCK_LEVEL_SPACES = (3, 5)
"""Workgroup (shared) and private memory: the spaces `import-gpu-allocs` takes over."""


def buffer_space(type_: Attribute) -> int | None:
    """3 or 5 for a workgroup or private memref type (either spelling), else None."""
    if not isinstance(type_, MemRefType):
        return None
    space = space_number(type_.memory_space)
    return space if space in BLOCK_LEVEL_SPACES else None


# --------------------------------------------------------------------- memory spaces


def normalized_type(type_: Attribute) -> Attribute:
    """`type_` with workgroup/private memory spaces spelled `3 : i32` / `5 : i32`."""
    if isinstance(type_, MemRefType):
        space = buffer_space(type_)
        if space is None or type_.memory_space == IntegerAttr(space, i32):
            return type_
        return MemRefType(type_.element_type, type_.shape, type_.layout, IntegerAttr(space, i32))
    if isinstance(type_, FunctionType):
        inputs = [normalized_type(t) for t in type_.inputs.data]
        outputs = [normalized_type(t) for t in type_.outputs.data]
        if inputs != list(type_.inputs.data) or outputs != list(type_.outputs.data):
            return FunctionType.from_lists(inputs, outputs)
    return type_


def normalize_spaces(module: ModuleOp) -> None:
    """Rewrites every workgroup/private memref type of `module` to integer spaces.

    `gpu.dynamic_shared_memory` keeps the `#gpu.address_space<workgroup>` result MLIR
    requires; a `memref.memory_space_cast` after it gives its users the integer space.
    """
    for op in list(walk_ops(module)):
        for name, value in list(op.properties.items()):
            if (new := normalized_type(value)) is not value:
                op.properties[name] = new
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    if (new := normalized_type(arg.type)) is not arg.type:
                        Rewriter.replace_value_with_new_type(arg, new)
        if is_dynamic_shared_memory(op):
            _cast_dynamic_shared_memory(op)
            continue
        for result in op.results:
            if (new := normalized_type(result.type)) is not result.type:
                Rewriter.replace_value_with_new_type(result, new)


def _cast_dynamic_shared_memory(op: Operation) -> None:
    result = op.results[0]
    new_type = normalized_type(result.type)
    already_cast = all(
        isinstance(use.operation, memref.MemorySpaceCastOp) and use.operation.dest.type == new_type
        for use in result.uses
    )
    if new_type is result.type or already_cast:
        return
    cast = memref.MemorySpaceCastOp(result, new_type)  # pyright: ignore[reportArgumentType]
    Rewriter.insert_op(cast, InsertPoint.after(op))
    result.replace_uses_with_if(cast.dest, lambda use: use.operation is not cast)


# ------------------------------------------------------------------ block-level code


def block_level_regions(module: ModuleOp) -> Iterator[tuple[Operation, Region]]:
    """Every op whose body is block-level code, with that body: each `gpu.func`, each
    `gpu.launch`, and each `func.func` that allocates workgroup memory."""
    for op in walk_ops(module):
        if isinstance(op, gpu.FuncOp | gpu.LaunchOp):
            yield op, op.body
        elif isinstance(op, func.FuncOp) and _allocates_workgroup_memory(op):
            yield op, op.body


def _allocates_workgroup_memory(func_op: func.FuncOp) -> bool:
    """Whether `func_op` itself (not a `gpu.launch` in it) allocates workgroup memory,
    as a `memref` or an imported `gpu_alloc` allocation."""
    for op in walk_ops(func_op):
        if (
            isinstance(op, memref.AllocOp | memref.AllocaOp | AllocOp)
            and buffer_space(op.memref.type) == 3
        ):
            parent = op.parent_op()
            while parent is not func_op and not isinstance(parent, gpu.LaunchOp):
                assert parent is not None
                parent = parent.parent_op()
            if parent is func_op:
                return True
    return False


def fusable_kernels(module: ModuleOp) -> Iterator[Kernel]:
    """What `fuse-gpu-allocs` fuses, each once, in program order: every `gpu.func`
    kernel, every `gpu.launch` body, and every `func.func` that allocates workgroup
    memory itself (IREE's workgroup-level code, which runs once per thread like a
    kernel; what a `gpu.launch` in it allocates belongs to the launch)."""
    for op in walk_ops(module):
        if (
            is_kernel(op)
            or isinstance(op, gpu.LaunchOp)
            or (isinstance(op, func.FuncOp) and _allocates_workgroup_memory(op))
        ):
            assert isinstance(op, Kernel)
            yield op


def owned_by(op: Operation, kernel: Kernel) -> bool:
    """Whether `op` (nested in `kernel`) belongs to it and not to a `gpu.launch` in it."""
    parent = op.parent_op()
    while parent is not None and parent is not kernel:
        if isinstance(parent, gpu.LaunchOp):
            return False
        parent = parent.parent_op()
    return parent is kernel


def region_name(op: Operation) -> str:
    """How remarks name a block-level region: its symbol, or `gpu.launch in f`."""
    return kernel_name(op)


@dataclass(frozen=True)
class Escape:
    """A use through which a buffer's storage leaves what the analyses follow."""

    op: Operation
    reason: str
    leaves: bool
    """The storage leaves the block-level code (returned or yielded, stored as a value,
    passed to a launch): it cannot become a `gpu_alloc.alloc`. Any other escape (an
    unknown op, a call) only makes the buffer live for the whole kernel."""

    def describe(self) -> str:
        name = self.op.op_name.data if isinstance(self.op, UnregisteredOp) else self.op.name
        return f"{self.reason} ('{name}')"


def escapes_of(value: SSAValue) -> list[Escape]:
    """Every use through which the storage of `value` (directly or through views)
    escapes, per the memory-effects table (`memory_effects`): returned, stored as a
    value, passed to a call, a launch, an unregistered or unknown op, or used inside an
    op whose regions the analyses do not model. Views (including `arith.select` and
    `scf.if` results) are followed."""
    found: list[Escape] = []
    work = [value]
    while work:
        current = work.pop()
        for use in current.uses:
            kind = use_kind(use)
            if kind is UseKind.VIEW:
                work.extend(aliased_values(use))
            elif kind is UseKind.ESCAPE:
                found.append(_escape(use))
    return found


def escape_of(value: SSAValue) -> Escape | None:
    """The first escape of `value`'s storage that leaves the block-level code, else the
    first escape, else None."""
    escapes = escapes_of(value)
    leaving = [e for e in escapes if e.leaves]
    return (leaving or escapes or [None])[0]


def _escape(use: Use) -> Escape:
    op = use.operation
    if (holder := opaque_ancestor(op)) is not None:
        return Escape(holder, "used inside an op whose regions are not modelled", False)
    if op.has_trait(IsTerminator) and not isinstance(op, UnregisteredOp):
        return Escape(op, "returned or yielded", True)
    if isinstance(op, memref.StoreOp):
        return Escape(op, "stored to memory", True)
    if isinstance(op, gpu.LaunchFuncOp):
        return Escape(op, "passed to a kernel launch", True)
    if isinstance(op, UnregisteredOp):
        return Escape(op, "passed to an unregistered op", False)
    if isinstance(op, func.CallOp) or op.has_trait(CallableOpInterface):
        return Escape(op, "passed to a call", False)
    if op.regions:
        return Escape(op, "passed into an op with regions", False)
    return Escape(op, "passed to an op whose memory effects are not modelled", False)


# ------------------------------------------------------------------- unowned memory


DYNAMIC_SHARED = "gpu.dynamic_shared_memory"


def attribution_start(op: gpu.FuncOp | gpu.LaunchOp) -> int:
    """The index of the first attribution among the entry block's arguments."""
    if isinstance(op, gpu.LaunchOp):
        return LAUNCH_CONFIG_ARGUMENTS
    return len(op.function_type.inputs.data)


def unowned_workgroup_memory(op: Operation) -> list[str]:
    """The workgroup buffers in `op`'s body that are not `gpu_alloc` allocations, as
    `what 'name'` phrases: what `fuse-gpu-allocs` would otherwise silently ignore."""
    found: list[str] = []
    if isinstance(op, gpu.FuncOp | gpu.LaunchOp) and op.body.blocks:
        for arg in op.body.blocks[0].args[attribution_start(op) :]:
            if buffer_space(arg.type) == 3:
                found.append(f"workgroup attribution %{arg.name_hint or arg.index}")
    for inner in walk_ops(op):
        if isinstance(inner, memref.AllocOp | memref.AllocaOp):
            if buffer_space(inner.memref.type) == 3:
                found.append(f"{inner.name} %{inner.memref.name_hint or '<unnamed>'}")
        elif isinstance(inner, memref.GetGlobalOp) and buffer_space(inner.memref.type) == 3:
            found.append(f"memref.get_global {inner.name_.string_value()}")
        elif is_dynamic_shared_memory(inner):
            found.append(DYNAMIC_SHARED)
    return found


def fuse_remarks(module: ModuleOp) -> list[Remark]:
    """What `fuse-gpu-allocs` says it leaves alone: a module without kernels, and
    workgroup memory that is not a `gpu_alloc` allocation (at the region's op)."""
    remarks: list[Remark] = []
    regions = list(block_level_regions(module))
    if next(fusable_kernels(module), None) is None:
        remarks.append(
            Remark(
                "no kernel (gpu.func with 'kernel', gpu.launch, or func.func allocating "
                "workgroup memory) in the module: nothing to fuse"
            )
        )
    for op, _ in regions:
        where = region_name(op)
        unowned = unowned_workgroup_memory(op)
        if importable := [u for u in unowned if u != DYNAMIC_SHARED]:
            remarks.append(
                Remark(
                    f"'{where}' has workgroup memory that fuse-gpu-allocs does not own and "
                    f"leaves as it is ({', '.join(importable)}); run import-gpu-allocs first",
                    op,
                )
            )
        if DYNAMIC_SHARED in unowned:
            remarks.append(
                Remark(f"'{where}' lays out {DYNAMIC_SHARED} itself; those bytes are not fused", op)
            )
    return remarks


def print_fuse_remarks(module: ModuleOp) -> None:
    for remark in fuse_remarks(module):
        emit_remark("fuse-gpu-allocs", remark.message, remark.op)
