"""How many bytes of dynamic shared memory a launch of a kernel gets, read from the IR.

Asked by the simulator (the size of each block's `gpu.dynamic_shared_memory`) and by
the OpenCL C backend (the size of the `__local` buffer its launcher passes): one rule.
"""

from __future__ import annotations

from gpu_alloc.dialect.backing import DYNAMIC_SHARED_COMPUTED, dynamic_shared_bytes
from gpu_alloc.dialect.kernels import KernelFunction
from gpu_alloc.targets import DEFAULT_DEVICE, largest_shared_bytes_per_block
from xdsl.dialects import arith, gpu
from xdsl.dialects.builtin import IntegerAttr, SymbolRefAttr
from xdsl.ir import Operation

__all__ = ["DEFAULT_DYNAMIC_SHARED_BYTES", "dynamic_shared_size"]

DEFAULT_DYNAMIC_SHARED_BYTES = DEFAULT_DEVICE.shared_bytes_per_block
"""The dynamic shared memory of a kernel whose launch size cannot be told: what CUDA
gives a launch without the opt-in (48 KiB)."""


def dynamic_shared_size(kernel: KernelFunction, limit: int | None = None) -> int:
    """The bytes of dynamic shared memory a launch of `kernel` gets: what the module's
    `gpu.launch_func`s of it pass (`dynamic_shared_memory_size`, 0 when absent), when
    all are constants that agree; else the kernel's `gpu_alloc.dynamic_shared_bytes`
    record; else, for a kernel marked `gpu_alloc.dynamic_shared_computed` (a run-time size
    the kernel computes, as its launcher must), all a block may have (`limit`), the
    kernel's view of it still bounding every access; else `DEFAULT_DYNAMIC_SHARED_BYTES`,
    or the block's `limit` if smaller. A malformed record raises `VerifyException`."""
    sizes = _launch_sizes(kernel)
    if sizes is not None and len(sizes) == 1:
        return next(iter(sizes))
    recorded = dynamic_shared_bytes(kernel)
    if recorded is not None:
        return recorded
    if DYNAMIC_SHARED_COMPUTED in kernel.attributes:  # sized by the kernel's own view of it
        return largest_shared_bytes_per_block() if limit is None else limit
    return (
        DEFAULT_DYNAMIC_SHARED_BYTES if limit is None else min(DEFAULT_DYNAMIC_SHARED_BYTES, limit)
    )


def _launch_sizes(kernel: KernelFunction) -> set[int] | None:
    """The constant sizes the launches of `kernel` give; None if there is none, or one
    whose size is computed at run time."""
    gpu_module = kernel.parent_op()
    if not isinstance(gpu_module, gpu.ModuleOp):
        return None
    top: Operation = gpu_module
    while (parent := top.parent_op()) is not None:
        top = parent
    symbol = SymbolRefAttr(gpu_module.sym_name, [kernel.sym_name])
    sizes: set[int] = set()
    for op in top.walk():
        if not isinstance(op, gpu.LaunchFuncOp) or op.kernel != symbol:
            continue
        size = op.dynamicSharedMemorySize
        if size is None:
            sizes.add(0)
            continue
        constant = size.owner
        if not isinstance(constant, arith.ConstantOp) or not isinstance(
            constant.value, IntegerAttr
        ):
            return None
        sizes.add(constant.value.value.data)
    return sizes or None
