"""Launching a kernel: finding it, making its arguments, running every block.

Memref arguments (static shape, space 0 or 1) get seeded random values of their
element type, each from its own generator so that adding an argument (a lowered heap
heap argument) does not change the others. A `memref<?xi8, 1>` argument is the heap
buffer of a lowered kernel (`gpu_alloc.dialect.backing`): the simulator allocates the
kernel's heap contract, `gpu_alloc.heap_bytes_per_block` bytes per block, zero-filled,
shared by all blocks; without the attribute the buffer grows to cover every view of it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from gpu_alloc.banks import DEFAULT_BANK_MODEL
from gpu_alloc.dialect import (
    HEAP_LAYOUT_ATTR,
    MemorySpace,
    heap_bytes_per_block,
    is_heap_argument_type,
)
from gpu_alloc.dialect.kernels import KernelFunction, is_kernel
from gpu_alloc.dialect.memory import function_arguments, space_of, unclassified_allocation
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.provenance import cloned
from gpu_alloc.sim.allocations import dynamic_shared_size, shared_bytes_limit, simulated_device
from gpu_alloc.sim.errors import SimulationError, option
from gpu_alloc.sim.interpreter import BlockInterpreter
from gpu_alloc.sim.memory import Arena, MemRefView, identity_strides, numpy_dtype
from gpu_alloc.sim.profile import Profile, new_profile
from gpu_alloc.sim.state import LaunchState, Race
from gpu_alloc.targets import DEFAULT_DEVICE, Device
from gpu_alloc.transforms.module_target import device_at
from gpu_alloc.transforms.pre_lowering import PRE_LOWERED_OPS, pre_lower
from xdsl.dialects import func as func_dialect
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
    StridedLayoutAttr,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

RANDOM_INT_RANGE = (-64, 64)
RANDOM_INDEX_RANGE = (0, 64)
RANDOM_FLOAT_RANGE = (-8.0, 8.0)


@dataclass(frozen=True)
class ArgumentResult:
    """A memref argument after the run."""

    name: str
    array: np.ndarray
    type_string: str

    @property
    def sha256(self) -> str:
        return hashlib.sha256(np.ascontiguousarray(self.array).tobytes()).hexdigest()

    def line(self) -> str:
        return f"{self.name} {self.type_string} sha256={self.sha256}"


@dataclass(frozen=True)
class SimulationResult:
    """Memref arguments after the launch, the races seen, and the work done."""

    kernel: str
    arguments: list[ArgumentResult]
    races: list[Race]
    race_count: int
    thread_steps: int
    profile: Profile | None = None
    """Per-Func counts, when `simulate(..., profile=True)`."""

    def digests(self) -> dict[str, str]:
        return {a.name: a.sha256 for a in self.arguments}

    def arrays(self) -> dict[str, np.ndarray]:
        """Each memref argument's contents after the launch, by argument name."""
        return {a.name: a.array for a in self.arguments}


def find_kernel(module: ModuleOp, name: str | None) -> KernelFunction:
    """The kernel called `name` (`kernel`, or `module::kernel` where several `gpu.module`s
    have a kernel of that name), or the module's only kernel."""
    kernels = [
        op
        for op in module.walk()
        if isinstance(op, gpu.FuncOp | func_dialect.FuncOp) and is_kernel(op)
    ]
    names = [k.sym_name.data for k in kernels]
    shown = [
        _qualified(k) if names.count(k.sym_name.data) > 1 else k.sym_name.data for k in kernels
    ]
    known = ", ".join(shown) or "none"
    if not kernels:
        raise SimulationError(
            "the input has no kernel to run (a gpu.func marked 'kernel'; outline a gpu.launch "
            "body first, with mlir-opt-22 --gpu-kernel-outlining)"
        )
    if name is None:
        if len(kernels) != 1:
            raise SimulationError(
                f"pick a kernel with {option('kernel', '--kernel')} (kernels: {known})"
            )
        return kernels[0]
    named = [k for k in kernels if name in (k.sym_name.data, _qualified(k))]
    if not named:
        raise SimulationError(f"no kernel named '{name}' (kernels: {known})")
    if len(named) > 1:
        raise SimulationError(f"kernel '{name}' is ambiguous: name one of {known}")
    return named[0]


def _qualified(kernel: KernelFunction) -> str:
    """`module::kernel`, the kernel's name qualified by its `gpu.module`'s."""
    parent = kernel.parent_op()
    prefix = f"{parent.sym_name.data}::" if isinstance(parent, gpu.ModuleOp) else ""
    return prefix + kernel.sym_name.data


