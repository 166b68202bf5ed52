"""How much work the packer may still do: a deterministic count of work units, and optionally a
wall-clock cap.

A work unit is one node of the exact search (one call that places a buffer or backtracks); the
greedy phase is charged in the same units (`greedy_units`). The count depends only on the
input and the options, so a packing limited by work units is the same on any machine under any
load. The wall clock is read only when the user asked for a cap (`time_limit`); the `Meter` then
records whether the cap fired, so that tools can say their result depends on the machine's speed.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

GREEDY_ITEMS_PER_UNIT = 32
"""Buffers a greedy pass places per work unit (a placement costs a few numpy calls or a few
tree walks; a search node costs about as much as 32 of them)."""
GREEDY_SCANS_PER_UNIT = 150_000
"""Pairs of buffers a gap-scanning greedy pass (`greedy_fit`) compares per work unit: it
compares each buffer with every one placed before it, n (n - 1) / 2 pairs in all."""


def greedy_units(items: int, scans_all_pairs: bool) -> int:
    """Work units charged for one greedy pass over `items` buffers."""
    pairs = items * (items - 1) // 2 if scans_all_pairs else 0
    return -(-items // GREEDY_ITEMS_PER_UNIT) + pairs // GREEDY_SCANS_PER_UNIT


class OutOfBudget(Exception):
    """The allowance ran out (its work units, or the wall-clock cap)."""


Listener = Callable[[str, "Meter"], None]
"""Told of the search's progress: `event` is "compile" (the compiled search is about to be
compiled or loaded), "improved" (a better packing) or "tick" (every few ten thousand nodes)."""


@dataclass
class Meter:
    """The work one `pack` call has done, shared by every allowance carved out of it, and what
    a progress `listener` may show of it (the packer never reads the clock for it)."""

    deadline: float | None = None
    """`time.perf_counter()` value of the wall-clock cap (None: no cap, the clock is never read)."""
    units: int = 0
    time_limit_hit: bool = False
    """Whether the wall-clock cap stopped some step (the result may differ on a faster machine)."""
    interrupted: bool = False
    """Set by `interrupt` (a signal handler may call it): every allowance is then spent."""
    listener: Listener | None = None
    peaks: list[int] = field(default_factory=list)
    """The best peak so far of each component (`pack` fills it; the result's is the largest)."""
    current: int = 0
    """The component being searched (an index into `peaks`)."""
    lower_bound: int = 0
    """The proven lower bound of the whole input so far."""

    def past_deadline(self) -> bool:
        if self.interrupted:
            return True
        if self.deadline is None:
            return False
        if time.perf_counter() >= self.deadline:
            self.time_limit_hit = True
            return True
        return False

    def interrupt(self) -> None:
        """Stop the search at its next look at the allowance; `pack` returns the best so far."""
        self.interrupted = True

    @property
    def peak(self) -> int:
        return max(self.peaks, default=0)

    def notify(self, event: str) -> None:
        if self.listener is not None:
            self.listener(event, self)

    def improved(self, peak: int) -> None:
        """The component being searched has a packing with this peak now."""
        if self.current < len(self.peaks) and peak < self.peaks[self.current]:
            self.peaks[self.current] = peak
            self.notify("improved")


@dataclass(frozen=True)
class Allowance:
    """A step may work until the meter reaches `unit_stop` and, with a cap, until `time_stop`."""

    meter: Meter
    unit_stop: float
    """Meter reading at which this allowance is spent (`math.inf`: no work limit)."""
    time_stop: float | None
    """`time.perf_counter()` value at which it is spent (None: never, the clock is not read)."""

    @staticmethod
    def start(units: float, seconds: float | None, meter: Meter | None = None) -> Allowance:
        """`units` work units (`math.inf`: unlimited) and an optional cap of `seconds` from
        now, counted on `meter` (a fresh one by default)."""
        deadline = None if seconds is None else time.perf_counter() + seconds
        if meter is None:
            meter = Meter()
        meter.deadline = deadline
        return Allowance(meter, meter.units + units, deadline)

    def units_left(self) -> float:
        return max(0.0, self.unit_stop - self.meter.units)

    def seconds_left(self) -> float:
        if self.time_stop is None:
            return math.inf
        return max(0.0, self.time_stop - time.perf_counter())

    def limited(self, units: float, seconds: float) -> Allowance:
        """At most `units` more work units and `seconds` more seconds, within this allowance."""
        unit_stop = min(self.unit_stop, self.meter.units + units)
        time_stop = self.time_stop
        if time_stop is not None and seconds != math.inf:
            time_stop = min(time_stop, time.perf_counter() + seconds)
        return Allowance(self.meter, unit_stop, time_stop)

    def share(self, fraction: float) -> Allowance:
        """`fraction` of what is left, in work units and in time."""
        return self.limited(fraction * self.units_left(), fraction * self.seconds_left())

    def spent(self) -> bool:
        """Whether the work units or the time are used up (reads the clock only with a cap)."""
        if self.meter.units >= self.unit_stop or self.meter.interrupted:
            return True
        if self.time_stop is None:
            return False
        return self.out_of_time()

    def charge(self, units: int) -> None:
        self.meter.units += units

    def out_of_time(self) -> bool:
        """Whether the wall-clock cap (if any) has run out or the search was interrupted; never
        reads the clock without a cap."""
        if self.time_stop is None:
            return self.meter.interrupted
        return self.meter.past_deadline() or time.perf_counter() >= self.time_stop
