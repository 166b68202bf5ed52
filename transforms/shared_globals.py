"""The workgroup globals block-level code reads, as shared bytes every limit check counts:
a global's bytes are shared memory of each kernel that reads it, itself or through the
functions it calls, whether a pass fuses them or not (import leaves a global that code
outside block-level code uses as it is).

A workgroup global is a `memref.global` in either spelling of the shared space (read with
`memref.get_global`) or an LLVM-dialect `llvm.mlir.global` with `addr_space = 3` (read
with `llvm.mlir.addressof`; address space 3 is workgroup memory on every target LLVM
has: NVPTX, AMDGPU and SPIR-V)."""

from __future__ import annotations

from gpu_alloc.dialect import memory_space_of
from gpu_alloc.dialect.kernels import AnyFunction
from gpu_alloc.memref_sizes import llvm_type_bytes, static_byte_size
from gpu_alloc.transforms.kernel_ir import walk_ops
from xdsl.dialects import func, gpu, llvm, memref
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation

SHARED_SPACE = 3


def shared_global_bytes(table: Operation) -> dict[str, int]:
    """Per workgroup global of `table` (a `gpu.module` or `builtin.module`), its bytes
    rounded up to its alignment."""
    sizes: dict[str, int] = {}
    for op in table.regions[0].blocks[0].ops if table.regions[0].blocks else ():
        if isinstance(op, memref.GlobalOp) and memory_space_of(op.type) == SHARED_SPACE:
            memref_type = op.type
            size = static_byte_size(memref_type) if isinstance(memref_type, MemRefType) else None
        elif isinstance(op, llvm.GlobalOp) and op.addr_space.value.data == SHARED_SPACE:
            size = llvm_type_bytes(op.global_type)
        else:
            continue
        alignment = op.alignment.value.data if op.alignment is not None else 1
        sizes[op.sym_name.data] = -(-(size or 0) // alignment) * alignment
    return sizes


def references(function: Operation) -> tuple[set[str], set[str]]:
    """The globals `function` reads and the functions it calls, by symbol."""
    globals_: set[str] = set()
    callees: set[str] = set()
    for op in walk_ops(function):
        if isinstance(op, memref.GetGlobalOp):
            globals_.add(op.name_.root_reference.data)
        elif isinstance(op, llvm.AddressOfOp):
            globals_.add(op.global_name.root_reference.data)
        elif isinstance(op, func.CallOp):
            callees.add(op.callee.root_reference.data)
        elif isinstance(op, llvm.CallOp) and op.callee is not None:
            callees.add(op.callee.root_reference.data)
    return globals_, callees


def shared_global_bytes_read(code: Operation) -> int:
    """The bytes of the shared globals `code` (a kernel, launch body or function) reads,
    itself or through the functions of its symbol table it calls, each global once."""
    table = code.parent_op()
    while table is not None and not isinstance(table, gpu.ModuleOp | ModuleOp):
        table = table.parent_op()
    if table is None:
        return 0
    sizes = shared_global_bytes(table)
    if not sizes:
        return 0
    functions = {
        op.sym_name.data: op for op in table.regions[0].blocks[0].ops if isinstance(op, AnyFunction)
    }
    used, callees = references(code)
    seen: set[str] = set()
    pending = list(callees)
    while pending:
        name = pending.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        globals_, more = references(functions[name])
        used |= globals_
        pending += more
    return sum(sizes.get(symbol, 0) for symbol in used)
