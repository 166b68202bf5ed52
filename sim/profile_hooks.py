"""Where the memory ops feed the profile (`sim.profile`), when one was asked for."""

from __future__ import annotations

from typing import Any

import numpy as np
from gpu_alloc.dialect import LAYOUT_ATTR
from gpu_alloc.sim.memory import Arena, MemRefView
from gpu_alloc.sim.state import LaunchState
from xdsl.ir import Operation


def profile_access(
    launch: LaunchState,
    op: Operation,
    view: MemRefView,
    addresses: np.ndarray,
    lanes: np.ndarray,
    is_write: bool,
    interpreter: Any,
) -> None:
    """Count one load or store of the running block's threads `lanes`."""
    if launch.profile is not None:
        block = interpreter.block_state.linear_id
        launch.profile.access(op, view, addresses, lanes, is_write, block)


def note_layout(
    launch: LaunchState, arena: Arena, op: Operation, shared_by_blocks: bool = False
) -> None:
    """Tell the profile which Funcs the backing made by `op` holds (its
    `gpu_alloc.layout` record); a launch-wide one holds one slice per block."""
    if launch.profile is None or LAYOUT_ATTR not in op.attributes:
        return
    gx, gy, gz = launch.grid
    block_bytes = arena.nbytes // (gx * gy * gz) if shared_by_blocks else None
    launch.profile.note_layout(arena, op.attributes[LAYOUT_ATTR], block_bytes)
