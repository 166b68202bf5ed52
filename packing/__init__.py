"""Static memory packing: give every buffer a byte offset so that buffers live at the same time
never share a byte, keeping the peak (the backing buffer's size) small.

This is the dynamic storage allocation problem (DSA) that `fuse-gpu-allocs` solves once per kernel
and memory space, and that `gpu-alloc-pack` solves for MiniMalloc-format CSV files. It is Python
plus numpy (and numba, where installed, for the exact search on large components), with no xDSL
dependency.

How `pack` works:

1. Items that occupy no memory (size 0 or an empty lifetime) get offset 0 (or their pinned
   offset). Pinned items (`PackItem.offset`) must not collide with each other.
2. The rest is split at time cutlines (points no lifetime crosses) into independent components,
   each first packed by size-descending best-fit (`best_fit`, the TFLite / XLA planners' idea;
   above `SEARCH_MAX_ITEMS` buffers by `sweep_fit`, O(n log n)). The rest of the work goes to
   the component that sets the peak, and to the next one once its peak drops below.
3. A component above its lower bound gets "lowest first" and other greedy orders while the
   budget allows (never worse than best-fit), then, up to `SEARCH_MAX_ITEMS` buffers, an exact
   search in the spirit of MiniMalloc (Moffitt, ASPLOS'23) asking "is there a packing within
   capacity C?": the lower bound first (usually the optimum); then, up to 64 buffers, a ladder
   of capacities above it, and above 64 rounds of dives at a few capacities below the best
   peak with doubling node budgets; then a binary search, until the peak is proven optimal or
   the budget (or the optional time limit) runs out. Capacities are multiples of a quantum
   every compacted peak is a multiple of. The search visits only *canonical* packings (every
   buffer as low as it can go on top of those placed before it, placed in order of increasing
   offset), so a finished search is a proof; it prunes with "floor + size still to place <= C"
   per time section, skips dominated placements, splits the rest wherever no unplaced buffer
   crosses a time point and, from 65 buffers on, ranks each split-off part afresh by
   MiniMalloc's preorderings with the fullest section each buffer crosses at that point.
4. `Packing.lower_bound` is the max load, raised by alignment padding (`aligned_section_bound`)
   and past every capacity the search refuted, whose certificate (`Refutation`) `confirm`
   replays. With `capacity` the search stops at the first packing within it, or proves none.

Guarantees: every result is checked with `validate` before it is returned; without a time
limit the search stops on work units only (`budget`), so the same input and options give the
same offsets on any machine under any load; whatever stops it, the best packing found is
returned.

Modules: `items` (the API's data types, the validator), `component` (one independent
subproblem as arrays, its lower bound), `greedy` (the greedy packers), `search` (the exact search
at one capacity), `strategy` (which capacities to ask about), `budget` (work units, the optional
wall-clock cap, progress and interruption), `api` (`pack`); `core` and `parts` (the search's
inner loop over flat arrays, used from 65 buffers up), `flat` (one dive through it, metered) and
`jit` (its numba compile on first use; `GPU_ALLOC_NO_JIT=1` runs it as plain Python with the same
result for the same budget).
"""

from gpu_alloc.packing.api import (
    DEFAULT_BUDGET,
    DEFAULT_FLAT_BUDGET,
    DEFAULT_GREEDY_BUDGET,
    DEFAULT_TIME_LIMIT,
    SEARCH_MAX_ITEMS,
    pack,
)
from gpu_alloc.packing.budget import Meter
from gpu_alloc.packing.greedy import best_fit
from gpu_alloc.packing.items import (
    MAX_TOTAL_BYTES,
    Packing,
    PackingError,
    PackItem,
    Refutation,
    check_total,
    lower_bound,
    validate,
)
from gpu_alloc.packing.search import confirm

__all__ = [
    "DEFAULT_BUDGET",
    "DEFAULT_FLAT_BUDGET",
    "DEFAULT_GREEDY_BUDGET",
    "DEFAULT_TIME_LIMIT",
    "MAX_TOTAL_BYTES",
    "SEARCH_MAX_ITEMS",
    "Meter",
    "Packing",
    "PackingError",
    "PackItem",
    "Refutation",
    "best_fit",
    "check_total",
    "confirm",
    "lower_bound",
    "pack",
    "validate",
]
