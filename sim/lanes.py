"""`gpu.shuffle` in the simulator: every active thread reads a value of another lane of
its warp (the device's warp or wavefront: 32 or 64 consecutive linear thread ids), as
MLIR's GPU dialect defines it.

With `lane` the thread's lane in its warp, the source lane is `lane ^ offset` (`xor`),
`lane - offset` (`up`), `lane + offset` (`down`) or `offset` (`idx`); `%valid` is whether
it lies in `[0, width)`, and where it does not the thread gets its own value back. Reading
a lane that is not active (outside the branch, or past the end of a partial warp) is
undefined on a GPU, so it is an error here.
"""

from __future__ import annotations

import numpy as np
from gpu_alloc.sim.control_flow import Mask
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.syntax.mlir_gpu_lanes import ShuffleMode, ShuffleOp


def shuffle(
    op: ShuffleOp,
    value: np.ndarray,
    offset: np.ndarray,
    width: np.ndarray,
    mask: Mask,
    lanes: int,
) -> tuple[np.ndarray, np.ndarray]:
    """The shuffled values and the `%valid` flags of all threads of the block, in warps of
    `lanes` threads."""
    n = value.shape[0]
    ids = np.arange(n, dtype=np.int64)
    lane = ids % lanes
    offset = offset.astype(np.int64)
    source = {
        ShuffleMode.XOR: lane ^ offset,
        ShuffleMode.UP: lane - offset,
        ShuffleMode.DOWN: lane + offset,
        ShuffleMode.IDX: np.broadcast_to(offset, (n,)),
    }[op.mode.data]
    valid = (source >= 0) & (source < width.astype(np.int64))
    source_ids = np.where(valid, ids - lane + source, ids)
    active = np.ones(n, np.bool_) if mask is None else mask
    reads_inactive = active & ((source_ids >= n) | ~active[np.minimum(source_ids, n - 1)])
    if reads_inactive.any():
        thread = int(np.argmax(reads_inactive))
        raise SimulationError(
            f"gpu.shuffle: thread {thread} reads lane {int(source[thread])} of its warp, "
            "which is not active (undefined on a GPU)"
        )
    return value[np.minimum(source_ids, n - 1)], valid
