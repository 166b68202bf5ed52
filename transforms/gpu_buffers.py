"""Shared and private buffers as real GPU IR writes them, before `import-gpu-allocs`.

Buffers are imported from block-level code (`block_level_code`) and from device
`gpu.func`s. In it, a
buffer is a workgroup/private `memref.alloc`/`alloca`, a `gpu.func` attribution, a
`memref.get_global` of a workgroup `memref.global`, or `gpu.dynamic_shared_memory`.
What memory each of them is (in either spelling of its memory space) is
`gpu_alloc.dialect.memory`'s answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from gpu_alloc.dialect import MemorySpace
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.memory import attributions, is_workgroup_type, space_of
from gpu_alloc.remarks import Remark, emit_remark
from gpu_alloc.syntax.mlir_gpu import is_dynamic_shared_memory
from gpu_alloc.transforms.block_level_code import allocates_workgroup_memory, block_level_code
from gpu_alloc.transforms.kernel_ir import kernel_name, walk_ops
from gpu_alloc.transforms.memory_effects import (
    UseKind,
    aliased_values,
    opaque_ancestor,
    use_kind,
)
from gpu_alloc.transforms.shared_globals import shared_global_bytes_read
from xdsl.dialects import func, gpu, llvm, memref
from xdsl.dialects.builtin import (
    ModuleOp,
    UnregisteredOp,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue, Use
from xdsl.traits import CallableOpInterface, IsTerminator

BLOCK_LEVEL_SPACES = (MemorySpace.SHARED, MemorySpace.PRIVATE)
"""Workgroup (shared) and private memory: the spaces `import-gpu-allocs` takes over."""


def buffer_space(type_: Attribute) -> MemorySpace | None:
    """Shared or private for a workgroup or private memref type (either spelling),
    else None."""
    space = space_of(type_)
    return space if space in BLOCK_LEVEL_SPACES else None


# ------------------------------------------------------------------ block-level code


def block_level_regions(module: ModuleOp) -> Iterator[tuple[Operation, Region]]:
    """Where `import-gpu-allocs` looks for buffers, with the body holding them: the
    block-level code (`block_level_code`) and every device `gpu.func`."""
    for op in walk_ops(module):
        if isinstance(op, gpu.FuncOp | gpu.LaunchOp):
            yield op, op.body
        elif isinstance(op, func.FuncOp) and (is_kernel(op) or allocates_workgroup_memory(op)):
            yield op, op.body


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


def unowned_workgroup_memory(op: Operation) -> list[str]:
    """The workgroup buffers in `op`'s body that are not `gpu_alloc` allocations, as
    `what 'name'` phrases: what `fuse-gpu-allocs` would otherwise silently ignore."""
    found: list[str] = []
    for arg in attributions(op):
        if is_workgroup_type(arg.type):
            found.append(f"workgroup attribution %{arg.name_hint or arg.index}")
    for inner in walk_ops(op):
        if isinstance(inner, memref.AllocOp | memref.AllocaOp):
            if is_workgroup_type(inner.memref.type):
                found.append(f"{inner.name} %{inner.memref.name_hint or '<unnamed>'}")
        elif isinstance(inner, memref.GetGlobalOp) and is_workgroup_type(inner.memref.type):
            found.append(f"memref.get_global {inner.name_.string_value()}")
        elif is_dynamic_shared_memory(inner):
            found.append(DYNAMIC_SHARED)
    return found


def fuse_remarks(module: ModuleOp) -> list[Remark]:
    """What `fuse-gpu-allocs` says it leaves alone: a module without kernels, and
    workgroup memory that is not a `gpu_alloc` allocation (at the region's op)."""
    remarks: list[Remark] = []
    regions = list(block_level_regions(module))
    llvm_kernels = [op for op in walk_ops(module) if isinstance(op, llvm.FuncOp) and is_kernel(op)]
    if not block_level_code(module) and not llvm_kernels:
        remarks.append(
            Remark(
                "no kernel (gpu.func with 'kernel', gpu.launch, func.func allocating "
                "workgroup memory, or an llvm.func kernel) in the module: nothing to fuse"
            )
        )
    for kernel in llvm_kernels:
        if global_bytes := shared_global_bytes_read(kernel):
            remarks.append(
                Remark(
                    f"'{kernel.sym_name.data}' is an llvm.func kernel: fuse-gpu-allocs does "
                    f"not rewrite LLVM-dialect code, so its {global_bytes} B of workgroup "
                    "globals stay as they are (lower-gpu-allocs checks them against the "
                    "target's limit)",
                    kernel,
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
