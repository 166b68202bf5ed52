"""The coverage contract: every op a kernel may use, the element types it applies to,
and the targets and backends (the columns, `ptx/llvmlite` ... `spirv/mlir`) that lower it.

`tests/test_coverage.py` compiles one small kernel per row, element type and column and
checks it with the target's own tool (`ptxas -arch=sm_90`; `llvm-mc` and `ld.lld` for
gfx942; `spirv-as` and `spirv-val`); another test fails when the simulator executes an op
missing here, and `check_coverage` refuses, before any lowering, an op (or an element
type) that the chosen column does not lower: one located line naming the op, the kernel,
why, and the backend that can. docs/coverage.md's table is this table (scripts/coverage_doc.py).

`form` says how a kernel uses the op (the test builds its kernel from it): `binary`
(T, T → T), `unary` (T → T), `ternary` (T, T, T → T), `compare` (T, T → i1),
`select`, `cast` (types are `source>target` pairs), `extended` (T, T → T, T),
`fpowi` (T, i32 → T), `constant`, or `special` (a kernel written for the op).
"""

from __future__ import annotations

from gpu_alloc.dialect.kernels import AnyFunction, is_kernel
from gpu_alloc.dialect.memory import is_workgroup_type
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage_rows import ALL as ALL
from gpu_alloc.lowering.coverage_rows import BACKENDS as BACKENDS
from gpu_alloc.lowering.coverage_rows import COLUMNS as COLUMNS
from gpu_alloc.lowering.coverage_rows import FLOATS as FLOATS
from gpu_alloc.lowering.coverage_rows import INTEGERS as INTEGERS
from gpu_alloc.lowering.coverage_rows import WIDE_INTEGERS as WIDE_INTEGERS
from gpu_alloc.lowering.coverage_rows import Row as Row
from gpu_alloc.lowering.coverage_rows import _rows
from gpu_alloc.lowering.coverage_rows import refused as refused
from gpu_alloc.memref_sizes import element_type_name
from gpu_alloc.targets import TARGETS, TargetDescription
from xdsl.dialects import gpu, memref
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Operation

INDEX_BINARY = (
    "add sub mul divs divu rems remu ceildivs ceildivu floordivs maxs maxu mins minu "
    "shl shrs shru and or xor".split()
)
"""The binary ops of MLIR's `index` dialect (`syntax/mlir_index.py`)."""


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

_ROCDL_OCML = "MLIR 22's ROCDL lowering calls ROCm's ocml, which the mlir backend does not link"

_MATH_LIBRARY = (
    "math.acos math.asin math.atan math.cos math.cosh math.exp math.exp2 math.expm1 "
    "math.log math.log10 math.log1p math.log2 math.rsqrt math.sin math.sinh math.tan math.tanh"
)
_MATH_LIBRARY_NOT_SPIRV_MLIR = "math.acosh math.asinh math.atanh math.cbrt math.erf"

_LIBRARY_NOTE = (
    "the target's math library: libdevice, ROCm's ocml (when installed), OpenCL builtins; "
    "f16/bf16 computed in f32, as MLIR does"
)
_SPIRV_I128 = (
    "a 128-bit product: LLVM 22's SPIR-V target needs SPV_ALTERA_arbitrary_precision_integers"
)
_NO_SPIRV_MATH = "MLIR 22 lowers it to no LLVM operation the SPIR-V target knows"

