"""`memref.atomic_rmw` in the simulator: each thread's read-modify-write in lane order.

The active threads of a block run one after another, in increasing linear thread id, so
the old values they get back are deterministic (one of the orders a GPU may pick).
Atomics are not entered in the race logs: two atomics never race, and telling an
atomic from a plain access there would need a third access kind. A plain access racing
with an atomic therefore goes unreported.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.memory import Arena, read_elements, write_elements

_Combine = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _unsigned(combine: _Combine) -> _Combine:
    def apply(old: np.ndarray, value: np.ndarray) -> np.ndarray:
        unsigned = np.dtype(f"u{old.dtype.itemsize}")
        return combine(old.view(unsigned), value.view(unsigned)).view(old.dtype)

    return apply


COMBINE: dict[int, _Combine] = {
    0: np.add,  # addf
    1: np.add,  # addi (wraps)
    2: np.bitwise_and,  # andi
    3: lambda old, value: value,  # assign
    4: np.maximum,  # maximumf (NaN wins)
    5: np.fmax,  # maxnumf (NaN loses)
    6: np.maximum,  # maxs
    7: _unsigned(np.maximum),  # maxu
    8: np.minimum,  # minimumf
    9: np.fmin,  # minnumf
    10: np.minimum,  # mins
    11: _unsigned(np.minimum),  # minu
    12: np.multiply,  # mulf
    13: np.multiply,  # muli (wraps)
    14: np.bitwise_or,  # ori
    15: np.bitwise_xor,  # xori
}
"""MLIR's `arith::AtomicRMWKind` numbers and what each does to (old, value)."""


def atomic_rmw(
    arena: Arena, addresses: np.ndarray, values: np.ndarray, dtype: np.dtype, kind: int
) -> np.ndarray:
    """Applies one atomic per address, in order; returns the old value each one saw."""
    combine = COMBINE.get(kind)
    if combine is None:
        raise SimulationError(f"memref.atomic_rmw kind {kind} is not one of MLIR's")
    olds = np.empty(addresses.size, dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(addresses.size):
            address = addresses[i : i + 1]
            old = read_elements(arena, address, dtype)
            olds[i] = old[0]
            new = combine(old, values[i : i + 1].astype(dtype))
            write_elements(arena, address, np.ascontiguousarray(new, dtype))
    return olds
