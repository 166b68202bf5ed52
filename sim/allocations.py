"""Where the simulator puts each buffer: the storage `gpu_alloc.dialect.memory` gives it.

Every form of a buffer means the same thing (docs/design.md, "The IR contract"):

- per block (one arena per block and per execution of the op, race-checked): shared
  memory in any spelling (`gpu_alloc.alloc`, `memref.alloc`/`alloca`, workgroup
  attributions, a workgroup `memref.global`: one arena per block and symbol), heap
  `gpu_alloc.alloc`s, and `gpu.dynamic_shared_memory` (one per block);
- per thread (one slice per thread, never race-checked): private memory in any
  spelling, and a device-side `memref.alloc`/`alloca` in global memory (MLIR lowers
  them to a `malloc` or a stack slot of each thread);
- launch-wide (one buffer for all blocks): a global `memref.global` (race-checked
  across blocks in space 1, like a lowered heap argument), and kernel arguments
  (`sim.launch`).

The block's dynamic shared memory has the size the host gives the launch
(`dynamic_shared_size`), within the chip's limit (`shared_bytes_limit`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from gpu_alloc.dialect import AllocOp
from gpu_alloc.dialect.dynamic_shared import (
    DEFAULT_DYNAMIC_SHARED_BYTES as DEFAULT_DYNAMIC_SHARED_BYTES,
)
from gpu_alloc.dialect.dynamic_shared import dynamic_shared_size as _dynamic_shared_size
from gpu_alloc.dialect.kernels import KernelFunction
from gpu_alloc.dialect.memory import (
    Scope,
    Storage,
    allocation_storage,
    attribution_storage,
    attributions,
)
from gpu_alloc.sim.control_flow import Mask, uniform_int
from gpu_alloc.sim.errors import MemoryAccessError, SimulationError
from gpu_alloc.sim.memory import MemRefView, identity_strides, numpy_dtype
from gpu_alloc.sim.profile_hooks import note_layout
from gpu_alloc.targets import (
    Device,
    TargetOptionError,
    largest_shared_bytes_per_block,
    resolve,
)
from xdsl.dialects import memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    MemRefType,
    ModuleOp,
    SymbolRefAttr,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

if TYPE_CHECKING:
    from gpu_alloc.sim.memory_ops import ExecutionContext

DYNAMIC_SHARED_KEY = "<dynamic shared memory>"

PRIVATE_ALIGNMENT = 16
"""Per-thread storage starts at multiples of this within its arena."""


def simulated_device(target: str | None, chip: str | None) -> Device | None:
    """The device `--target`/`--chip` name (a target alone: its default chip), or None
    when neither is named. The one place the simulator reads the target description."""
    if not target and not chip:
        return None
    try:
        return resolve(target or "", chip or "")
    except TargetOptionError as error:
        raise SimulationError(str(error)) from None


def shared_bytes_limit(device: Device | None) -> int:
    """The most shared memory one block may use: what the device's chip gives (with
    NVIDIA's opt-in above 48 KiB), or the most any chip gives when none is named."""
    return largest_shared_bytes_per_block() if device is None else device.shared_bytes_per_block


def dynamic_shared_size(kernel: KernelFunction, limit: int | None = None) -> int:
    """The bytes of dynamic shared memory a launch of `kernel` gets
    (`gpu_alloc.dialect.dynamic_shared.dynamic_shared_size`), a malformed record a
    `SimulationError`."""
    try:
        return _dynamic_shared_size(kernel, limit)
    except VerifyException as error:
        raise SimulationError(f"kernel '{kernel.sym_name.data}': {error}", kernel) from None


def shape_of(
    memref_type: Attribute, sizes: Sequence[Any], mask: Mask, what: str
) -> tuple[int, ...]:
    """The shape of a new memref of `memref_type` whose `?` dimensions have the values
    `sizes` (the same in every active thread)."""
    assert isinstance(memref_type, MemRefType)
    dynamic = iter(sizes)
    shape: list[int] = []
    for d in memref_type.get_shape():
        if d == DYNAMIC_INDEX:
            value = uniform_int(next(dynamic), mask)
            if value is None:
                raise SimulationError(
                    f"the size of {what} differs between the threads of a block; not supported"
                )
            d = value
        shape.append(d)
    if any(d < 0 for d in shape):
        raise MemoryAccessError(f"{what} has a negative size {tuple(shape)}")
    return tuple(shape)