_NOT_EMBEDDED = "the embedded backend does not lower it"
_NOT_OPENCL = "the OpenCL C backend does not lower it"
_NO_SUBGROUPS = "OpenCL C 1.2 has no sub-groups (cl_khr_subgroups is optional)"
_NOT_SPIRV_MLIR = "MLIR 22's GPU-to-LLVM-SPIR-V lowering does not lower it"
_NVGPU_REFUSED = {
    **refused(_NOT_EMBEDDED, "*/llvmlite"),
    **refused(
        "an NVIDIA GPU op: MLIR lowers nvgpu only to NVVM", "amdgcn/*", "spirv/*", "opencl/*"
    ),
}

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
        note="not registered in xDSL 0.75",
        refused={
            **refused("MLIR 22's NVVM pipeline refuses llvm.frem", "ptx/mlir"),
            **refused(_ROCDL_OCML, "amdgcn/mlir"),
            **refused("LLVM 22's AMDGPU target has no bf16 frem", "amdgcn/llvmlite:bf16"),
        },
    ),
    *_rows("arith.maximumf arith.minimumf arith.maxnumf arith.minnumf", "binary", FLOATS),
    Row("arith.negf", "unary", FLOATS),
    Row("arith.cmpi", "compare", INTEGERS),
    Row("arith.cmpf", "compare", FLOATS),
    Row("arith.select", "select", ALL),
    *[Row(name, "cast", pairs) for name, pairs in _CASTS.items()],
    Row("arith.addui_extended", "extended", WIDE_INTEGERS),
    *_rows(
        "arith.mulsi_extended arith.mului_extended",
        "extended",
        WIDE_INTEGERS,
        refused=refused(_SPIRV_I128, "spirv/*:i64"),
    ),
    *_rows(
        _MATH_LIBRARY, "unary", FLOATS, _LIBRARY_NOTE, refused=refused(_ROCDL_OCML, "amdgcn/mlir")
    ),
    *_rows(
        _MATH_LIBRARY_NOT_SPIRV_MLIR,
        "unary",
        FLOATS,
        _LIBRARY_NOTE,
        refused={
            **refused(_ROCDL_OCML, "amdgcn/mlir"),
            **refused(_NO_SPIRV_MATH, "spirv/mlir"),
        },
    ),
    *_rows(
        "math.atan2 math.powf",
        "binary",
        FLOATS,
        _LIBRARY_NOTE,
        refused=refused(_ROCDL_OCML, "amdgcn/mlir"),
    ),
    Row(
        "math.fpowi",
        "fpowi",
        FLOATS,
        note=f"{_LIBRARY_NOTE} (pown)",
        refused=refused(_ROCDL_OCML, "amdgcn/mlir"),
    ),
    *_rows("math.absf math.trunc math.round math.roundeven math.sqrt", "unary", FLOATS),
    *_rows("math.ceil math.floor", "unary", FLOATS, refused=refused(_ROCDL_OCML, "amdgcn/mlir")),
    Row("math.copysign", "binary", FLOATS),
    Row("math.fma", "ternary", FLOATS),
    *_rows("math.absi math.ctlz math.cttz math.ctpop", "unary", WIDE_INTEGERS),
    *_rows(
        "vector.load vector.store vector.broadcast",
        "special",
        ALL,
        refused=refused(_NOT_OPENCL, "opencl/*"),
    ),
    *_rows(
        "vector.extract vector.insert", "special", ALL, refused=refused(_NOT_OPENCL, "opencl/*")
    ),
    Row("vector.fma", "special", FLOATS, refused=refused(_NOT_OPENCL, "opencl/*")),
    Row(
        "vector.reduction",
        "special",
        (*WIDE_INTEGERS, *FLOATS),
        refused=refused(_NOT_OPENCL, "opencl/*"),
    ),
    *_rows("memref.load memref.store memref.alloca", "special", ALL),
    *_rows("memref.view memref.subview memref.cast memref.reinterpret_cast", "special", ALL),
    *_rows(
        "memref.dim memref.copy memref.get_global memref.memory_space_cast", "special", ("f32",)
    ),
    Row(
        "memref.dealloc",
        "special",
        ("f32",),
        note="a no-op, as in the simulator",
        refused=refused("MLIR 22 calls a device free()", "*/mlir"),
    ),
    Row(
        "memref.atomic_rmw",
        "special",
        ("i32", "i64", "f16", "bf16", "f32", "f64"),
        note="kinds addf addi assign maxs maxu mins minu ori andi",
        refused=refused(
            "a float atomicrmw: LLVM 22's SPIR-V target needs SPV_EXT_shader_atomic_float_add",
            "spirv/*:f16",
            "spirv/*:f32",
            "spirv/*:f64",
        )
        | refused(
            "OpenCL C 1.2 has 32-bit atomics (and here f32 add and exchange): 64-bit ones "
            "are the optional cl_khr_int64_base_atomics",
            "opencl/*:i64",
            "opencl/*:f64",
        ),
    ),
    Row(
        "memref.alloc",
        "special",
        ("f32",),
        refused=refused(
            "device malloc: needs the device runtime, which no assembler alone links", "*/*"
        ),
    ),
    Row(
        "gpu.dynamic_shared_memory",
        "special",
        ("i8",),
        refused=refused(TARGETS["spirv"].no_dynamic_shared, "spirv/*"),
    ),
    *_rows("gpu.thread_id gpu.block_id gpu.block_dim gpu.grid_dim", "special", ("index",)),
    *_rows("gpu.global_id gpu.barrier gpu.return", "special", ("index",)),
    Row("gpu.lane_id", "special", ("index",), refused=refused(_NO_SUBGROUPS, "opencl/*")),
    Row(
        "gpu.subgroup_size",
        "special",
        ("index",),
        note="the warp or wavefront size",
        refused={
            **refused("MLIR 22's NVVM lowering refuses it", "ptx/mlir"),
            **refused(_NO_SUBGROUPS, "opencl/*"),
        },
    ),
    Row(
        "gpu.shuffle",
        "special",
        ("i32", "f32"),
        note="xor up down idx",
        refused={
            **refused(_NOT_EMBEDDED, "*/llvmlite"),
            **refused(_NOT_SPIRV_MLIR, "spirv/mlir"),
            **refused(_NOT_OPENCL, "opencl/*"),
        },
    ),
    Row(
        "gpu.printf",
        "special",
        ("i32", "f32"),
        note="a call the driver resolves when the module loads (vprintf, OpenCL's printf)",
        refused={
            **refused(_NOT_EMBEDDED, "*/llvmlite"),
            **refused(
                "MLIR 22's ROCDL lowering prints only through ROCm's ockl hostcalls",
                "amdgcn/mlir",
            ),
            **refused(_NOT_OPENCL, "opencl/*"),
        },
    ),
    *_rows(
        "scf.for scf.if scf.while scf.index_switch scf.yield scf.condition", "special", ("i32",)
    ),
    *_rows("cf.br cf.cond_br cf.switch", "special", ("i32",)),
    *_rows("func.func func.call func.return", "special", ("f32",)),
    *_rows(
        "affine.apply affine.min affine.max affine.load affine.store affine.for affine.if "
        "affine.yield affine.delinearize_index affine.linearize_index",
        "special",
        ("f32",),
        note="to arith/scf by pre_lowering, with MLIR's semantics",
    ),
    *_rows(
        "affine.vector_load affine.vector_store",
        "special",
        ("f32",),
        note="to vector/scf by pre_lowering, with MLIR's semantics",
        refused=refused(_NOT_OPENCL, "opencl/*"),
    ),
    *_rows(
        "scf.forall scf.forall.in_parallel scf.parallel scf.reduce",
        "special",
        ("f32",),
        note="to scf.for nests by pre_lowering (a forall mapped to blocks: block-strided)",
    ),
    *_rows(
        " ".join(f"index.{name}" for name in INDEX_BINARY)
        + " index.casts index.castu index.constant",
        "special",
        ("index",),
        note="to arith by pre_lowering",
    ),
    *_rows(
        "nvgpu.device_async_copy nvgpu.device_async_create_group nvgpu.device_async_wait",
        "special",
        ("f32",),
        note="cp.async (MLIR's nvgpu-to-NVVM conversion)",
        refused=_NVGPU_REFUSED,
    ),
    *_rows("nvgpu.ldmatrix nvgpu.mma.sync", "special", ("f16",), refused=_NVGPU_REFUSED),
    *_rows(
        "linalg.fill linalg.copy linalg.generic",
        "special",
        ("f32",),
        note="on memrefs, through MLIR's convert-linalg-to-loops",
        refused=refused(_NOT_EMBEDDED, "*/llvmlite") | refused(_NOT_OPENCL, "opencl/*"),
    ),
    *_rows(
        "vector.transfer_read vector.transfer_write",
        "special",
        ALL,
        refused=refused(_NOT_EMBEDDED, "*/llvmlite") | refused(_NOT_OPENCL, "opencl/*"),
    ),
    *_rows(
        "vector.shape_cast vector.step vector.from_elements",
        "special",
        ("f32",),
        refused=refused(_NOT_EMBEDDED, "*/llvmlite") | refused(_NOT_OPENCL, "opencl/*"),
    ),
    Row(
        "gpu.all_reduce",
        "special",
        ("f32",),
        refused={
            **refused(_NOT_EMBEDDED, "*/llvmlite"),
            **refused(
                "MLIR 22's ROCDL lowering of it reads the block size through ROCm's ockl",
                "amdgcn/mlir",
            ),
            **refused(_NOT_SPIRV_MLIR, "spirv/mlir"),
            **refused(_NOT_OPENCL, "opencl/*"),
        },
    ),
    *_rows(
        "amdgpu.gather_to_lds amdgpu.lds_barrier amdgpu.raw_buffer_load "
        "amdgpu.raw_buffer_store amdgpu.transpose_load amdgpu.fat_raw_buffer_cast",
        "special",
        ("f16",),
        note="AMD GPUs only (`transpose_load`: the chips that have it)",
        refused={
            **refused(
                "an AMD GPU op: only an AMD target lowers it", "ptx/*", "spirv/*", "opencl/*"
            ),
            **refused(_NOT_EMBEDDED, "amdgcn/llvmlite"),
        },
    ),
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


