"""What a simulation remembers: per launch (races, shared arenas) and per block."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.memory import Arena, MemRefView
from gpu_alloc.sim.profile import Profile
from gpu_alloc.sim.races import NO_AGENT, Access, Conflict

_SPACE_NAMES = {1: "global (heap)", 3: "shared"}


@dataclass(frozen=True)
class Race:
    """Two accesses to one byte, at least one a write, with no barrier between them."""

    space: int
    arena: str
    byte: int
    block: tuple[int, int, int]
    interval: int
    earlier: Access
    later: Access
    across_blocks: bool
    earlier_agent: str
    later_agent: str

    @property
    def funcs(self) -> tuple[str, str]:
        return (self.earlier.func, self.later.func)

    def describe(self) -> str:
        where = _SPACE_NAMES.get(self.space, f"space {self.space}")
        if self.across_blocks:
            context = "two blocks of one launch, no barrier can order them"
        else:
            context = f"block {self.block}, barrier interval {self.interval}"
        return (
            f"race on {where} memory '{self.arena}' byte {self.byte} ({context}): "
            f"{self.earlier_agent} {self.earlier.verb} '{self.earlier.func}' and "
            f"{self.later_agent} {self.later.verb} '{self.later.func}'"
        )


@dataclass
class BlockState:
    """The running block: its id, its barrier interval, and the arenas to race-check."""

    block_id: tuple[int, int, int]
    linear_id: int
    interval: int = 0
    tracked: list[Arena] = field(default_factory=list[Arena])
    globals: dict[str, Arena] = field(default_factory=dict[str, Arena])
    """The block's own globals (workgroup ones, and its dynamic shared memory)."""
    private_globals: dict[str, MemRefView] = field(default_factory=dict[str, MemRefView])
    """Private globals: one copy per thread of the block."""

    def track(self, arena: Arena) -> None:
        if arena.interval_log is not None:
            arena.interval_log.clear()
            self.tracked.append(arena)

    def next_interval(self) -> None:
        self.interval += 1
        for arena in self.tracked:
            assert arena.interval_log is not None
            arena.interval_log.clear()


@dataclass
class LaunchState:
    """One launch of a kernel over a grid."""

    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    func_names: list[str] = field(default_factory=list[str])
    races: dict[tuple[object, ...], Race] = field(default_factory=dict[tuple[object, ...], Race])
    race_count: int = 0
    thread_steps: int = 0
    max_thread_steps: int | None = None
    """A cap on `thread_steps` (`--max-steps`): past it the simulation stops with an error."""
    shared_by_blocks: dict[object, Arena] = field(default_factory=dict[object, Arena])
    _func_ids: dict[str, int] = field(default_factory=dict[str, int])
    profile: Profile | None = None
    """Per-Func counts, when the caller asked for a profile."""
    shared_limit: int = 227 * 1024
    """The most shared memory one block may use (`allocations.shared_bytes_limit`)."""
    chip: str | None = None
    """The chip whose limit that is, for the messages; None: any chip."""
    dynamic_shared_bytes: int = 0
    """What `gpu.dynamic_shared_memory` gives each block (`allocations.dynamic_shared_size`)."""

    @property
    def threads_per_block(self) -> int:
        x, y, z = self.block
        return x * y * z

    def func_id(self, name: str) -> int:
        if name not in self._func_ids:
            self._func_ids[name] = len(self.func_names)
            self.func_names.append(name)
        return self._func_ids[name]

    def arenas_shared_by_blocks(self) -> list[Arena]:
        return list(self.shared_by_blocks.values())

    def new_arena(
        self, name: str, space: int, nbytes: int, shared_by_blocks: bool, growable: bool = False
    ) -> Arena:
        """An arena; shared and heap memory is race-checked. A shared allocation larger than
        the chip gives a block is refused before anything is allocated."""
        if space == 3 and nbytes > self.shared_limit:
            chip = f"{self.chip} gives" if self.chip else "any chip gives"
            raise SimulationError(
                f"shared allocation '{name}' needs {nbytes} bytes, more than {chip} "
                f"a block ({self.shared_limit} bytes)"
            )
        arena = Arena(name, space, nbytes, growable)
        if space in (1, 3):
            arena.track_races(self.func_names, across_blocks=shared_by_blocks)
        return arena

    def report(
        self,
        arena: Arena,
        conflict: Conflict,
        block: BlockState,
        across_blocks: bool,
        who: AgentNamer,
    ) -> None:
        self.race_count += 1
        key = (
            arena.space,
            conflict.earlier.func,
            conflict.earlier.is_write,
            conflict.later.func,
            conflict.later.is_write,
            across_blocks,
        )
        if key in self.races:
            return
        self.races[key] = Race(
            space=arena.space,
            arena=arena.name,
            byte=conflict.byte,
            block=block.block_id,
            interval=block.interval,
            earlier=conflict.earlier,
            later=conflict.later,
            across_blocks=across_blocks,
            earlier_agent=who.describe(conflict.earlier.agent, across_blocks),
            later_agent=who.describe(conflict.later.agent, across_blocks),
        )


class AgentNamer:
    """Turns agent numbers in race logs into `thread (x, y, z)` / `block (x, y, z)`."""

    def __init__(self, grid: tuple[int, int, int], block: tuple[int, int, int]):
        self.grid = grid
        self.block = block

    def describe(self, agent: int, across_blocks: bool) -> str:
        if agent == NO_AGENT:
            return "another thread"
        x, y, _ = self.grid if across_blocks else self.block
        triple = (agent % x, (agent // x) % y, agent // (x * y))
        return f"{'block' if across_blocks else 'thread'} {triple}"
