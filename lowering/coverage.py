"""The coverage contract: every op a kernel may use, the element types it applies to,
and the PTX backends that lower it.

`tests/test_ptx_coverage.py` compiles one small kernel per row, element type and
backend and assembles it with `ptxas -arch=sm_90`; another test fails when the
simulator executes an op missing here, and `check_coverage` refuses, before any
lowering, an op that the chosen backend does not lower (one located line naming the
op, the kernel and the backend that can). The README's coverage table is this table.

`form` says how a kernel uses the op (the test builds its kernel from it): `binary`
(T, T → T), `unary` (T → T), `ternary` (T, T, T → T), `compare` (T, T → i1),
`select`, `cast` (types are `source>target` pairs), `extended` (T, T → T, T),
`fpowi` (T, i32 → T), `constant`, or `special` (a kernel written for the op).
"""

from __future__ import annotations

from dataclasses import dataclass

from gpu_alloc.dialect.memory import is_workgroup_type
from gpu_alloc.errors import GpuAllocPassError
from xdsl.dialects import func, gpu, memref
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Operation

BACKENDS = ("llvmlite", "mlir")
INTEGERS = ("i1", "i8", "i16", "i32", "i64")
WIDE_INTEGERS = INTEGERS[1:]
FLOATS = ("f16", "bf16", "f32", "f64")
ALL = (*INTEGERS, *FLOATS)


@dataclass(frozen=True)
class Row:
    """One op of the contract."""

    op: str
    form: str
    types: tuple[str, ...]
    backends: tuple[str, ...] = BACKENDS
    note: str = ""


def _rows(names: str, form: str, types: tuple[str, ...], note: str = "") -> list[Row]:
    return [Row(f"{name}", form, types, note=note) for name in names.split()]


_CASTS = {
    "arith.extsi": ("i1>i32", "i8>i16", "i16>i32", "i32>i64"),
    "arith.extui": ("i1>i32", "i8>i16", "i16>i32", "i32>i64"),
    "arith.trunci": ("i64>i32", "i32>i16", "i16>i8", "i32>i1"),
    "arith.sitofp": ("i32>f16", "i32>bf16", "i32>f32", "i64>f64", "i8>f32"),
    "arith.uitofp": ("i32>f16", "i32>bf16", "i32>f32", "i64>f64", "i8>f32"),
    "arith.fptosi": ("f16>i32", "bf16>i32", "f32>i32", "f64>i64", "f32>i8"),
    "arith.fptoui": ("f16>i32", "bf16>i32", "f32>i32", "f64>i64", "f32>i8"),
    "arith.extf": ("f16>f32", "bf16>f32", "f32>f64", "f16>f64"),
    "arith.truncf": ("f32>f16", "f32>bf16", "f64>f32", "f64>f16"),
    "arith.bitcast": ("f32>i32", "i32>f32", "f16>i16", "bf16>i16", "i64>f64"),
    "arith.index_cast": ("i32>index", "index>i32", "i64>index", "index>i8"),
    "arith.index_castui": ("i32>index", "index>i32", "i16>index"),
}

_MATH_LIBDEVICE = (
    "math.acos math.acosh math.asin math.asinh math.atan math.atanh math.cbrt math.cos "
    "math.cosh math.erf math.exp math.exp2 math.expm1 math.log math.log10 math.log1p "
    "math.log2 math.rsqrt math.sin math.sinh math.tan math.tanh"
)

