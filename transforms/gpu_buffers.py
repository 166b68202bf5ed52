"""Shared and private buffers as real GPU IR writes them, before `import-gpu-allocs`.

Buffers are imported from block-level code (`block_level_code`) and from device
`gpu.func`s. In it, a
buffer is a workgroup/private `memref.alloc`/`alloca`, a `gpu.func` attribution, a
`memref.get_global` of a workgroup `memref.global`, or `gpu.dynamic_shared_memory`.
Workgroup memory is `#gpu.address_space<workgroup>` or an integer space 3, private memory
`#gpu.address_space<private>` or 5 (`normalize_spaces` rewrites both to `3 : i32` and
`5 : i32`, this project's spelling).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gpu_alloc.dialect.mlir_gpu import is_dynamic_shared_memory, space_number
from gpu_alloc.dialect.mlir_gpu_kernels import LAUNCH_CONFIG_ARGUMENTS
from gpu_alloc.remarks import Remark, emit_remark
from gpu_alloc.transforms.block_level_code import allocates_workgroup_memory, block_level_code
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from gpu_alloc.transforms.memory_effects import UseKind, aliased_values, use_kind
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
    """Where `import-gpu-allocs` looks for buffers, with the body holding them: the
    block-level code (`block_level_code`) and every device `gpu.func`."""
    for op in walk_ops(module):
        if isinstance(op, gpu.FuncOp | gpu.LaunchOp):
            yield op, op.body
        elif isinstance(op, func.FuncOp) and allocates_workgroup_memory(op):
            yield op, op.body


def region_name(op: Operation) -> str:
    """How remarks name a block-level region: its symbol, or `gpu.launch in f`."""
    return kernel_name(op)


@dataclass(frozen=True)
class Escape:
    """Why a buffer cannot become a `gpu_alloc.alloc`: the op it escapes through."""

    op: Operation
    reason: str

    def describe(self) -> str:
        name = self.op.op_name.data if isinstance(self.op, UnregisteredOp) else self.op.name
        return f"{self.reason} ('{name}')"


def escape_of(value: SSAValue) -> Escape | None:
    """Whether the storage of `value` (directly or through views) leaves the code that
    can see it: any use that the memory-effects table (`memory_effects`) calls an
    escape — returned, stored as a value, passed to a call, a launch, an op with
    regions, an unregistered or unknown op. Views (including `arith.select` and
    `scf.if` results) are followed."""
    work = [value]
    while work:
        current = work.pop()
        for use in current.uses:
            kind = use_kind(use)
            if kind is UseKind.VIEW:
                work.extend(aliased_values(use))
            elif kind is UseKind.ESCAPE:
                return Escape(use.operation, _escape_reason(use))
    return None


def _escape_reason(use: Use) -> str:
    op = use.operation
    if isinstance(op, UnregisteredOp):
        return "passed to an unregistered op"
    if op.has_trait(IsTerminator):
        return "returned or yielded"
    if isinstance(op, memref.StoreOp):
        return "stored to memory"
    if isinstance(op, func.CallOp | gpu.LaunchFuncOp) or op.has_trait(CallableOpInterface):
        return "passed to a call"
    if op.regions:
        return "passed into an op with regions"
    return "passed to an op whose memory effects are not modelled"


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
    if not block_level_code(module):
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
