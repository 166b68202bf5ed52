"""The static shared memory of each lowered kernel, against what its chip allows.

A kernel's static shared bytes are those of the shared `memref.global`s it and the
functions it calls (in its `gpu.module`) read with `memref.get_global`, each rounded up
to its alignment. `check_static_shared` refuses, at the kernel, one whose bytes exceed
the chip's shared bytes per block or the target's static-shared limit, before any
assembly is made (ptxas, LLVM's AMDGPU target or the OpenCL runtime would refuse it
later, or worse).
"""

from __future__ import annotations

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.targets import Device
from gpu_alloc.transforms.shared_globals import shared_global_bytes_read
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp


def static_shared_bytes(gpu_module: gpu.ModuleOp) -> dict[str, int]:
    """Per kernel of `gpu_module`, the static shared bytes it uses."""
    return {
        op.sym_name.data: shared_global_bytes_read(op)
        for op in gpu_module.body.ops
        if isinstance(op, gpu.FuncOp) and op.kernel is not None
    }


def _kernels_by_name(module: ModuleOp) -> dict[tuple[str, str], gpu.FuncOp]:
    return {
        (gpu_module.sym_name.data, op.sym_name.data): op
        for gpu_module in module.walk()
        if isinstance(gpu_module, gpu.ModuleOp)
        for op in gpu_module.body.ops
        if isinstance(op, gpu.FuncOp)
    }


def check_static_shared(lowered: ModuleOp, device: Device, source: ModuleOp) -> None:
    """Refuse the first kernel of `lowered` whose static shared bytes `device` does not
    allow, at that kernel in `source` (the module `lowered` was lowered from)."""
    limit = device.shared_bytes_per_block
    what = f"one block of {device.chip.name} may use {limit}"
    if device.static_shared_limit is not None and device.static_shared_limit < limit:
        limit = device.static_shared_limit
        what = f"a {device.target.vendor} kernel may declare {limit} statically"
    shared = device.target.spaces.shared_name
    kernels = _kernels_by_name(source)
    for gpu_module in (op for op in lowered.walk() if isinstance(op, gpu.ModuleOp)):
        for name, total in static_shared_bytes(gpu_module).items():
            if total > limit:
                raise GpuAllocPassError(
                    f"kernel '{name}' uses {total} bytes of static {shared} memory; {what}",
                    kernels.get((gpu_module.sym_name.data, name)),
                )