def columns_of(name: str) -> tuple[str, ...]:
    """The columns that lower the op `name` (every column for a container op)."""
    if name in CONTAINER_OPS:
        return COLUMNS
    row = _BY_NAME.get(name)
    return row.columns if row is not None else ()


def markdown_table() -> str:
    """The contract as docs/coverage.md's Markdown table (ops x columns)."""
    lines = [
        f"| op | element types | {' | '.join(COLUMNS)} | note |",
        f"|---|---|{'---|' * len(COLUMNS)}---|",
    ]
    for row in COVERAGE:
        marks = [_mark(row, column) for column in COLUMNS]
        types = " ".join(t.replace(">", "→") for t in row.types)
        lines.append(f"| `{row.op}` | {types} | {' | '.join(marks)} | {row.note} |")
    return "\n".join(lines) + "\n"


def refusals_table() -> str:
    """What each column refuses, and why, as docs/coverage.md's Markdown table."""
    lines = ["| op | refused on | why |", "|---|---|---|"]
    for target in TARGETS.values():
        for element, why in target.refused_types.items():
            lines.append(f"| every op | {target.name}/* on {element} | {why} |")
    for row in COVERAGE:
        by_reason: dict[str, list[str]] = {}
        for key, why in row.refused.items():
            by_reason.setdefault(why, []).append(key.replace(":", " on "))
        for why, where in by_reason.items():
            lines.append(f"| `{row.op}` | {', '.join(where)} | {why} |")
    return "\n".join(lines) + "\n"


