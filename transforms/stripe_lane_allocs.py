"""`stripe-lane-allocs`: shrink warp-striped private allocations to one stripe per lane."""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect.ops import AllocOp, MemorySpace
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.transforms.constants import constant_before
from gpu_alloc.transforms.device_option import device_option
from gpu_alloc.transforms.lane_indices import LaneKey, lane_residue
from gpu_alloc.transforms.memref_uses import UseKind, memref_accesses
from gpu_alloc.transforms.module_target import module_device
from xdsl.context import Context
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    NoneAttr,
)
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

Access = memref.LoadOp | memref.StoreOp


def _last_index(op: Access) -> SSAValue | None:
    return op.indices[-1] if op.indices else None


def _lane_accesses(alloc: AllocOp, warp_size: int) -> list[tuple[Access, LaneKey | None]]:
    """The loads and stores of `alloc`, each with the lane key of its last index."""
    accesses: list[tuple[Access, LaneKey | None]] = []
    for access in memref_accesses(alloc.memref):
        op = access.op
        if isinstance(op, memref.LoadOp | memref.StoreOp) and op.memref is alloc.memref:
            index = _last_index(op)
            key = None if index is None else lane_residue(index, warp_size)
            accesses.append((op, key))
    return accesses


def _is_candidate(alloc: AllocOp, warp_size: int) -> bool:
    """A block-level private allocation that some access indexes by lane."""
    func = alloc.parent_op()
    if alloc.space != MemorySpace.PRIVATE or not isinstance(func, gpu.FuncOp):
        return False
    return any(key is not None for _, key in _lane_accesses(alloc, warp_size))


def _check_stripable(alloc: AllocOp, warp_size: int) -> None:
    """Raise a diagnostic naming the first access that is not lane-local."""
    name = alloc.alloc_name.data
    prefix = f"cannot stripe private allocation '{name}' across the lanes of a warp"
    not_lane = f"its index is not the lane id plus a multiple of {warp_size}"
    keys = {key for _, key in _lane_accesses(alloc, warp_size)}
    for access in memref_accesses(alloc.memref):
        op = access.op
        if access.kind is UseKind.FREE:
            continue
        if not isinstance(op, memref.LoadOp | memref.StoreOp) or access.value is not alloc.memref:
            raise GpuAllocPassError(
                f"{prefix}: it is used by {op.name}, which cannot be rewritten to "
                "lane-local indices",
                op,
            )
        index = _last_index(op)
        key = None if index is None else lane_residue(index, warp_size)
        if key is None and isinstance(op, memref.LoadOp):
            raise GpuAllocPassError(
                f"{prefix}: this load reads an element of another lane ({not_lane}); "
                "a cross-lane read needs gpu.shuffle, which xDSL 0.75 does not define",
                op,
            )
        if key is None:
            raise GpuAllocPassError(
                f"{prefix}: this store writes an element of another lane ({not_lane})",
                op,
            )
    if len(keys) > 1:
        lanes = " and ".join(sorted(" ".join(key) for key in keys if key))
        raise GpuAllocPassError(f"{prefix}: its accesses use different lanes ({lanes})", alloc)
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    if not isinstance(memref_type.layout, NoneAttr):
        raise GpuAllocPassError(f"{prefix}: it has a non-identity layout", alloc)


