"""Errors that stop a simulation; each CLI exit code is one class."""

from __future__ import annotations


class SimulationError(Exception):
    """Input the simulator cannot run (unsupported op, bad arguments). Exit code 1."""

    exit_code = 1


class BarrierDivergenceError(SimulationError):
    """A `gpu.barrier` reached by only some threads of a block. Exit code 4."""

    exit_code = 4


class MemoryAccessError(SimulationError):
    """An access or a view outside its allocation. Exit code 5."""

    exit_code = 5