COVERAGE: tuple[Row, ...] = (
    Row("arith.constant", "constant", ALL),
    *_rows("arith.addi arith.subi arith.muli arith.andi arith.ori arith.xori", "binary", INTEGERS),
    *_rows("arith.divsi arith.divui arith.remsi arith.remui", "binary", INTEGERS),
    *_rows("arith.shli arith.shrsi arith.shrui", "binary", INTEGERS),
    *_rows("arith.minsi arith.maxsi arith.minui arith.maxui", "binary", INTEGERS),
    *_rows("arith.ceildivsi arith.ceildivui arith.floordivsi", "binary", INTEGERS),
    *_rows("arith.addf arith.subf arith.mulf arith.divf", "binary", FLOATS),
    Row(
        "arith.remf",
        "binary",
        FLOATS,
        backends=("llvmlite",),
        note="MLIR 22's NVVM pipeline refuses llvm.frem; not registered in xDSL 0.75",
    ),
    *_rows("arith.maximumf arith.minimumf arith.maxnumf arith.minnumf", "binary", FLOATS),
    Row("arith.negf", "unary", FLOATS),
    Row("arith.cmpi", "compare", INTEGERS),
    Row("arith.cmpf", "compare", FLOATS),
    Row("arith.select", "select", ALL),
    *[Row(name, "cast", pairs) for name, pairs in _CASTS.items()],
    Row("arith.addui_extended", "extended", WIDE_INTEGERS),
    *_rows("arith.mulsi_extended arith.mului_extended", "extended", WIDE_INTEGERS),
    *_rows(_MATH_LIBDEVICE, "unary", FLOATS, "libdevice; f16/bf16 computed in f32, as MLIR does"),
    *_rows("math.atan2 math.powf", "binary", FLOATS, "libdevice"),
    Row("math.fpowi", "fpowi", FLOATS, note="libdevice __nv_powif/__nv_powi"),
    *_rows(
        "math.absf math.ceil math.floor math.trunc math.round math.roundeven math.sqrt",
        "unary",
        FLOATS,
    ),
    Row("math.copysign", "binary", FLOATS),
    Row("math.fma", "ternary", FLOATS),
    *_rows("math.absi math.ctlz math.cttz math.ctpop", "unary", WIDE_INTEGERS),
    *_rows("vector.load vector.store vector.broadcast", "special", ALL),
    *_rows("vector.extract vector.insert", "special", ALL),
    Row("vector.fma", "special", FLOATS),
    Row("vector.reduction", "special", (*WIDE_INTEGERS, *FLOATS)),
    *_rows("memref.load memref.store memref.alloca", "special", ALL),
    *_rows("memref.view memref.subview memref.cast memref.reinterpret_cast", "special", ALL),
    *_rows(
        "memref.dim memref.copy memref.get_global memref.memory_space_cast", "special", ("f32",)
    ),
    Row(
        "memref.dealloc",
        "special",
        ("f32",),
        backends=("llvmlite",),
        note="a no-op, as in the simulator; MLIR 22 calls a device free()",
    ),
    Row(
        "memref.atomic_rmw",
        "special",
        ("i32", "i64", "f16", "bf16", "f32", "f64"),
        note="kinds addf addi assign maxs maxu mins minu ori andi",
    ),
    Row(
        "memref.alloc",
        "special",
        ("f32",),
        backends=(),
        note="device malloc: needs the CUDA device runtime, which ptxas alone cannot link",
    ),
    Row("gpu.dynamic_shared_memory", "special", ("i8",)),
    *_rows("gpu.thread_id gpu.block_id gpu.block_dim gpu.grid_dim", "special", ("index",)),
    *_rows("gpu.global_id gpu.lane_id gpu.barrier gpu.return", "special", ("index",)),
    Row(
        "gpu.subgroup_size",
        "special",
        ("index",),
        backends=("llvmlite",),
        note="the warp size; MLIR 22's NVVM lowering refuses it",
    ),
    Row(
        "gpu.shuffle",
        "special",
        ("i32", "f32"),
        backends=("mlir",),
        note="xor up down idx; the llvmlite backend refuses it",
    ),
    Row(
        "gpu.printf",
        "special",
        ("i32", "f32"),
        backends=("mlir",),
        note="a vprintf call, resolved by the CUDA driver when the module loads",
    ),
    *_rows(
        "scf.for scf.if scf.while scf.index_switch scf.yield scf.condition", "special", ("i32",)
    ),
    *_rows("cf.br cf.cond_br cf.switch", "special", ("i32",)),
    *_rows("func.func func.call func.return", "special", ("f32",)),
    *_rows(
        "gpu_alloc.alloc gpu_alloc.alias gpu_alloc.offset_pointer gpu_alloc.dealloc",
        "special",
        ("i8",),
        note="lowered by lower-gpu-allocs before PTX",
    ),
)
"""The contract, one row per op."""

CONTAINER_OPS = frozenset({"gpu.module", "gpu.func", "builtin.module", "memref.global"})
"""Ops that hold the kernel rather than run in it; both backends read them."""

_BY_NAME = {row.op: row for row in COVERAGE}


def row_of(name: str) -> Row | None:
    return _BY_NAME.get(name)


def backends_of(name: str) -> tuple[str, ...]:
    """The backends that lower the op `name` (every backend for a container op)."""
    if name in CONTAINER_OPS:
        return BACKENDS
    row = _BY_NAME.get(name)
    return row.backends if row is not None else ()


def markdown_table() -> str:
    """The contract as the README's Markdown table (ops x backends)."""
    lines = [
        "| op | element types | llvmlite | mlir | note |",
        "|---|---|---|---|---|",
    ]
    for row in COVERAGE:
        marks = ["yes" if backend in row.backends else "no" for backend in BACKENDS]
        types = " ".join(t.replace(">", "→") for t in row.types)
        lines.append(f"| `{row.op}` | {types} | {marks[0]} | {marks[1]} | {row.note} |")
    return "\n".join(lines) + "\n"


def _kernel_name(op: Operation) -> str:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, gpu.FuncOp | func.FuncOp):
        parent = parent.parent_op()
    name = getattr(parent, "sym_name", None)
    return name.data if name is not None else "?"


def check_coverage(module: ModuleOp, backend: str) -> None:
    """Refuse the first op inside a `gpu.module` that `backend` does not lower."""
    for gpu_module in module.walk():
        if not isinstance(gpu_module, gpu.ModuleOp):
            continue
        for op in gpu_module.walk():
            name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
            if isinstance(op, memref.AllocOp | memref.AllocaOp) and is_workgroup_type(
                op.memref.type
            ):
                # Per-block storage (gpu_alloc.dialect.memory): neither backend makes it
                # shared memory (an alloca would be each thread's own).
                raise GpuAllocPassError(
                    f"the {backend} PTX backend cannot lower workgroup memory made by "
                    f"'{name}' in kernel '{_kernel_name(op)}' (run import-gpu-allocs "
                    "first: it makes it the block's shared memory)",
                    op,
                )
            row = row_of(name)
            if row is None and name not in CONTAINER_OPS:
                # Outside the contract: MLIR may still lower it (its own error if not).
                lowered_by = ("mlir",)
            else:
                lowered_by = backends_of(name)
            if backend in lowered_by:
                continue
            others = [b for b in lowered_by if b != backend]
            hint = f"use backend={others[0]}" if others else "no PTX backend lowers it"
            raise GpuAllocPassError(
                f"the {backend} PTX backend cannot lower '{name}' in kernel "
                f"'{_kernel_name(op)}' ({hint})",
                op,
            )