def _mark(row: Row, column: str) -> str:
    if row.refusal(column) is not None:
        return "no"
    missing = [t for t in row.types if row.refusal(column, t) is not None]
    return f"not {' '.join(missing)}" if missing else "yes"


def _place(op: Operation) -> str:
    """Where `op` is: `kernel 'k'`, `function 'f'` (a device function), or `gpu.module
    'm'` for an op outside any function (a global)."""
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, AnyFunction):
        if isinstance(parent, gpu.ModuleOp):
            return f"gpu.module '{parent.sym_name.data}'"
        parent = parent.parent_op()
    if parent is None:
        return "the module"
    kind = "kernel" if is_kernel(parent) else "function"
    return f"{kind} '{parent.sym_name.data}'"


def _element_types(op: Operation) -> set[str]:
    """The element types of the op's operands and results, as the contract names them."""
    names = {element_type_name(v.type) for v in (*op.operands, *op.results)}
    return {name for name in names if name is not None}


def check_coverage(module: ModuleOp, target: TargetDescription, backend: str) -> None:
    """Refuse the first op inside a `gpu.module` that `backend` does not lower for
    `target` (on its element types)."""
    column = f"{target.name}/{backend}"
    for gpu_module in module.walk():
        if not isinstance(gpu_module, gpu.ModuleOp):
            continue
        for op in gpu_module.walk():
            name = op.op_name.data if isinstance(op, UnregisteredOp) else op.name
            _check_types(op, name, target, backend)
            if isinstance(op, memref.AllocOp | memref.AllocaOp) and is_workgroup_type(
                op.memref.type
            ):
                # Per-block storage (gpu_alloc.dialect.memory): neither backend makes it
                # shared memory (an alloca would be each thread's own).
                raise GpuAllocPassError(
                    f"the {backend} {target.backend_name} backend cannot lower workgroup "
                    f"memory made by '{name}' in {_place(op)} (run "
                    "import-gpu-allocs first: it makes it the block's shared memory)",
                    op,
                )
            if name in CONTAINER_OPS:
                continue
            row = row_of(name)
            if row is None:
                # Outside the contract: MLIR may still lower it (its own error if not).
                if backend == "mlir":
                    continue
                why, elements = "outside the coverage contract", ""
            else:
                elements = ""
                why = row.refusal(column)
                if why is None:
                    elements = next(
                        (t for t in sorted(_element_types(op)) if row.refusal(column, t)), ""
                    )
                    why = row.refusal(column, elements) if elements else None
                if why is None:
                    continue
            others = [
                b for b in target.backends if b != backend and _lowers(row, target, b, elements)
            ]
            hint = (
                f"use backend={others[0]}"
                if others
                else f"no {target.backend_name} backend lowers it"
            )
            on = f" on {elements}" if elements else ""
            raise GpuAllocPassError(
                f"the {backend} {target.backend_name} backend cannot lower '{name}'{on} in "
                f"{_place(op)} ({why}; {hint})",
                op,
            )


def _check_types(op: Operation, name: str, target: TargetDescription, backend: str) -> None:
    """Refuse an op on an element type the target has none of."""
    for element in sorted(_element_types(op)):
        why = target.refused_types.get(element)
        if why is not None:
            raise GpuAllocPassError(
                f"the {backend} {target.backend_name} backend cannot lower '{name}' on "
                f"{element} in {_place(op)} ({why})",
                op,
            )


def _lowers(row: Row | None, target: TargetDescription, backend: str, element: str) -> bool:
    if row is None:
        return backend == "mlir"
    return row.refusal(f"{target.name}/{backend}", element or None) is None