def _pre_lowered(module: ModuleOp) -> ModuleOp:
    """`module` as every target's backend sees it: `affine`, `index` and parallel loops
    rewritten by `transforms.pre_lowering` (MLIR's semantics), on a copy whose ops stand
    for the user's (an error on one is printed at the user's line); `module` itself
    where it has none of them."""
    if not any(op.name in PRE_LOWERED_OPS for op in module.walk()):
        return module
    copy = cloned(module)
    try:
        pre_lower(copy)
    except GpuAllocPassError as error:
        raise SimulationError(error.message, error.op) from None
    return copy


def _module_device(
    func: KernelFunction, device: Device | None, target: str | None, chip: str | None
) -> Device | None:
    """The kernel's `gpu.module`'s target attribute where it has one (the options must
    agree with it), else the options' device."""
    try:
        given = f"--chip {chip}" if chip else f"--target {target}"
        declared = device_at(func, "gpu-alloc-sim", chip or "", target or "", given)
    except GpuAllocPassError as error:
        raise SimulationError(error.message) from None
    return device if declared is DEFAULT_DEVICE else declared


def simulate(
    module: ModuleOp,
    *,
    grid: Sequence[int],
    block: Sequence[int],
    kernel: str | None = None,
    seed: int = 0,
    scalars: Sequence[float] = (),
    max_thread_steps: int | None = None,
    profile: bool = False,
    dynamic_extent: int | None = None,
    arrays: Mapping[str, np.ndarray] | Sequence[np.ndarray] | None = None,
    chip: str | None = None,
    target: str | None = None,
) -> SimulationResult:
    """Runs the kernel over `grid` blocks of `block` threads (stopping with a
    `SimulationError` after `max_thread_steps` thread-steps, if given); with `profile`, the
    result's `profile` has the per-Func counts (`sim.profile`).

    Memref arguments get the caller's `arrays` (by argument name, or in order of the
    kernel's memref arguments; copied, never written) where given, seeded random values
    otherwise. A given array must have the argument's element type and static sizes (its
    own sizes give the dynamic ones); a random argument's dynamic dimensions get
    `dynamic_extent` elements (without it, a dynamically shaped argument is an error).
    `target`/`chip` name the device (`gpu_alloc.targets`; a target alone: its default
    chip): shared memory is limited to what one of its blocks may use, `gpu.lane_id` and
    `gpu.shuffle` count its warp or wavefront lanes, the profile uses its bank model;
    without either: the most any chip gives, 32 lanes, NVIDIA's banks."""
    grid3, block3 = _dims(grid, "grid"), _dims(block, "block")
    module = _pre_lowered(module)
    func = find_kernel(module, kernel)
    if (unknown := unclassified_allocation(module)) is not None:
        raise SimulationError(unknown.message("gpu-alloc-sim"), unknown.op)
    device = _module_device(func, simulated_device(target, chip), target, chip)
    launch = _launch_state(func, grid3, block3, device, max_thread_steps)
    if profile:
        bank_model = DEFAULT_BANK_MODEL if device is None else device.bank_model
        launch.profile = new_profile(func, grid3, block3, bank_model)
    given = _given_arrays(func, arrays)
    values, results = _make_arguments(func, launch, seed, list(scalars), dynamic_extent, given)
    if launch.profile is not None:
        launch.profile.exclude(view.arena for _, view in results)
    interpreter = BlockInterpreter(launch, func)
    with np.errstate(all="ignore"):
        for z in range(grid3[2]):
            for y in range(grid3[1]):
                for x in range(grid3[0]):
                    interpreter.run_block((x, y, z), values)
    arguments = [ArgumentResult(name, _contents(view), view.type_string) for name, view in results]
    return SimulationResult(
        func.sym_name.data,
        arguments,
        list(launch.races.values()),
        launch.race_count,
        launch.thread_steps,
        launch.profile,
    )


def _launch_state(
    func: KernelFunction,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    device: Device | None,
    max_thread_steps: int | None,
) -> LaunchState:
    limit = shared_bytes_limit(device)
    dynamic = dynamic_shared_size(func, limit)
    chip = None if device is None else device.chip.name
    if dynamic > limit:
        where = f"{chip} gives" if chip else "any chip gives"
        raise SimulationError(
            f"kernel '{func.sym_name.data}' is launched with {dynamic} bytes of dynamic "
            f"shared memory, more than {where} a block ({limit} bytes)",
            func,
        )
    return LaunchState(
        grid,
        block,
        max_thread_steps=max_thread_steps,
        shared_limit=limit,
        chip=chip,
        lanes=DEFAULT_DEVICE.wave_size if device is None else device.wave_size,
        dynamic_shared_bytes=dynamic,
    )


def _dims(sizes: Sequence[int], what: str) -> tuple[int, int, int]:
    if not 1 <= len(sizes) <= 3 or any(s < 1 for s in sizes):
        raise SimulationError(
            f"{option(what, '--' + what)} needs one to three positive sizes, got {list(sizes)}"
        )
    padded = [*sizes, 1, 1][:3]
    return (padded[0], padded[1], padded[2])


