"""Simulated memory: byte arenas and typed views into them.

Every allocation (a Func, a fused backing, a kernel argument, a global) is one
`Arena` of bytes. A memref value is a `MemRefView`: an arena, a byte offset, a shape
and element strides. Views made by `offset_pointer`/`alias` or `memref.view` share
their backing's arena, so two Funcs placed at overlapping offsets really overwrite
each other's bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.races import AccessLog
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
)
from xdsl.ir import Attribute


def numpy_dtype(element_type: Attribute) -> np.dtype:
    """The numpy dtype that holds values (and memory) of an MLIR scalar type."""
    if isinstance(element_type, IndexType):
        return np.dtype(np.int64)
    if isinstance(element_type, IntegerType):
        width = element_type.width.data
        if width == 1:
            return np.dtype(np.bool_)
        if width in (8, 16, 32, 64):
            return np.dtype(f"int{width}")
    if isinstance(element_type, Float16Type):
        return np.dtype(np.float16)
    if isinstance(element_type, Float32Type):
        return np.dtype(np.float32)
    if isinstance(element_type, Float64Type):
        return np.dtype(np.float64)
    raise SimulationError(f"element type {element_type} is not supported by the simulator")


def _padded(nbytes: int) -> int:
    """Arenas are a multiple of 8 bytes long so that every dtype can view them."""
    return max(8, (nbytes + 7) // 8 * 8)


class Arena:
    """The bytes of one allocation.

    `interval_log` records the accesses of the running block since its last barrier
    (None for memory the race checker ignores); `launch_log` records which block
    touched each byte, for memory shared by all blocks of a launch.
    """

    def __init__(self, name: str, space: int, nbytes: int, growable: bool = False):
        self.name = name
        self.space = space
        self.nbytes = nbytes
        self.growable = growable
        """Sized by use: grows to cover every view carved from it (see `ensure`)."""
        self.data = np.zeros(_padded(nbytes), np.uint8)
        self.interval_log: AccessLog | None = None
        self.launch_log: AccessLog | None = None
        self.alignment: int | None = None
        """The declared alignment of its first byte, where the IR gives one."""

    def ensure(self, nbytes: int) -> None:
        """Grows a growable arena to at least `nbytes` bytes, zero-filled."""
        if nbytes <= self.nbytes:
            return
        self.nbytes = nbytes
        if nbytes > self.data.size:
            grown = np.zeros(_padded(nbytes), np.uint8)
            grown[: self.data.size] = self.data
            self.data = grown

    def track_races(self, func_names: list[str], across_blocks: bool) -> None:
        self.interval_log = AccessLog(self.data.size, func_names)
        if across_blocks:
            self.launch_log = AccessLog(self.data.size, func_names)


@dataclass(frozen=True)
class MemRefView:
    """A memref value: typed, strided elements of an arena from `byte_offset` on.

    `byte_offset` is an int, or one int per thread for private (per-thread) storage.
    """

    arena: Arena
    byte_offset: int | np.ndarray
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    dtype: np.dtype
    name: str

    @property
    def type_string(self) -> str:
        return "x".join([*(str(d) for d in self.shape), _dtype_name(self.dtype)])

    @staticmethod
    def type_string_of(array: np.ndarray) -> str:
        """`type_string` of a view holding `array` (`4x4xf32`)."""
        return "x".join([*(str(d) for d in array.shape), _dtype_name(array.dtype)])

    def extent_bytes(self) -> int:
        """Bytes from the first element to one past the last one."""
        if any(d == 0 for d in self.shape):
            return 0
        last = sum((d - 1) * s for d, s in zip(self.shape, self.strides, strict=True))
        return (last + 1) * self.dtype.itemsize


def identity_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    strides: list[int] = []
    running = 1
    for size in reversed(shape):
        strides.append(running)
        running *= size
    return tuple(reversed(strides))


def _dtype_name(dtype: np.dtype) -> str:
    if dtype == np.bool_:
        return "i1"
    if dtype.kind == "i":
        return f"i{dtype.itemsize * 8}"
    return f"f{dtype.itemsize * 8}"


def read_elements(arena: Arena, addresses: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Gather one `dtype` element from each byte address."""
    size = dtype.itemsize
    if size == 1:
        return arena.data[addresses].view(dtype)
    if not (addresses % size).any():
        return arena.data.view(dtype)[addresses // size]
    bytes_ = arena.data[addresses[:, None] + np.arange(size)]
    return np.ascontiguousarray(bytes_).view(dtype).reshape(-1)


def write_elements(arena: Arena, addresses: np.ndarray, values: np.ndarray) -> None:
    """Scatter `values[i]` to byte address `addresses[i]`."""
    size = values.dtype.itemsize
    if size == 1:
        arena.data[addresses] = values.view(np.uint8)
        return
    if not (addresses % size).any():
        arena.data.view(values.dtype)[addresses // size] = values
        return
    bytes_ = np.ascontiguousarray(values).view(np.uint8).reshape(-1, size)
    arena.data[addresses[:, None] + np.arange(size)] = bytes_
