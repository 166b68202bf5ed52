"""Errors that stop a simulation; each CLI exit code is one class."""

from __future__ import annotations

from xdsl.ir import Operation


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
