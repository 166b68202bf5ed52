"""The OpenCL C backend (`-t opencl`, `backend=c`): OpenCL C 1.2 source of a `gpu.module`
lowered by `lower-gpu-allocs`.

Guarantees, for every op the coverage contract's `opencl/c` column lowers:

* the fused backing (a `memref.global` in shared memory) is one `__local` array
  declared at the scope of each kernel that reads it, aligned as the global says, and
  each Func's `memref.view` a typed `__local` pointer at its byte offset (which
  `lower-gpu-allocs` aligned for the element type); `gpu.dynamic_shared_memory` is a
  `__local uchar*` kernel argument (the host gives it its bytes);
* the heap argument and every memref argument are `__global` pointers; a dynamic
  dimension of an argument is one more `long` argument after the buffers;
* `gpu.barrier` is `barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)`, ids and sizes
  the description's builtins (`get_local_id(d)`...), read as 64-bit `index`;
* integer arithmetic wraps as in MLIR (it is computed on unsigned types: signed
  overflow is undefined in C), floating-point is not contracted (`FP_CONTRACT OFF`).

Every SSA value is a variable declared at the top of its function, so structured
(`scf`) and unstructured (`cf`, as labels and `goto`) control flow both only assign.
`OpenClModule.line_ops` maps each line of the source to the op it came from (a copy
of the user's op: `core.provenance` leads back to it), for Oclgrind's reports.
An op it cannot write raises `GpuAllocPassError` at the op, before any output.
"""

from __future__ import annotations

from gpu_alloc.dialect.memory import MemorySpace, space_of
from gpu_alloc.lowering.opencl.c_function import _FunctionWriter
from gpu_alloc.lowering.opencl.c_ops import op_alignment as op_alignment
from gpu_alloc.lowering.opencl.c_types import KernelParameter as KernelParameter
from gpu_alloc.lowering.opencl.c_types import OpenClKernel as OpenClKernel
from gpu_alloc.lowering.opencl.c_types import OpenClModule as OpenClModule
from gpu_alloc.lowering.opencl.c_types import _name_of, _refuse
from gpu_alloc.lowering.opencl.c_types import c_name as c_name
from gpu_alloc.lowering.opencl.c_types import c_type as c_type
from gpu_alloc.lowering.opencl.c_types import memory_type as memory_type
from gpu_alloc.targets import Device
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

__all__ = ["KernelParameter", "OpenClKernel", "OpenClModule", "emit_opencl"]


def emit_opencl(module: ModuleOp, device: Device) -> dict[str, OpenClModule]:
    """Each `gpu.module` of `module` (lowered by `lower-gpu-allocs`) as OpenCL C."""
    return {
        op.sym_name.data: _ModuleWriter(op, device).write()
        for op in module.walk()
        if isinstance(op, gpu.ModuleOp)
    }


class _ModuleWriter:
    def __init__(self, module: gpu.ModuleOp, device: Device):
        self.module = module
        self.device = device
        self.lines: list[tuple[str, Operation | None]] = []
        self.globals = {
            _name_of(op): op for op in module.body.block.ops if op.name == "memref.global"
        }
        self.kernels: dict[str, OpenClKernel] = {}
        self.extensions: set[str] = set()

    def write(self) -> OpenClModule:
        functions = [
            op
            for op in self.module.body.block.ops
            if isinstance(op, gpu.FuncOp) or op.name == "func.func"
        ]
        bodies: list[list[tuple[str, Operation | None]]] = []
        prototypes: list[tuple[str, Operation | None]] = []
        for op in functions:
            if op.name == "memref.global":
                continue
            writer = _FunctionWriter(self, op)
            body = writer.write()
            if writer.kernel is not None:
                self.kernels[writer.kernel.name] = writer.kernel
            else:
                prototypes.append((writer.signature + ";", op))
            bodies.append(body)
        for op in self.module.body.block.ops:
            if op.name == "memref.global" and space_of(op.properties["type"]) != MemorySpace.SHARED:  # type: ignore[arg-type]
                raise _refuse(op, "a global outside shared memory (OpenCL C __constant data)")
            if op.name not in ("memref.global", "gpu.func", "func.func", "gpu.module_end"):
                raise _refuse(op, "not in a kernel or function")
        header: list[tuple[str, Operation | None]] = [
            (
                f"// OpenCL C 1.2 of gpu.module @{self.module.sym_name.data} (gpu-alloc -t opencl)",
                None,
            ),
            ("#pragma OPENCL FP_CONTRACT OFF", None),
        ]
        for extension in sorted(self.extensions):
            header.append((f"#pragma OPENCL EXTENSION {extension} : enable", None))
        lines = [*header, *prototypes]
        for body in bodies:
            lines.append(("", None))
            lines.extend(body)
        source = "\n".join(text for text, _ in lines) + "\n"
        line_ops = {n: op for n, (_, op) in enumerate(lines, start=1) if op is not None}
        return OpenClModule(self.module.sym_name.data, source, self.kernels, line_ops)
