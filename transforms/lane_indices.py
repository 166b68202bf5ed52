"""Recognise indices of the form `lane + k * warp_size`.

The lane is `gpu.lane_id` or `arith.remui` of `gpu.thread_id` by the warp size. An
index `lane + m`, `m + lane` or `lane - m`, where `m` is provably a multiple of the warp
size, names an element that belongs to the lane: `index mod warp_size == lane`, and
`index floordiv warp_size` is its position in the lane's stripe.
"""

from __future__ import annotations

from gpu_alloc.transforms.iv_conditions import constant_int
from xdsl.dialects import arith, gpu
from xdsl.ir import SSAValue

LaneKey = tuple[str, ...]
"""Identifies which lane value an index uses; equal keys mean equal lanes at run time."""


def lane_key(value: SSAValue, warp_size: int) -> LaneKey | None:
    """The key of `value` if it is the lane id of the executing thread, else None."""
    owner = value.owner
    if isinstance(owner, gpu.LaneIdOp):
        return ("gpu.lane_id",)
    if isinstance(owner, arith.RemUIOp) and constant_int(owner.rhs) == warp_size:
        thread = owner.lhs.owner
        if isinstance(thread, gpu.ThreadIdOp):
            return ("gpu.thread_id", str(thread.dimension.data))
    return None


def is_warp_multiple(value: SSAValue, warp_size: int, _depth: int = 0) -> bool:
    """Whether `value` is provably a multiple of `warp_size` (syntactically)."""
    if _depth > 32:
        return False
    if (c := constant_int(value)) is not None:
        return c % warp_size == 0
    owner = value.owner
    if isinstance(owner, arith.MuliOp):
        return any(is_warp_multiple(v, warp_size, _depth + 1) for v in owner.operands)
    if isinstance(owner, arith.AddiOp | arith.SubiOp):
        return all(is_warp_multiple(v, warp_size, _depth + 1) for v in owner.operands)
    if isinstance(owner, arith.ShLIOp) and (shift := constant_int(owner.rhs)) is not None:
        return shift >= 0 and (1 << shift) % warp_size == 0
    return False


def lane_residue(index: SSAValue, warp_size: int, _depth: int = 0) -> LaneKey | None:
    """The lane key `L` if `index` is `L + m` (or `m + L`, `L - m`) for a multiple `m`
    of the warp size, else None."""
    if _depth > 32:
        return None
    if (key := lane_key(index, warp_size)) is not None:
        return key
    owner = index.owner
    if isinstance(owner, arith.AddiOp):
        for lane_side, other in ((owner.lhs, owner.rhs), (owner.rhs, owner.lhs)):
            key = lane_residue(lane_side, warp_size, _depth + 1)
            if key is not None and is_warp_multiple(other, warp_size):
                return key
    if isinstance(owner, arith.SubiOp):
        key = lane_residue(owner.lhs, warp_size, _depth + 1)
        if key is not None and is_warp_multiple(owner.rhs, warp_size):
            return key
    return None
