"""Block-level code: the one definition that every pass and tool asks.

Block-level code is code that every thread of a thread block runs, together: a
barrier in it is met by the whole block, and an allocation it makes in workgroup or
heap memory is one buffer per block. There are three kinds:

- a kernel: a `gpu.func` or `func.func` that `dialect.kernels.is_kernel` says a host
  launches (the `kernel` keyword, or a `gpu.kernel`, `nvvm.kernel`, `rocdl.kernel`
  attribute); an `llvm.func` kernel is one too, but its body is LLVM IR the passes
  do not read;
- a `gpu.launch` body (its entry arguments are MLIR's block ids, thread ids, grid
  and block sizes; values it uses from above the launch are the same for every thread);
- a workgroup `func.func`: one that allocates workgroup memory itself, outside any
  `gpu.launch` in it (IREE's workgroup-level code, or a device function in a
  `gpu.module` that a kernel calls).

What a `gpu.launch` nested in a `func.func` allocates belongs to the launch
(`owned_by`), and the launch's barriers are not the function's.

A kernel and a launch body are entered by the whole block. A workgroup `func.func` is
*reached only from uniform control flow* when every reference to it is a `func.call`
that the pass proves every thread of the block makes together (see
`call_graph.CallGraph`); only then may a pass add a barrier to it.
"""

from __future__ import annotations

from gpu_alloc.dialect import AllocOp, is_backing
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.memory import is_workgroup_type
from gpu_alloc.transforms.kernel_ir import Kernel, walk_ops
from xdsl.dialects import func, gpu, memref
from xdsl.ir import Operation

BlockLevelCode = Kernel
"""A `gpu.func` kernel, a `gpu.launch` (its body), or a workgroup `func.func`."""


def block_level_code(module: Operation) -> list[BlockLevelCode]:
    """Every kernel, `gpu.launch` body and workgroup `func.func` in `module`, each once,
    in program order (a function before the launches nested in it)."""
    found: list[BlockLevelCode] = []
    for op in walk_ops(module):
        if isinstance(op, gpu.FuncOp | func.FuncOp) and is_kernel(op):
            found.append(op)
        elif isinstance(op, gpu.LaunchOp):
            found.append(op)
        elif isinstance(op, func.FuncOp) and allocates_workgroup_memory(op):
            found.append(op)
    return found


def gpu_kernels(module: Operation) -> list[gpu.FuncOp]:
    """The `gpu.func` kernels among `block_level_code(module)`: what a host launches by
    name (`gpu.launch_func`, the simulator's `--kernel`)."""
    return [op for op in block_level_code(module) if isinstance(op, gpu.FuncOp)]


def owned_by(op: Operation, code: Operation) -> bool:
    """Whether `op` (nested in `code`) belongs to it and not to a `gpu.launch` in it."""
    parent = op.parent_op()
    while parent is not None and parent is not code:
        if isinstance(parent, gpu.LaunchOp):
            return False
        parent = parent.parent_op()
    return parent is code


def enclosing_code(op: Operation) -> Operation | None:
    """The innermost `gpu.launch` or function (`func.func`, `gpu.func`) around `op`:
    the code whose threads run it."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.LaunchOp | func.FuncOp | gpu.FuncOp):
        parent = parent.parent_op()
    return parent


def allocates_workgroup_memory(function: func.FuncOp) -> bool:
    """Whether `function` itself (not a `gpu.launch` in it) allocates workgroup memory,
    as a `memref.alloc`/`alloca` or a `gpu_alloc.alloc`."""
    return any(
        isinstance(op, memref.AllocOp | memref.AllocaOp | AllocOp)
        and is_workgroup_type(op.memref.type)
        and owned_by(op, function)
        for op in walk_ops(function)
    )


def kernel_allocs(kernel: BlockLevelCode) -> list[AllocOp]:
    """Every non-backing allocation that `kernel` owns, in program order."""
    return [
        o
        for o in walk_ops(kernel)
        if isinstance(o, AllocOp) and not is_backing(o) and owned_by(o, kernel)
    ]