def _make_arguments(
    func: KernelFunction,
    launch: LaunchState,
    seed: int,
    scalars: list[float],
    dynamic_extent: int | None,
    given: Mapping[str, np.ndarray],
) -> tuple[list[object], list[tuple[str, MemRefView]]]:
    values: list[object] = []
    results: list[tuple[str, MemRefView]] = []
    user_index = 0
    scalar_queue = list(scalars)
    for position, argument in enumerate(function_arguments(func)):
        name = argument.name_hint or f"arg{position}"
        arg_type = argument.type
        if isinstance(arg_type, MemRefType):
            if is_heap_argument_type(arg_type):
                values.append(_heap_backing(func, launch, name))
                continue
            _check_memref_argument(func, name, arg_type)
            rng = np.random.default_rng([seed, user_index])
            if name in given:
                view = _given_memref(name, arg_type, given[name])
            else:
                view = _random_memref(name, arg_type, rng, dynamic_extent)
            user_index += 1
            values.append(view)
            results.append((name, view))
        else:
            if not scalar_queue:
                raise SimulationError(
                    f"kernel argument %{name} : {arg_type} needs a value: pass it with "
                    f"{option('scalars', '--scalars')}"
                )
            _check_scalar_argument(func, name, arg_type)
            values.append(_scalar(scalar_queue.pop(0), arg_type, name))
    if scalar_queue:
        raise SimulationError(
            f"{len(scalar_queue)} more {option('scalars', '--scalars')} than scalar kernel arguments"
        )
    return values, results


def _heap_backing(func: KernelFunction, launch: LaunchState, name: str) -> MemRefView:
    """`heap_bytes_per_block` x blocks bytes; without the attribute, an arena that
    grows to cover every view of it (so overflowing it cannot be detected)."""
    try:
        per_block = heap_bytes_per_block(func)
    except VerifyException as error:
        raise SimulationError(f"kernel '{func.sym_name.data}': {error}") from None
    gx, gy, gz = launch.grid
    if per_block is not None:
        nbytes, growable = per_block * gx * gy * gz, False
    else:
        nbytes, growable = 0, True
    arena = launch.new_arena(name, 1, nbytes, shared_by_blocks=True, growable=growable)
    launch.shared_by_blocks[("argument", name)] = arena
    if launch.profile is not None and not growable:
        launch.profile.note_layout(
            arena, func.attributes.get(HEAP_LAYOUT_ATTR), nbytes // (gx * gy * gz)
        )
    return MemRefView(arena, 0, (nbytes,), (1,), np.dtype(np.int8), name)


def _memref_arguments(func: KernelFunction) -> list[str]:
    """The names of the kernel's memref arguments a caller gives (not the heap buffer,
    not the attributions)."""
    return [
        argument.name_hint or f"arg{position}"
        for position, argument in enumerate(function_arguments(func))
        if isinstance(argument.type, MemRefType) and not is_heap_argument_type(argument.type)
    ]


def _given_arrays(
    func: KernelFunction, arrays: Mapping[str, np.ndarray] | Sequence[np.ndarray] | None
) -> dict[str, np.ndarray]:
    """`simulate`'s `arrays` by argument name; unknown names and extra arrays are errors."""
    names = _memref_arguments(func)
    if arrays is None:
        return {}
    if isinstance(arrays, Mapping):
        unknown = [name for name in arrays if name not in names]
        if unknown:
            raise SimulationError(
                f"no memref argument named {', '.join(map(repr, unknown))} in kernel "
                f"'{func.sym_name.data}' (memref arguments: {', '.join(names) or 'none'})"
            )
        return dict(arrays)
    if len(arrays) > len(names):
        raise SimulationError(
            f"{len(arrays)} arrays for the {len(names)} memref argument(s) of kernel "
            f"'{func.sym_name.data}'"
        )
    return dict(zip(names, arrays, strict=False))


def _given_memref(name: str, memref_type: MemRefType, given: np.ndarray) -> MemRefView:
    """A kernel argument holding a copy of the caller's array, checked against its type."""
    array = np.asarray(given)
    dtype = numpy_dtype(memref_type.element_type)
    shape = memref_type.get_shape()
    if array.dtype != dtype:
        raise SimulationError(
            f"kernel argument %{name} : {memref_type} needs a {dtype} array, got {array.dtype}"
        )
    if len(array.shape) != len(shape) or any(
        d != DYNAMIC_INDEX and d != n for d, n in zip(shape, array.shape, strict=False)
    ):
        raise SimulationError(
            f"kernel argument %{name} : {memref_type} needs shape "
            f"{'x'.join('?' if d == DYNAMIC_INDEX else str(d) for d in shape) or 'scalar'}, "
            f"got {'x'.join(map(str, array.shape)) or 'scalar'}"
        )
    return _argument_view(name, memref_type, np.ascontiguousarray(array).copy())


