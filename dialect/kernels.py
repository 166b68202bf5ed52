"""Which functions are kernels: the one model of every marker MLIR 22 and its users write.

A kernel is a function a host launches: every thread of every block enters it together.
MLIR's dialects and the compilers built on them mark one in several ways, all read here:

| function op | marker |
|---|---|
| `gpu.func` | the `kernel` keyword (xDSL's `kernel` property), or any attribute below |
| `func.func` | a unit attribute `gpu.kernel` (an ML compiler's form), `nvvm.kernel`, `rocdl.kernel` |
| `llvm.func` | the calling convention `ptx_kernelcc`, `amdgpu_kernelcc`, `spir_kernelcc` (MLIR's syntax; LLVM's `ptx_kernel`...), or an attribute above |

`transforms.block_level_code` asks `is_kernel` for what it counts as kernels; the
lowering emits a `func.func` kernel as the target's entry point (`.entry` in PTX).
"""

from __future__ import annotations

from xdsl.dialects import func, gpu, llvm
from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Operation

KernelFunction = gpu.FuncOp | func.FuncOp
"""A kernel whose body the passes and the simulator read (`llvm.func` bodies they do not)."""

AnyFunction = gpu.FuncOp | func.FuncOp | llvm.FuncOp
"""Every function op `is_kernel` classifies: what counts a kernel's workgroup memory and
names the function a diagnostic is in."""

KERNEL_ATTRIBUTES = ("gpu.kernel", "nvvm.kernel", "rocdl.kernel")
"""The (unit) attributes that mark a function a kernel: MLIR's `gpu`, NVVM and ROCDL ones."""

KERNEL_CALLING_CONVENTIONS = frozenset(
    f"{name}{suffix}"
    for name in ("ptx_kernel", "amdgpu_kernel", "spir_kernel")
    for suffix in ("", "cc")
)
"""The LLVM calling conventions of a kernel entry point, in MLIR's syntax (`ptx_kernelcc`)
and LLVM IR's (`ptx_kernel`)."""


def has_kernel_attribute(op: Operation) -> bool:
    """Whether `op` carries one of `KERNEL_ATTRIBUTES` (MLIR prints a unit attribute
    bare; a `true` bool attribute is read alike)."""
    for name in KERNEL_ATTRIBUTES:
        value = op.attributes.get(name)
        if value is None:
            continue
        data = getattr(value, "value", None)
        if data is None or getattr(data, "data", 1) != 0:
            return True
    return False


def is_kernel(op: Operation) -> bool:
    """Whether `op` is a kernel function in any of the spellings above."""
    if isinstance(op, gpu.FuncOp):
        return op.kernel is not None or has_kernel_attribute(op)
    if isinstance(op, func.FuncOp):
        return has_kernel_attribute(op)
    if isinstance(op, llvm.FuncOp):
        cconv = op.properties.get("CConv") or op.attributes.get("CConv")
        convention = getattr(cconv, "convention", None) or getattr(cconv, "text", None)
        return has_kernel_attribute(op) or (
            isinstance(convention, StringAttr)
            and convention.data.strip() in KERNEL_CALLING_CONVENTIONS
        )
    return False


__all__ = [
    "AnyFunction",
    "KernelFunction",
    "KERNEL_ATTRIBUTES",
    "KERNEL_CALLING_CONVENTIONS",
    "has_kernel_attribute",
    "is_kernel",
]
