"""The shared memory of each lowered kernel, against what its chip allows.

A kernel (every marker of `dialect.kernels`) has as static shared bytes those of the
workgroup globals it and the functions it calls (in its `gpu.module`) read
(`transforms.shared_globals`: `memref.global`s and `llvm.mlir.global`s in address space
3), each rounded up to its alignment, and of its workgroup attributions; shared is every spelling of the
space (`3`, `3 : i32`, `#gpu.address_space<workgroup>`). Its dynamic shared bytes are
those `lower-gpu-allocs` recorded (`gpu_alloc.dynamic_shared_bytes`). `check_static_shared`
refuses, at the kernel, one whose static bytes exceed the target's static-shared limit
or whose static and dynamic bytes together exceed the chip's shared bytes per block,
before any assembly is made (ptxas, LLVM's AMDGPU target or the OpenCL runtime would
refuse it later, unlocated, or worse).
"""

from __future__ import annotations

from gpu_alloc.dialect.backing import dynamic_shared_bytes
from gpu_alloc.dialect.kernels import AnyFunction, is_kernel
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import static_byte_size
from gpu_alloc.syntax.mlir_gpu_kernels import workgroup_count
from gpu_alloc.targets import Device
from gpu_alloc.transforms.shared_globals import shared_global_bytes_read
from xdsl.dialects import gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation


def _attribution_bytes(kernel: Operation) -> int:
    """The bytes of `kernel`'s workgroup attributions (block arguments after its inputs)."""
    if not isinstance(kernel, gpu.FuncOp):
        return 0
    inputs = len(kernel.function_type.inputs.data)
    arguments = kernel.body.blocks[0].args[inputs : inputs + workgroup_count(kernel)]
    sizes = [static_byte_size(a.type) or 0 for a in arguments if isinstance(a.type, MemRefType)]
    return sum(sizes)


def static_shared_bytes(gpu_module: gpu.ModuleOp) -> dict[str, int]:
    """Per kernel of `gpu_module`, the static shared bytes it uses."""
    return {
        op.sym_name.data: shared_global_bytes_read(op) + _attribution_bytes(op)
        for op in gpu_module.body.ops
        if isinstance(op, AnyFunction) and is_kernel(op)
    }


def _kernels_by_name(module: Operation) -> dict[tuple[str, str], Operation]:
    return {
        (gpu_module.sym_name.data, op.sym_name.data): op
        for gpu_module in module.walk()
        if isinstance(gpu_module, gpu.ModuleOp)
        for op in gpu_module.body.ops
        if isinstance(op, AnyFunction)
    }


def check_static_shared(lowered: ModuleOp, device: Device, source: ModuleOp) -> None:
    """Refuse the first kernel of `lowered` whose shared bytes `device` does not allow,
    at that kernel in `source` (the module `lowered` was lowered from)."""
    limit = device.shared_bytes_per_block
    static_limit = device.static_shared_limit
    shared = device.target.spaces.shared_name
    kernels = _kernels_by_name(source)
    for gpu_module in (op for op in lowered.walk() if isinstance(op, gpu.ModuleOp)):
        lowered_kernels = _kernels_by_name(gpu_module)
        for name, total in static_shared_bytes(gpu_module).items():
            kernel = lowered_kernels[(gpu_module.sym_name.data, name)]
            dynamic = dynamic_shared_bytes(kernel) or 0
            at = kernels.get((gpu_module.sym_name.data, name))
            if static_limit is not None and total > static_limit and static_limit < limit:
                raise GpuAllocPassError(
                    f"kernel '{name}' uses {total} bytes of static {shared} memory; "
                    f"{device.target.vendor} kernels may declare {static_limit} statically",
                    at,
                )
            if total + dynamic > limit:
                what = f"{total} bytes of static"
                if dynamic:
                    what = f"{total + dynamic} bytes ({total} static, {dynamic} dynamic) of"
                raise GpuAllocPassError(
                    f"kernel '{name}' uses {what} {shared} memory; one block of "
                    f"{device.chip.name} may use {limit}",
                    at,
                )
