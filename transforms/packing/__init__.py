"""Static memory packing: give every buffer a byte offset so that buffers live at the same time
never share a byte, keeping the peak (the backing buffer's size) small.

This is the dynamic storage allocation problem (DSA) that `fuse-gpu-allocs` solves once per kernel
and memory space, and that `gpu-alloc-pack` solves for MiniMalloc-format CSV files. It is Python
plus numpy (and numba, where installed, for the exact search on large components), with no xDSL
dependency.

How `pack` works:

1. Items that occupy no memory (size 0 or an empty lifetime) get offset 0.
2. The rest is split at time cutlines (points no lifetime crosses) into independent components.
3. A component of up to `SEARCH_MAX_ITEMS` buffers is first packed by size-descending
   best-fit (`best_fit`, the TFLite / XLA planners' idea), then by "lowest first" (always
   place the buffer that can go lowest; good on chains of lifetimes and on several real
   traces) and a few other greedy orders while the budget allows; the best result is kept,
   so it is never worse than best-fit. A larger component is first packed by `sweep_fit`
   (best fit replayed over time with a coalescing free list, O(n log n)); lowest-first and
   best-fit, quadratic, follow only when the budget covers them and stop at the time limit.
4. If the peak is above the max-load lower bound and the component has at most
   `SEARCH_MAX_ITEMS` buffers, a branch-and-bound search in the spirit of MiniMalloc (Moffitt,
   ASPLOS'23) asks "is there a packing within capacity C?" for shrinking C (the lower bound
   first; then, up to 64 buffers, a ladder of capacities above it, and above 64 a descent of
   short dives guided by the best packing so far; then a binary search) until the peak is
   proven optimal or the budget (or the optional time limit) runs out. Capacities are multiples of a quantum every
   canonical peak is a multiple of. The search only visits *canonical* packings: every
   buffer sits as low as it can on top of the buffers placed before it, and buffers are placed
   in order of increasing offset. Every gravity-compacted packing is canonical, so a finished
   search is a proof. It prunes with the per-time-section bound "floor here + size still to
   place here <= C", skips dominated placements, and splits the rest of the problem wherever no
   unplaced buffer crosses a time point.

Guarantees: every result is checked with `validate` before it is returned; without a time
limit the search stops on work units only (`budget`), so the same input and options give the
same offsets on any machine under any load.

Modules: `items` (the API's data types, the lower bound and the validator), `component` (one
independent subproblem as arrays), `greedy` (the greedy packers), `search` (the exact search at
one capacity), `strategy` (which capacities to ask about), `budget` (work units and the optional
wall-clock cap), `api` (`pack`); `core` (the search's inner loop over flat arrays, used from 65
buffers up), `flat` (one dive through it, metered) and `jit` (its numba compile on first use;
`GPU_ALLOC_NO_JIT=1` runs it as plain Python with the same result for the same budget).
"""

from gpu_alloc.transforms.packing.api import (
    DEFAULT_BUDGET,
    DEFAULT_FLAT_BUDGET,
    DEFAULT_GREEDY_BUDGET,
    DEFAULT_TIME_LIMIT,
    SEARCH_MAX_ITEMS,
    pack,
)
from gpu_alloc.transforms.packing.budget import Meter
from gpu_alloc.transforms.packing.greedy import best_fit
from gpu_alloc.transforms.packing.items import (
    Packing,
    PackingError,
    PackItem,
    Refutation,
    lower_bound,
    validate,
)
from gpu_alloc.transforms.packing.search import confirm

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_FLAT_BUDGET",
    "DEFAULT_GREEDY_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "SEARCH_MAX_ITEMS",
    "Meter",
    "Packing",
    "PackingError",
    "PackItem",
    "Refutation",
    "best_fit",
    "confirm",
    "lower_bound",
    "pack",
    "validate",
]
