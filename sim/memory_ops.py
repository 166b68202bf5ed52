"""Semantics of `memref`, `gpu_alloc` and memory-touching ops, with race recording.

Views (`alias`, `memref.view`, `subview`, casts) share their source's arena; where each
allocation's storage lives, and whose it is, is `sim.allocations`' business.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from gpu_alloc.dialect import AliasOp, OffsetPointerOp
from gpu_alloc.dialect.kernels import KernelFunction
from gpu_alloc.sim.allocations import Allocations, shape_of
from gpu_alloc.sim.atomics import atomic_rmw
from gpu_alloc.sim.control_flow import Mask, uniform_int
from gpu_alloc.sim.errors import MemoryAccessError, SimulationError
from gpu_alloc.sim.memory import (
    MemRefView,
    identity_strides,
    numpy_dtype,
    read_elements,
    write_elements,
)
from gpu_alloc.sim.profile_hooks import profile_access
from gpu_alloc.sim.state import AgentNamer, BlockState, LaunchState
from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType
from xdsl.ir import Attribute, Operation, SSAValue


class ExecutionContext(Protocol):
    """What the memory ops need of the interpreter running a block."""

    launch: LaunchState
    kernel: KernelFunction
    env: dict[SSAValue, Any]
    n_threads: int
    block_state: BlockState

    def thread_triple(self, lane: int) -> tuple[int, int, int]: ...


Value = Any


@dataclass(frozen=True)
class Pointer:
    """A `!gpu_alloc.ptr`: a byte address inside a backing view."""

    backing: MemRefView
    byte_offset: int | np.ndarray


class MemoryOps:
    """Memory op handlers of a `BlockInterpreter`."""

    def __init__(self, interpreter: ExecutionContext):
        self.interpreter = interpreter
        self.launch = interpreter.launch
        self.namer = AgentNamer(self.launch.grid, self.launch.block)
        self.allocations = Allocations(interpreter)

    def handlers(self) -> dict[str, Callable[[Operation, Mask], None]]:
        return {
            "memref.load": self._load,
            "memref.store": self._store,
            "memref.atomic_rmw": self._atomic_rmw,
            "gpu.printf": _no_op,  # output is not simulated
            "memref.view": self._view,
            "memref.subview": self._subview,
            "memref.cast": self._cast,
            "memref.memory_space_cast": self._cast,
            "memref.dim": self._dim,
            "memref.dealloc": _no_op,
            "gpu_alloc.dealloc": _no_op,
            "gpu_alloc.offset_pointer": self._offset_pointer,
            "gpu_alloc.alias": self._alias,
            **self.allocations.handlers(),
        }

    # ---- helpers --------------------------------------------------------------------

    @property
    def env(self) -> dict[SSAValue, Value]:
        return self.interpreter.env

    def _uniform(self, value: SSAValue, mask: Mask, what: str) -> int:
        result = uniform_int(self.env[value], mask)
        if result is None:
            raise SimulationError(f"{what} differs between the threads of a block; not supported")
        return result

    # ---- views ----------------------------------------------------------------------

    def _offset_pointer(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, OffsetPointerOp)
        backing = self.env[op.backing]
        offset = self.env[op.offset]
        self.env[op.pointer] = Pointer(backing, backing.byte_offset + offset)

    def _alias(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, AliasOp)
        pointer = self.env[op.pointer]
        assert isinstance(pointer, Pointer)
        name = op.alias_name.data
        sizes = [self.env[v] for v in op.dynamic_sizes]
        shape = shape_of(op.memref.type, sizes, mask, f"alias '{name}'")
        self.env[op.memref] = self._carve(
            pointer.backing, pointer.byte_offset, op.memref.type, shape, name, mask
        )

    def _view(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.ViewOp)
        source = self.env[op.source]
        name = op.result.name_hint or source.name
        shape = shape_of(op.result.type, [self.env[v] for v in op.sizes], mask, f"view '{name}'")
        start = source.byte_offset + self.env[op.byte_shift]
        self.env[op.result] = self._carve(source, start, op.result.type, shape, name, mask)

    def _carve(
        self,
        backing: MemRefView,
        start: int | np.ndarray,
        memref_type: Attribute,
        shape: tuple[int, ...],
        name: str,
        mask: Mask,
    ) -> MemRefView:
        """A contiguous view at byte `start` of `backing`; it must lie inside it."""
        assert isinstance(memref_type, MemRefType)
        dtype = numpy_dtype(memref_type.element_type)
        view = MemRefView(backing.arena, start, shape, identity_strides(shape), dtype, name)
        low = np.asarray(start) - backing.byte_offset
        high = low + view.extent_bytes()
        if mask is not None and np.ndim(low) > 0:
            low, high = low[mask], high[mask]
        if backing.arena.growable and not np.any(low < 0):
            backing.arena.ensure(int(np.max(high + backing.byte_offset)))
            return view
        limit = backing.extent_bytes()
        if np.any(low < 0) or np.any(high > limit):
            raise MemoryAccessError(
                f"'{name}' ({view.type_string}) covers bytes [{int(np.min(low))}, "
                f"{int(np.max(high))}) of '{backing.name}', which has {limit} bytes"
            )
        return view

    def _subview(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.SubviewOp)
        source = self.env[op.source]
        assert isinstance(source, MemRefView)
        offsets = self._mixed(op.static_offsets.get_values(), op.offsets, mask, "subview offset")
        sizes = self._mixed(op.static_sizes.get_values(), op.sizes, mask, "subview size")
        steps = self._mixed(op.static_strides.get_values(), op.strides, mask, "subview stride")
        for offset, size, step, extent in zip(offsets, sizes, steps, source.shape, strict=True):
            if size > 0 and (offset < 0 or offset + (size - 1) * step >= extent):
                raise MemoryAccessError(
                    f"memref.subview of '{source.name}' reaches past its shape {source.shape}"
                )
        start = (
            source.byte_offset
            + sum(o * s for o, s in zip(offsets, source.strides, strict=True))
            * source.dtype.itemsize
        )
        dims = [
            (size, step * stride)
            for size, step, stride in zip(sizes, steps, source.strides, strict=True)
        ]
        result_type = op.result.type
        assert isinstance(result_type, MemRefType)
        rank = len(result_type.get_shape())
        while len(dims) > rank:  # rank-reducing: drop unit dimensions
            unit = next(i for i, (size, _) in enumerate(dims) if size == 1)
            dims.pop(unit)
        name = op.result.name_hint or source.name
        self.env[op.result] = MemRefView(
            source.arena,
            start,
            tuple(d for d, _ in dims),
            tuple(s for _, s in dims),
            source.dtype,
            name,
        )

    def _mixed(
        self, static: Sequence[int], dynamic: Sequence[SSAValue], mask: Mask, what: str
    ) -> list[int]:
        values = iter(dynamic)
        return [
            self._uniform(next(values), mask, what) if s == DYNAMIC_INDEX else s for s in static
        ]

    def _cast(self, op: Operation, mask: Mask) -> None:
        self.env[op.results[0]] = self.env[op.operands[0]]

    def _dim(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.DimOp)
        source = self.env[op.source]
        index = self._uniform(op.index, mask, "memref.dim index")
        self.env[op.result] = np.int64(source.shape[index])

    # ---- loads and stores --------------------------------------------------------------

    def _addresses(
        self, view: MemRefView, indices: Sequence[SSAValue], mask: Mask, verb: str
    ) -> Value:
        """Byte address of the element each thread accesses (a scalar when uniform)."""
        element = np.int64(0)
        for value, size, stride in zip(indices, view.shape, view.strides, strict=True):
            index = self.env[value]
            active = index if mask is None or np.ndim(index) == 0 else index[mask]
            # One unsigned comparison catches both negative and too-large indices.
            if (np.asarray(active).view(np.uint64) >= size).any():
                self._out_of_bounds(view, indices, mask, verb)
            element = element + index * stride
        return view.byte_offset + element * view.dtype.itemsize

    def _out_of_bounds(
        self, view: MemRefView, indices: Sequence[SSAValue], mask: Mask, verb: str
    ) -> None:
        n = self.interpreter.n_threads
        values = [np.broadcast_to(np.asarray(self.env[v]), (n,)) for v in indices]
        bad = np.zeros(n, np.bool_)
        for index, size in zip(values, view.shape, strict=True):
            bad |= (index < 0) | (index >= size)
        if mask is not None:
            bad &= mask
        lane = int(np.argmax(bad))
        where = tuple(int(v[lane]) for v in values)
        block = self.interpreter.block_state.block_id
        raise MemoryAccessError(
            f"out-of-bounds {verb} '{view.name}' ({view.type_string}) at index {where} by "
            f"thread {self.interpreter.thread_triple(lane)} of block {block}"
        )

    def _lanes(self, mask: Mask) -> np.ndarray:
        n = self.interpreter.n_threads
        return np.arange(n, dtype=np.int64) if mask is None else np.nonzero(mask)[0]

    def _load(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.LoadOp)
        view = self.env[op.memref]
        address = self._addresses(view, op.indices, mask, "load from")
        lanes = self._lanes(mask)
        addresses = _per_lane(address, lanes)
        self._check_alignment(op, view, addresses, lanes, "load from")
        self._record(view, addresses, lanes, is_write=False)
        profile_access(self.launch, op, view, addresses, lanes, False, self.interpreter)
        if mask is None and np.ndim(address) == 0:
            loaded = read_elements(view.arena, addresses[:1], view.dtype)[0]
        else:
            n = self.interpreter.n_threads
            loaded = np.zeros(n, view.dtype)
            loaded[lanes] = read_elements(view.arena, addresses, view.dtype)
        self.env[op.res] = loaded

    def _store(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.StoreOp)
        view = self.env[op.memref]
        address = self._addresses(view, op.indices, mask, "store to")
        lanes = self._lanes(mask)
        addresses = _per_lane(address, lanes)
        value = np.asarray(self.env[op.value], dtype=view.dtype)
        values = np.broadcast_to(value, (lanes.size,)) if value.ndim == 0 else value[lanes]
        self._check_alignment(op, view, addresses, lanes, "store to")
        self._record(view, addresses, lanes, is_write=True)
        profile_access(self.launch, op, view, addresses, lanes, True, self.interpreter)
        write_elements(view.arena, addresses, np.ascontiguousarray(values))

    def _atomic_rmw(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.AtomicRMWOp)
        view = self.env[op.memref]
        lanes = self._lanes(mask)
        addresses = _per_lane(self._addresses(view, op.indices, mask, "atomic on"), lanes)
        value = np.asarray(self.env[op.value], dtype=view.dtype)
        values = np.broadcast_to(value, (lanes.size,)) if value.ndim == 0 else value[lanes]
        profile_access(self.launch, op, view, addresses, lanes, True, self.interpreter)
        olds = atomic_rmw(view.arena, addresses, values, view.dtype, op.kind.value.data)
        result = np.zeros(self.interpreter.n_threads, view.dtype)
        result[lanes] = olds
        self.env[op.result] = result

    def _check_alignment(
        self, op: Operation, view: MemRefView, addresses: np.ndarray, lanes: np.ndarray, verb: str
    ) -> None:
        """An `alignment` attribute (flatten-aliases adds them) is a promise about the
        address: it must divide the byte offset of every access in its arena, and it
        may not exceed the arena's own declared alignment."""
        claimed = op.attributes.get("alignment")
        if not isinstance(claimed, IntegerAttr):
            return
        alignment = claimed.value.data
        arena = view.arena
        if arena.alignment is not None and alignment > arena.alignment:
            raise MemoryAccessError(
                f"{verb} '{view.name}' claims alignment {alignment}, but '{arena.name}' "
                f"is only aligned to {arena.alignment}"
            )
        misaligned = addresses % alignment != 0
        if misaligned.any():
            i = int(np.argmax(misaligned))
            raise MemoryAccessError(
                f"{verb} '{view.name}' claims alignment {alignment}, but thread "
                f"{self.interpreter.thread_triple(int(lanes[i]))} accesses byte "
                f"{int(addresses[i])} of '{arena.name}'"
            )

    def _record(
        self, view: MemRefView, addresses: np.ndarray, lanes: np.ndarray, is_write: bool
    ) -> None:
        arena = view.arena
        if arena.interval_log is None:
            return
        size = view.dtype.itemsize
        if size > 1:
            byte_addresses = (addresses[:, None] + np.arange(size)).reshape(-1)
            agents = np.repeat(lanes, size)
        else:
            byte_addresses, agents = addresses, lanes
        func = self.launch.func_id(view.name)
        block = self.interpreter.block_state
        conflict = arena.interval_log.record(byte_addresses, agents, is_write, func)
        if conflict is not None:
            self.launch.report(arena, conflict, block, False, self.namer)
        if arena.launch_log is not None:
            blocks = np.full(agents.shape, block.linear_id, np.int64)
            conflict = arena.launch_log.record(byte_addresses, blocks, is_write, func)
            if conflict is not None:
                self.launch.report(arena, conflict, block, True, self.namer)


def _per_lane(address: Value, lanes: np.ndarray) -> np.ndarray:
    if np.ndim(address) == 0:
        return np.full(lanes.size, int(address), np.int64)
    return np.asarray(address, np.int64)[lanes]


def _no_op(op: Operation, mask: Mask) -> None:
    return None
