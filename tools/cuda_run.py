"""Running a kernel's PTX on an NVIDIA GPU through the CUDA driver (`cuda-bindings`,
`pip install cuda-python`): `gpu-alloc-run --runtime cuda` and scripts/gpu_check.py.

MLIR's kernel ABI: each memref argument an expanded descriptor (allocated pointer,
aligned pointer, offset, sizes, strides); the heap buffer zero-filled,
`gpu_alloc.heap_bytes_per_block` x blocks bytes; the kernel's
`gpu_alloc.dynamic_shared_bytes` as the launch's dynamic shared memory, with the
max-dynamic-shared-size opt-in above 48 KiB. Inputs are the simulator's seeded values
(`sim.launch.seeded_array`). Without the bindings or a GPU: `Unavailable`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gpu_alloc.dialect import heap_bytes_per_block, is_heap_argument_type
from gpu_alloc.dialect.backing import dynamic_shared_bytes as recorded_dynamic_shared_bytes
from gpu_alloc.dialect.memory import function_arguments
from gpu_alloc.provenance import cloned
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.launch import ArgumentResult, find_kernel, seeded_array
from gpu_alloc.sim.memory import MemRefView
from gpu_alloc.targets.nvidia import STATIC_SHARED_LIMIT
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation


class Unavailable(Exception):
    """No GPU or no CUDA driver bindings."""


class CudaDevice:
    """The few CUDA driver calls the check needs (cuda-bindings, any 12.x/13.x)."""

    def __init__(self) -> None:
        try:
            from cuda.bindings import driver  # pyright: ignore[reportMissingImports]
        except ImportError:
            try:
                from cuda import cuda as driver  # pyright: ignore[reportMissingImports]
            except ImportError:
                raise Unavailable("cuda-bindings not installed: pip install cuda-python") from None
        self.driver: Any = driver
        try:
            self.call("cuInit", 0)
            device = self.call("cuDeviceGet", 0)
        except RuntimeError as error:
            raise Unavailable(f"no usable NVIDIA GPU: {error}") from None
        self.context = self.call("cuDevicePrimaryCtxRetain", device)
        self.call("cuCtxSetCurrent", self.context)
        self.name = self.call("cuDeviceGetName", 256, device).split(b"\0")[0].decode()

    def call(self, name: str, *args: Any) -> Any:
        result = getattr(self.driver, name)(*args)
        error, values = result[0], result[1:]
        if int(error) != 0:
            _, text = self.driver.cuGetErrorString(error)
            raise RuntimeError(f"{name}: {text.decode() if text else int(error)}")
        if not values:
            return None
        return values[0] if len(values) == 1 else values

    def run(
        self,
        ptx: str,
        kernel: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        arrays: list[np.ndarray],
        shapes: list[tuple[int, ...]],
        dynamic_shared: int = 0,
    ) -> list[np.ndarray]:
        """Launches `kernel` with one expanded memref descriptor per array and
        `dynamic_shared` bytes of dynamic shared memory; returns the arrays after."""
        module = self.call("cuModuleLoadData", ptx.encode() + b"\0")
        function = self.call("cuModuleGetFunction", module, kernel.encode())
        if dynamic_shared > STATIC_SHARED_LIMIT:
            attribute = self.driver.CUfunction_attribute
            self.call(
                "cuFuncSetAttribute",
                function,
                attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                dynamic_shared,
            )
        pointers = []
        for array in arrays:
            pointer = self.call("cuMemAlloc", max(array.nbytes, 1))
            self.call("cuMemcpyHtoD", pointer, array.ctypes.data, array.nbytes)
            pointers.append(pointer)
        storage = [
            np.array([value], dtype=np.uint64 if is_pointer else np.int64)
            for is_pointer, value in descriptor_fields([int(p) for p in pointers], shapes)
        ]
        parameters = np.array([cell.ctypes.data for cell in storage], dtype=np.uint64)
        self.call(
            "cuLaunchKernel", function, *grid, *block, dynamic_shared, 0, parameters.ctypes.data, 0
        )
        self.call("cuCtxSynchronize")
        results = []
        for array, pointer in zip(arrays, pointers, strict=True):
            out = np.empty_like(array)
            self.call("cuMemcpyDtoH", out.ctypes.data, pointer, array.nbytes)
            self.call("cuMemFree", pointer)
            results.append(out)
        self.call("cuModuleUnload", module)
        return results


def descriptor_fields(pointers: list[int], shapes: list[tuple[int, ...]]) -> list[tuple[bool, int]]:
    """MLIR's kernel ABI: (allocated, aligned, offset, sizes..., strides...) per memref."""
    fields: list[tuple[bool, int]] = []
    for pointer, shape in zip(pointers, shapes, strict=True):
        strides = [1] * len(shape)
        for dim in range(len(shape) - 2, -1, -1):
            strides[dim] = strides[dim + 1] * shape[dim + 1]
        fields += [(True, pointer), (True, pointer), (False, 0)]
        fields += [(False, size) for size in shape] + [(False, stride) for stride in strides]
    return fields


def dynamic_shared_bytes(kernel: Operation) -> int:
    """The launch's dynamic shared memory: the kernel's `gpu_alloc.dynamic_shared_bytes`."""
    return recorded_dynamic_shared_bytes(kernel) or 0


def run_cuda(
    module: ModuleOp,
    *,
    grid: Sequence[int],
    block: Sequence[int],
    kernel: str | None = None,
    seed: int = 0,
    dynamic_extent: int | None = None,
    backend: str = "llvmlite",
) -> list[ArgumentResult]:
    """Each memref argument after the kernel ran on the GPU (`Unavailable` without one)."""
    from gpu_alloc.dialect import AliasOp, AllocOp, DeallocOp, OffsetPointerOp
    from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
    from gpu_alloc.lowering.ptx.target import emit_ptx
    from gpu_alloc.tools.sim_loading import make_context

    device = CudaDevice()
    name = find_kernel(module, kernel).sym_name.data
    lowered = cloned(module)
    if any(isinstance(op, AllocOp | AliasOp | OffsetPointerOp | DeallocOp) for op in module.walk()):
        LowerGpuAllocsPass().apply(make_context(), lowered)
    func = find_kernel(lowered, kernel)
    ptx = emit_ptx(lowered, backend=backend)
    grid3 = tuple((list(grid) + [1, 1])[:3])
    block3 = tuple((list(block) + [1, 1])[:3])
    arrays: list[np.ndarray] = []
    users: list[tuple[str, int]] = []
    index = 0
    for position, argument in enumerate(function_arguments(func)):
        type_ = argument.type
        if not isinstance(type_, MemRefType):
            raise SimulationError("--runtime cuda: scalar kernel arguments are not supported")
        if is_heap_argument_type(type_):
            per_block = heap_bytes_per_block(func)
            if per_block is None:
                raise SimulationError("a heap argument without gpu_alloc.heap_bytes_per_block")
            arrays.append(np.zeros(per_block * int(np.prod(grid3)), dtype=np.int8))
            continue
        hint = argument.name_hint or f"arg{position}"
        arrays.append(seeded_array(hint, type_, seed, index, dynamic_extent))
        users.append((hint, len(arrays) - 1))
        index += 1
    results = device.run(
        ptx,
        name,
        grid3,  # type: ignore[arg-type]
        block3,  # type: ignore[arg-type]
        arrays,
        [tuple(a.shape) for a in arrays],
        dynamic_shared_bytes(func),
    )
    return [
        ArgumentResult(hint, results[at], MemRefView.type_string_of(results[at]))
        for hint, at in users
    ]
