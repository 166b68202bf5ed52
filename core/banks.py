"""The shared-memory bank model: 32 banks of 4 bytes, warps of 32 threads.

For one warp-level access (the active threads of one warp executing one load or
store) take the distinct 4-byte words it touches; bank = word mod 32; wavefronts = the
most distinct words in one bank; the access has `wavefronts - ceil(words / 32)` bank
conflicts. Used by the simulator's profile and by `pad-shared-allocs`.
"""

from __future__ import annotations

import numpy as np

BANKS = 32
BANK_BYTES = 4
WARP_SIZE = 32


def bank_conflicts(addresses: np.ndarray, itemsize: int, lanes: np.ndarray) -> int:
    """Bank conflicts of one access: `addresses[i]` (bytes) read or written by thread
    `lanes[i]` (linear id in its block, so warp = lane // 32), `itemsize` bytes each."""
    if addresses.size == 0:
        return 0
    first = addresses // BANK_BYTES
    last = (addresses + itemsize - 1) // BANK_BYTES
    span = int(np.max(last - first)) + 1
    words = (first[:, None] + np.arange(span)).reshape(-1)
    valid = words <= np.repeat(last, span)
    warps = np.repeat(lanes // WARP_SIZE, span)
    pairs = np.unique(np.stack([warps[valid], words[valid]]), axis=1)
    warp_of, word_of = pairs[0], pairs[1]
    present, distinct = np.unique(warp_of, return_counts=True)
    per_bank, counts = np.unique(np.stack([warp_of, word_of % BANKS]), axis=1, return_counts=True)
    wavefronts = np.zeros(int(present.max()) + 1, np.int64)
    np.maximum.at(wavefronts, per_bank[0], counts)
    return int(np.sum(wavefronts[present] - (distinct + BANKS - 1) // BANKS))


def strided_conflicts(stride_bytes: int, itemsize: int, threads: int) -> int:
    """Conflicts of one warp whose `threads` threads access one element each,
    `stride_bytes` apart: a tile read along an outer dimension."""
    lanes = np.arange(min(threads, WARP_SIZE), dtype=np.int64)
    return bank_conflicts(lanes * stride_bytes, itemsize, lanes)