class Allocations:
    """The allocation handlers of a block's `MemoryOps`, and the storage of attributions."""

    def __init__(self, interpreter: ExecutionContext):
        self.interpreter = interpreter
        self.launch = interpreter.launch
        self._globals: dict[str, memref.GlobalOp] = {}
        module = interpreter.kernel.parent_op()
        while module is not None:
            for op in module.walk():
                if isinstance(op, memref.GlobalOp):
                    self._globals.setdefault(op.sym_name.data, op)
            if isinstance(module, ModuleOp):
                break
            module = module.parent_op()

    def handlers(self) -> dict[str, Callable[[Operation, Mask], None]]:
        return {
            "gpu_alloc.alloc": self._gpu_alloc,
            "memref.alloc": self._memref_alloc,
            "memref.alloca": self._memref_alloc,
            "memref.get_global": self._get_global,
            "gpu.dynamic_shared_memory": self._dynamic_shared_memory,
        }

    @property
    def env(self) -> dict[SSAValue, Any]:
        return self.interpreter.env

    # ---- storage --------------------------------------------------------------------

    def new_storage(
        self, name: str, memref_type: Attribute, shape: tuple[int, ...], storage: Storage
    ) -> MemRefView:
        """A fresh buffer of `storage`'s scope (a per-block one is race-checked)."""
        assert isinstance(memref_type, MemRefType)
        dtype = numpy_dtype(memref_type.element_type)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        offset: int | np.ndarray = 0
        if storage.scope is Scope.THREAD:
            # Each thread's slice starts PRIVATE_ALIGNMENT-aligned, like a real alloca.
            n = self.interpreter.n_threads
            stride = max(PRIVATE_ALIGNMENT, -(-nbytes // PRIVATE_ALIGNMENT) * PRIVATE_ALIGNMENT)
            arena = self.launch.new_arena(name, 5, stride * n, False)
            arena.alignment = PRIVATE_ALIGNMENT
            offset = np.arange(n, dtype=np.int64) * stride
        else:
            across = storage.scope is Scope.LAUNCH
            arena = self.launch.new_arena(name, int(storage.space or 0), nbytes, across)
            self.interpreter.block_state.track(arena)
        return MemRefView(arena, offset, shape, identity_strides(shape), dtype, name)

    def attribution_values(self, kernel: KernelFunction) -> list[MemRefView]:
        """Fresh storage for each attribution of `kernel`: a workgroup one per block, a
        private one per thread."""
        views: list[MemRefView] = []
        for argument in attributions(kernel):
            storage = attribution_storage(argument)
            memref_type = argument.type
            assert storage is not None and isinstance(memref_type, MemRefType)  # verified
            name = argument.name_hint or f"attribution{argument.index}"
            shape = tuple(memref_type.get_shape())
            if DYNAMIC_INDEX in shape:
                raise SimulationError(f"attribution %{name} has a dynamic shape", kernel)
            views.append(self.new_storage(name, memref_type, shape, storage))
        return views

    # ---- handlers -------------------------------------------------------------------

    def _gpu_alloc(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, AllocOp)
        self._allocate(op, op.alloc_name.data, op.dynamic_sizes, mask)
        view = self.env[op.memref]
        if op.alignment is not None:
            view.arena.alignment = op.alignment.value.data
        note_layout(self.launch, view.arena, op)

    def _memref_alloc(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.AllocOp | memref.AllocaOp)
        self._allocate(op, op.memref.name_hint or op.name, op.dynamic_sizes, mask)
        view = self.env[op.memref]
        if op.alignment is not None and np.ndim(view.byte_offset) == 0:  # not per thread
            view.arena.alignment = op.alignment.value.data
        note_layout(self.launch, view.arena, op)

    def _allocate(self, op: Operation, name: str, sizes: Sequence[SSAValue], mask: Mask) -> None:
        storage = allocation_storage(op)
        assert storage is not None
        result = op.results[0]
        shape = shape_of(result.type, [self.env[v] for v in sizes], mask, f"'{name}'")
        self.env[result] = self.new_storage(name, result.type, shape, storage)

    def _dynamic_shared_memory(self, op: Operation, mask: Mask) -> None:
        """The block's dynamic shared memory, as large as the launch gives it."""
        block_state = self.interpreter.block_state
        arena = block_state.globals.get(DYNAMIC_SHARED_KEY)
        if arena is None:
            nbytes = self.launch.dynamic_shared_bytes
            arena = self.launch.new_arena("dynamic shared memory", 3, nbytes, False)
            block_state.globals[DYNAMIC_SHARED_KEY] = arena
            block_state.track(arena)
            note_layout(self.launch, arena, op)
        self.env[op.results[0]] = MemRefView(
            arena, 0, (arena.nbytes,), (1,), np.dtype(np.int8), arena.name
        )

    def _get_global(self, op: Operation, mask: Mask) -> None:
        assert isinstance(op, memref.GetGlobalOp)
        symbol = op.name_
        assert isinstance(symbol, SymbolRefAttr)
        name = symbol.root_reference.data
        global_op = self._globals.get(name)
        if global_op is None:
            raise SimulationError(f"memref.get_global of unknown symbol @{name}", op)
        memref_type = global_op.type
        assert isinstance(memref_type, MemRefType)
        storage = allocation_storage(global_op)
        assert storage is not None
        shape = tuple(memref_type.get_shape())
        dtype = numpy_dtype(memref_type.element_type)
        if storage.scope is Scope.THREAD:  # a private global: each thread's own copy
            private = self.interpreter.block_state.private_globals
            if name not in private:
                private[name] = self.new_storage(name, memref_type, shape, storage)
                _initialise(private[name], global_op, self.interpreter.n_threads)
            self.env[op.memref] = private[name]
            return
        across = storage.scope is Scope.LAUNCH
        cache = self.launch.shared_by_blocks if across else self.interpreter.block_state.globals
        arena = cache.get(name)
        if arena is None:
            arena = self.new_storage(name, memref_type, shape, storage).arena
            _initialise(
                MemRefView(arena, 0, shape, identity_strides(shape), dtype, name), global_op
            )
            if global_op.alignment is not None:
                arena.alignment = global_op.alignment.value.data
            cache[name] = arena
            note_layout(self.launch, arena, global_op, shared_by_blocks=across)
        self.env[op.memref] = MemRefView(arena, 0, shape, identity_strides(shape), dtype, name)


def _initialise(view: MemRefView, global_op: memref.GlobalOp, n_threads: int = 1) -> None:
    """Writes a global's initial value into `view` (into each thread's copy)."""
    initial = global_op.initial_value
    if not isinstance(initial, DenseIntOrFPElementsAttr):
        return
    values = np.asarray(initial.get_values(), dtype=view.dtype)
    count = int(np.prod(view.shape, dtype=np.int64))
    data = np.broadcast_to(values, (count,)) if values.size == 1 else values
    raw = np.ascontiguousarray(data).view(np.uint8)
    starts = np.broadcast_to(np.asarray(view.byte_offset, np.int64), (n_threads,))
    for start in starts:
        view.arena.data[int(start) : int(start) + raw.size] = raw