def _striped_type(memref_type: MemRefType, warp_size: int) -> MemRefType:
    shape = list(memref_type.get_shape())
    if shape[-1] != DYNAMIC_INDEX:
        shape[-1] = -(-shape[-1] // warp_size)
    return MemRefType(memref_type.element_type, shape, memory_space=memref_type.memory_space)


def stripe(alloc: AllocOp, warp_size: int) -> AllocOp:
    """Re-create `alloc` with `ceil(n / warp_size)` elements in its last dimension and
    divide the last index of every access by the warp size."""
    memref_type = alloc.memref.type
    assert isinstance(memref_type, MemRefType)
    at_alloc = InsertPoint.before(alloc)
    warp = constant_before(alloc, IntegerAttr(warp_size, IndexType()))
    sizes = list(alloc.dynamic_sizes)
    if memref_type.get_shape()[-1] == DYNAMIC_INDEX:
        per_lane = arith.CeilDivUIOp(sizes[-1], warp)
        Rewriter.insert_op(per_lane, at_alloc)
        sizes[-1] = per_lane.result
    alignment = None if alloc.alignment is None else alloc.alignment.value.data
    striped = AllocOp(alloc.alloc_name, _striped_type(memref_type, warp_size), sizes, alignment)
    striped.attributes.update(alloc.attributes)
    accesses = [op for op, _ in _lane_accesses(alloc, warp_size)]
    Rewriter.replace_op(alloc, striped)
    for op in accesses:
        index = _last_index(op)
        assert index is not None
        local = arith.DivUIOp(index, warp)
        Rewriter.insert_op(local, InsertPoint.before(op))
        op.operands[len(op.operands) - 1] = local.result
    return striped


@dataclass(frozen=True)
class StripeLaneAllocsPass(ModulePass):
    """Stripe warp-level private storage across the lanes of a warp.

    A private (space 5) `gpu_alloc.alloc` at the top level of a kernel whose accesses
    index its last dimension by `lane + k * warp_size` (the lane being `gpu.lane_id`
    or `gpu.thread_id % warp_size`) only ever touches one element in `warp_size` of
    each thread's copy. It is re-created with `ceil(n / warp_size)` elements in that
    dimension (a dynamic size becomes `arith.ceildivui`), and each access's last
    index becomes `index / warp_size`, its position in the lane's own stripe.

    Guarantees:
    - Shared (3) and heap (1) allocations and all aliases are never striped, resized
      or moved, whatever their indices (Halide striped a heap alias, §4.4).
    - A candidate with an access that is not lane-local is a user error naming that
      access: a read of another lane's element would need `gpu.shuffle`, which
      xDSL 0.75 does not define, and a write there cannot be expressed at all.
    - Private allocations that no access indexes by lane are left alone.

    Options:
    - `chip` (default none): the chip whose warp or wavefront size to stripe by
      (`gfx942`: 64, `gfx1100`: 32, `sm_90`: 32; none: NVIDIA's 32);
    - `warp_size` (default the chip's): the lanes of a warp, and the divisor of
      `gpu.thread_id` that counts as the lane id; needed where the chip leaves the
      sub-group size to the device (SPIR-V's `generic`).
    """

    name = "stripe-lane-allocs"

    chip: str = ""
    """The chip whose warp or wavefront size to stripe by (`gfx942`: 64, `sm_90`: 32)."""

    warp_size: int | None = None
    """Threads per warp: lane `l` keeps the elements `l + k * warp_size` (default: the
    chip's; NVIDIA's 32 without a chip)."""

    def lanes(self, module: ModuleOp | None = None) -> int:
        """`warp_size`, or the warp or wavefront size of `module`'s chip (its
        `gpu.module`s' target attribute or the `chip` option: `module_target`)."""
        if self.warp_size is not None:
            if self.warp_size <= 0:
                raise GpuAllocPassError(
                    f"stripe-lane-allocs: warp_size must be positive, got {self.warp_size}"
                )
            return self.warp_size
        if module is None:
            device = device_option(self.name, self.chip)
        else:
            device = module_device(module, self.name, self.chip)
        if device.wave_size is None:
            raise GpuAllocPassError(
                f"stripe-lane-allocs: {device.describe()} leaves the sub-group size to the "
                "device: give warp_size"
            )
        return device.wave_size

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lanes = self.lanes(op)
        candidates = [o for o in op.walk() if isinstance(o, AllocOp) and _is_candidate(o, lanes)]
        for alloc in candidates:
            _check_stripable(alloc, lanes)
        for alloc in candidates:
            stripe(alloc, lanes)
