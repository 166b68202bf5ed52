"""Errors that stop a simulation; each CLI exit code is one class."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.ir import Operation

_COMMAND_LINE: ContextVar[bool] = ContextVar("gpu_alloc_sim_command_line", default=False)


def option(parameter: str, flag: str) -> str:
    """How a message names one of `simulate`'s inputs: the API parameter (`scalars=`) for a
    Python caller, the `gpu-alloc-sim` flag (`--scalars`) inside `command_line_spelling`."""
    return flag if _COMMAND_LINE.get() else f"{parameter}="


@contextmanager
def command_line_spelling() -> Iterator[None]:
    """Within it, errors name `gpu-alloc-sim`'s flags instead of `simulate`'s parameters."""
    token = _COMMAND_LINE.set(True)
    try:
        yield
    finally:
        _COMMAND_LINE.reset(token)


class SimulationError(Exception):
    """Input the simulator cannot run (unsupported op, bad arguments). Exit code 1.

    `op`, when given, is the op the error is about: `gpu-alloc-sim` prints the message
    at its `file:line:col`."""

    exit_code = 1

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.op = op


class BarrierDivergenceError(SimulationError):
    """A `gpu.barrier` reached by only some threads of a block (a deadlock on a GPU).
    Exit code 4."""

    exit_code = 4


class MemoryAccessError(SimulationError):
    """An access or a view outside its allocation. Exit code 5."""

    exit_code = 5