def seeded_array(
    name: str, memref_type: MemRefType, seed: int, index: int, dynamic_extent: int | None
) -> np.ndarray:
    """The values the simulator gives memref argument `index` (counting the kernel's memref
    arguments but the heap buffer) for `seed`: what `gpu-alloc-run` passes a real runtime."""
    rng = np.random.default_rng([seed, index])
    return _contents(_random_memref(name, memref_type, rng, dynamic_extent))


def scalar_argument(value: float, arg_type: Attribute, name: str) -> object:
    """A `--scalars` value as the simulator passes it (range-checked, of the type's dtype)."""
    return _scalar(value, arg_type, name)


def _random_memref(
    name: str, memref_type: MemRefType, rng: np.random.Generator, dynamic_extent: int | None
) -> MemRefView:
    shape = memref_type.get_shape()
    if any(d == DYNAMIC_INDEX for d in shape):
        if dynamic_extent is None:
            raise SimulationError(
                f"kernel argument %{name} : {memref_type} has a dynamic shape; "
                f"give its dimensions a size with {option('dynamic_extent', '--dynamic-extent')}"
            )
        shape = tuple(dynamic_extent if d == DYNAMIC_INDEX else d for d in shape)
    dtype = numpy_dtype(memref_type.element_type)
    return _argument_view(
        name, memref_type, _random_array(shape, dtype, memref_type.element_type, rng)
    )


def _check_memref_argument(func: KernelFunction, name: str, memref_type: MemRefType) -> None:
    """What the simulator needs of a memref argument's type, located at the kernel (the
    type is the IR's, not the command line's)."""
    element = memref_type.element_type
    if not _has_dtype(element):
        raise SimulationError(
            f"kernel argument %{name} : {memref_type} has element type {element}, which the "
            "simulator does not support",
            func,
        )
    if space_of(memref_type) not in (None, MemorySpace.GLOBAL):
        raise SimulationError(
            f"kernel argument %{name} : {memref_type} must be in global memory (no memory "
            "space, 1 or #gpu.address_space<global>)",
            func,
        )
    if isinstance(memref_type.layout, StridedLayoutAttr):
        raise SimulationError(
            f"kernel argument %{name} : {memref_type} must have the identity layout", func
        )


def _check_scalar_argument(func: KernelFunction, name: str, arg_type: Attribute) -> None:
    if not _has_dtype(arg_type):
        raise SimulationError(f"kernel argument %{name} has unsupported type {arg_type}", func)


def _has_dtype(element_type: Attribute) -> bool:
    try:
        numpy_dtype(element_type)
    except SimulationError:
        return False
    return True


def _argument_view(name: str, memref_type: MemRefType, array: np.ndarray) -> MemRefView:
    """A kernel argument of `memref_type` (checked by `_check_memref_argument`) holding
    `array`."""
    space = space_of(memref_type)
    shape, dtype = tuple(array.shape), array.dtype
    arena = Arena(name, int(space or 0), array.nbytes)
    arena.data[: array.nbytes] = array.reshape(-1).view(np.uint8)  # 0-d too
    return MemRefView(arena, 0, shape, identity_strides(shape), dtype, name)


def _random_array(
    shape: tuple[int, ...], dtype: np.dtype, element_type: Attribute, rng: np.random.Generator
) -> np.ndarray:
    if dtype == np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dtype.kind == "i":
        low, high = RANDOM_INDEX_RANGE if isinstance(element_type, IndexType) else RANDOM_INT_RANGE
        return rng.integers(low, high, shape).astype(dtype)
    return rng.uniform(*RANDOM_FLOAT_RANGE, shape).astype(dtype)


def _scalar(value: float, arg_type: Attribute, name: str) -> object:
    dtype = numpy_dtype(arg_type)  # checked by `_check_scalar_argument`
    if dtype.kind in "ib" and not (np.isfinite(value) and value == int(value)):
        raise SimulationError(f"kernel argument %{name} : {arg_type} needs an integer, got {value}")
    if isinstance(arg_type, IntegerType | IndexType):
        low, high = (
            (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max)) if dtype.kind == "i" else (0, 1)
        )
        if not low <= int(value) <= high:
            raise SimulationError(
                f"kernel argument %{name} : {arg_type}: {int(value)} is out of range "
                f"[{low}, {high}]"
            )
        return dtype.type(int(value))
    return dtype.type(value)


def _contents(view: MemRefView) -> np.ndarray:
    nbytes = view.arena.nbytes
    return view.arena.data[:nbytes].view(view.dtype).reshape(view.shape).copy()
