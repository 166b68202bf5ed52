"""The shared-memory bank model of a chip (`gpu_alloc.targets.BankModel`): banks x width,
conflicts counted per group of lanes served together.

For one access (the active threads of one group of `model.lanes` consecutive linear
thread ids executing one load or store) take the distinct bank words it touches; bank =
word mod `model.banks`; wavefronts = the most distinct words in one bank; the access has
`wavefronts - ceil(words / banks)` bank conflicts. NVIDIA: 32 banks of 4 bytes per warp
of 32; AMD: 32 banks of 4 bytes per half wavefront (64 banks on gfx950). Used by the
simulator's profile and by `pad-shared-allocs`.
"""

from __future__ import annotations

import numpy as np
from gpu_alloc.targets import DEFAULT_DEVICE, BankModel

DEFAULT_BANK_MODEL = DEFAULT_DEVICE.bank_model
"""With no target named: NVIDIA's (every sm_XX)."""
assert DEFAULT_BANK_MODEL is not None


def bank_conflicts(
    addresses: np.ndarray, itemsize: int, lanes: np.ndarray, model: BankModel = DEFAULT_BANK_MODEL
) -> int:
    """Bank conflicts of one access: `addresses[i]` (bytes) read or written by thread
    `lanes[i]` (linear id in its block, so its group is lane // model.lanes), `itemsize`
    bytes each."""
    if addresses.size == 0:
        return 0
    first = addresses // model.bank_bytes
    last = (addresses + itemsize - 1) // model.bank_bytes
    span = int(np.max(last - first)) + 1
    words = (first[:, None] + np.arange(span)).reshape(-1)
    valid = words <= np.repeat(last, span)
    groups = np.repeat(lanes // model.lanes, span)
    pairs = np.unique(np.stack([groups[valid], words[valid]]), axis=1)
    group_of, word_of = pairs[0], pairs[1]
    present, distinct = np.unique(group_of, return_counts=True)
    per_bank, counts = np.unique(
        np.stack([group_of, word_of % model.banks]), axis=1, return_counts=True
    )
    wavefronts = np.zeros(int(present.max()) + 1, np.int64)
    np.maximum.at(wavefronts, per_bank[0], counts)
    return int(np.sum(wavefronts[present] - (distinct + model.banks - 1) // model.banks))


def strided_conflicts(
    stride_bytes: int, itemsize: int, threads: int, model: BankModel = DEFAULT_BANK_MODEL
) -> int:
    """Conflicts of one group whose `threads` threads access one element each,
    `stride_bytes` apart: a tile read along an outer dimension."""
    lanes = np.arange(min(threads, model.lanes), dtype=np.int64)
    return bank_conflicts(lanes * stride_bytes, itemsize, lanes, model)
