"""A GPU kernel simulator with race detection.

Runs a `gpu.module` kernel over a grid on numpy buffers, all threads of a block at once
(one numpy lane per thread), and reports data races on shared and heap memory,
barriers not reached by every thread of a block, and out-of-bounds accesses.

Modules: `launch` (arguments, blocks, results: `simulate`), `interpreter` (control
flow, gpu ops), `arith` and `memory_ops` (op semantics), `memory` (byte arenas and
views), `races` (per-byte access logs), `profile` (per-Func counts and bank
conflicts for `--profile`), `state`, `control_flow`, `allocations`. The
`gpu-alloc-sim` command and its input reading are tools (`gpu_alloc.tools.sim_cli`,
`gpu_alloc.tools.sim_loading`): the simulator imports no tool, no pass, no backend.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gpu_alloc.sim.errors import BarrierDivergenceError, MemoryAccessError, SimulationError

if TYPE_CHECKING:
    from gpu_alloc.sim.launch import SimulationResult, simulate

__all__ = [
    "BarrierDivergenceError",
    "MemoryAccessError",
    "SimulationError",
    "SimulationResult",
    "simulate",
]


def __getattr__(name: str) -> object:
    """`simulate` and `SimulationResult`, loaded on first use: importing the errors (as a
    tool does at start-up) loads neither numpy nor the interpreter."""
    if name in ("SimulationResult", "simulate"):
        from gpu_alloc.sim import launch

        return getattr(launch, name)
    raise AttributeError(f"module 'gpu_alloc.sim' has no attribute '{name}'")
