"""What `gpu-alloc-pack` tells a user who waits: the first compile of the search loop, then,
once a search has run for a second, a line a second on stderr with the best peak so far, the
proven lower bound and the time taken (never on stdout, never in an output file)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from gpu_alloc.packing import Meter
from gpu_alloc.packing.jit import compile_announcement, engine

QUIET_FOR_SECONDS = 1.0
"""Searches shorter than this print nothing."""
EVERY_SECONDS = 1.0
"""At most one progress line per this many seconds."""


class ProgressPrinter:
    """A `Meter` listener printing progress lines, prefixed with the tool's name."""

    def __init__(self, tool: str, stream: TextIO | None = None):
        self.tool = tool
        self.stream = stream
        self.started = time.perf_counter()
        self.last_line = -EVERY_SECONDS
        self.lines = 0

    def __call__(self, event: str, meter: Meter) -> None:
        now = time.perf_counter() - self.started
        if event == "compile":
            self.say(compile_announcement())
            return
        if event == "engine":
            self.say(f"exact search of 65+ buffers: {engine()}")
            return
        if event == "start":  # the search starts now (after any compile): its clock too
            self.started, self.last_line = time.perf_counter(), -EVERY_SECONDS
            return
        if now < QUIET_FOR_SECONDS or now - self.last_line < EVERY_SECONDS:
            return
        self.last_line = now
        peak, bound = meter.peak, meter.lower_bound
        gap = f" ({100 * (peak - bound) / bound:.2f} % above)" if bound else ""
        self.say(
            f"{now:.1f} s: best peak {peak}, lower bound {bound}{gap}, {meter.units} work units"
        )

    def say(self, text: str) -> None:
        stream = self.stream or sys.stderr
        print(f"{self.tool}: {text}", file=stream, flush=True)
        self.lines += 1
