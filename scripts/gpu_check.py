"""Run each example's PTX on an NVIDIA GPU and compare its outputs with the simulator's.

    python scripts/gpu_check.py [--backend llvmlite|mlir] [--variant fused|unfused]
                                [--seed N] [--dry-run] [examples/X.mlir ...]

For every example kernel, variant (fused: fuse-gpu-allocs + flatten-aliases +
lower-gpu-allocs; unfused: lower-gpu-allocs alone) and backend, the script

1. runs the original kernel in `gpu-alloc-sim` (`gpu_alloc.sim.launch.simulate`) on
   seeded inputs;
2. makes the same inputs with `seeded_arguments` (the simulator's convention, below),
   emits the PTX and runs it with `gpu-alloc-run --runtime cuda` (`gpu_alloc.tools.cuda_run`),
   which loads it with the CUDA driver (`cuda-bindings`, `pip install
   cuda-python`), launches it on the same grid with MLIR's kernel ABI (each memref an
   expanded descriptor: allocated pointer, aligned pointer, offset, sizes, strides; the
   heap buffer, zero-filled, `gpu_alloc.heap_bytes_per_block` x blocks bytes; a
   kernel's `gpu_alloc.dynamic_shared_bytes` as the launch's dynamic shared memory,
   with the `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` opt-in
   (`cudaFuncAttributeMaxDynamicSharedMemorySize`) above 48 KiB), and
3. compares every memref argument after the launch with the simulator's (integers
   exactly; floats to 1e-5 relative).

Seeding convention (shared with the simulator, `gpu_alloc/sim/launch.py`): the i-th
memref argument of the kernel that is not a heap backing gets its values from
`numpy.random.default_rng([seed, i])`: integers uniform in [-64, 64), `index` in
[0, 64), `i1` in {0, 1}, floats uniform in [-8, 8), drawn with the same calls.

`--dry-run` does everything but the GPU (simulator, PTX, argument packing), so the
script can be checked on a machine without one. The tests never need a GPU.
Exit status: 0 all equal, 1 a difference, 2 no GPU or no cuda-bindings.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from gpu_alloc.dialect import heap_bytes_per_block, is_heap_argument_type
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering import LowerGpuAllocsPass
from gpu_alloc.lowering.ptx.target import emit_ptx
from gpu_alloc.targets.nvidia import STATIC_SHARED_LIMIT
from gpu_alloc.tools.cuda_run import CudaDevice, Unavailable, dynamic_shared_bytes
from gpu_alloc.tools.cuda_run import descriptor_fields as _descriptor_fields
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass
from xdsl.context import Context
from xdsl.dialects import gpu
from xdsl.dialects.builtin import (
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.universe import Universe

ROOT = Path(__file__).resolve().parent.parent

# Grid and block of each example, as their header comments state.
LAUNCHES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "stencil_chain.mlir": ((8, 8, 1), (16, 16, 1)),
    "mixed_types.mlir": ((4, 1, 1), (64, 1, 1)),
    "heap_scratch.mlir": ((4, 1, 1), (128, 1, 1)),
}

VARIANTS: dict[str, tuple[type[ModulePass], ...]] = {
    "fused": (FuseGpuAllocsPass, FlattenAliasesPass, LowerGpuAllocsPass),
    "unfused": (LowerGpuAllocsPass,),
}

RANDOM_INT_RANGE = (-64, 64)
RANDOM_INDEX_RANGE = (0, 64)
RANDOM_FLOAT_RANGE = (-8.0, 8.0)


def _context() -> Context:
    ctx = Context()
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, factory)
    return ctx


def _kernel(module: ModuleOp) -> gpu.FuncOp:
    kernels = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    if len(kernels) != 1:
        raise SystemExit("gpu_check: each example must hold exactly one kernel")
    return kernels[0]


def _dtype(element: Attribute) -> np.dtype:
    if isinstance(element, IndexType):
        return np.dtype(np.int64)
    if isinstance(element, IntegerType):
        width = element.width.data
        return np.dtype(np.bool_) if width == 1 else np.dtype(f"int{width}")
    for float_type, dtype in (
        (Float16Type, np.float16),
        (Float32Type, np.float32),
        (Float64Type, np.float64),
    ):
        if isinstance(element, float_type):
            return np.dtype(dtype)
    raise SystemExit(f"gpu_check: unsupported element type {element}")


def _is_heap_argument(func: gpu.FuncOp, memref_type: MemRefType) -> bool:
    return heap_bytes_per_block(func) is not None and is_heap_argument_type(memref_type)


def seeded_arguments(kernel: gpu.FuncOp, seed: int) -> list[np.ndarray | None]:
    """The simulator's inputs: one array per user memref argument, None for the others."""
    arrays: list[np.ndarray | None] = []
    user_index = 0
    for argument_type in kernel.function_type.inputs.data:
        if not isinstance(argument_type, MemRefType) or _is_heap_argument(kernel, argument_type):
            arrays.append(None)
            continue
        rng = np.random.default_rng([seed, user_index])
        user_index += 1
        shape = argument_type.get_shape()
        dtype = _dtype(argument_type.element_type)
        if dtype == np.bool_:
            arrays.append(rng.integers(0, 2, shape).astype(np.bool_))
        elif dtype.kind == "i":
            low, high = (
                RANDOM_INDEX_RANGE
                if isinstance(argument_type.element_type, IndexType)
                else RANDOM_INT_RANGE
            )
            arrays.append(rng.integers(low, high, shape).astype(dtype))
        else:
            arrays.append(rng.uniform(*RANDOM_FLOAT_RANGE, shape).astype(dtype))
    return arrays


@dataclass
class Case:
    example: Path
    variant: str
    backend: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]


def _simulate(
    example: Path, grid: Sequence[int], block: Sequence[int], seed: int
) -> list[np.ndarray]:
    from gpu_alloc.sim.launch import simulate
    from gpu_alloc.tools.sim_loading import load_module

    result = simulate(load_module(str(example)), grid=grid, block=block, seed=seed)
    return [argument.array for argument in result.arguments]


def _device_arguments(
    lowered: gpu.FuncOp, inputs: list[np.ndarray | None], grid: tuple[int, int, int]
) -> tuple[list[np.ndarray], list[tuple[int, ...]]]:
    arrays: list[np.ndarray] = []
    shapes: list[tuple[int, ...]] = []
    for position, argument_type in enumerate(lowered.function_type.inputs.data):
        if not isinstance(argument_type, MemRefType):
            raise SystemExit("gpu_check: scalar kernel arguments are not supported")
        given = inputs[position] if position < len(inputs) else None
        if given is None:
            per_block = heap_bytes_per_block(lowered)
            if per_block is None:
                raise SystemExit("gpu_check: a heap argument without heap_bytes_per_block")
            given = np.zeros(per_block * grid[0] * grid[1] * grid[2], dtype=np.int8)
        arrays.append(np.ascontiguousarray(given))
        shapes.append(tuple(given.shape))
    return arrays, shapes


def _equal(expected: np.ndarray, actual: np.ndarray) -> tuple[bool, str]:
    if expected.dtype.kind == "f":
        equal = bool(np.allclose(actual, expected, rtol=1e-5, atol=1e-6))
        worst = (
            float(np.max(np.abs(actual.astype(np.float64) - expected))) if expected.size else 0.0
        )
        return equal, f"max |diff| {worst:.3g}"
    mismatches = int(np.count_nonzero(actual != expected))
    return mismatches == 0, f"{mismatches} of {expected.size} elements differ"


def check(case: Case, seed: int, device: CudaDevice | None) -> bool:
    source = case.example.read_text()
    ctx = _context()
    original = Parser(ctx, source).parse_module()
    inputs = seeded_arguments(_kernel(original), seed)
    lowered = Parser(ctx, source).parse_module()
    label = f"{case.example.name} {case.variant} {case.backend}"
    try:
        for pass_type in VARIANTS[case.variant]:
            pass_type().apply(ctx, lowered)
    except GpuAllocPassError as error:
        print(f"{label}: skipped ({error.message})")
        return True
    kernel = _kernel(lowered)
    ptx = emit_ptx(lowered, backend=case.backend)
    arrays, shapes = _device_arguments(kernel, inputs, case.grid)
    expected = _simulate(case.example, case.grid, case.block, seed)
    user_inputs = [a for a in inputs if a is not None]
    # Read-only inputs come back from the simulator unchanged: if none equals ours, the
    # seeding convention has drifted from the simulator's.
    same_inputs = sum(
        1 for want, given in zip(expected, user_inputs, strict=True) if np.array_equal(want, given)
    )
    if same_inputs == 0:
        print(f"{label}: seeded inputs differ from the simulator's (seeding convention drifted)")
        return False
    if device is None:
        fields = len(_descriptor_fields([0] * len(arrays), shapes))
        dynamic = dynamic_shared_bytes(kernel)
        opt_in = " (max dynamic shared size opt-in set)" if dynamic > STATIC_SHARED_LIMIT else ""
        print(
            f"{label}: dry run: {len(ptx.splitlines())} PTX lines, {fields} parameters, "
            f"{len(expected)} simulated arguments, {same_inputs} unchanged inputs match, "
            f"{dynamic} bytes dynamic shared{opt_in}"
        )
        return True
    results = _run_on_gpu(lowered, case, seed, len(user_inputs))
    ok = True
    for index, (want, got) in enumerate(zip(expected, results[: len(user_inputs)], strict=True)):
        equal, detail = _equal(want, got)
        ok &= equal
        print(f"{label}: argument {index}: {'equal' if equal else 'DIFFERENT'} ({detail})")
    return ok


def _run_on_gpu(lowered: ModuleOp, case: Case, seed: int, count: int) -> list[np.ndarray]:
    """`gpu-alloc-run --runtime cuda` on the variant: the memref arguments it saved."""
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "variant.mlir"
        path.write_text(str(lowered))
        out = Path(directory) / "out"
        command = [
            str(Path(sys.executable).parent / "gpu-alloc-run"),
            str(path),
            "--runtime",
            "cuda",
            "--backend",
            case.backend,
            "--grid",
            ",".join(map(str, case.grid)),
            "--block",
            ",".join(map(str, case.block)),
            "--seed",
            str(seed),
            "--out",
            str(out),
        ]
        ran = subprocess.run(command, capture_output=True, text=True, check=False)
        if ran.returncode != 0:
            raise SystemExit(f"gpu_check: {ran.stderr.strip()}")
        names = [line.split()[0] for line in ran.stdout.splitlines()][:count]
        return [np.load(out / f"{name}.npy") for name in names]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("examples", nargs="*", help="example files (default: examples/*.mlir)")
    parser.add_argument("--backend", choices=("llvmlite", "mlir"), action="append")
    parser.add_argument("--variant", choices=tuple(VARIANTS), action="append")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dry-run", action="store_true", help="everything but the GPU")
    options = parser.parse_args(argv)
    examples = [Path(p) for p in options.examples] or sorted((ROOT / "examples").glob("*.mlir"))
    device = None
    if not options.dry_run:
        try:
            device = CudaDevice()
        except Unavailable as error:
            print(f"gpu_check: {error}", file=sys.stderr)
            return 2
        print(f"gpu_check: device {device.name}")
    ok = True
    for example in examples:
        if example.name not in LAUNCHES:
            print(f"{example.name}: skipped (no launch configuration in gpu_check.LAUNCHES)")
            continue
        grid, block = LAUNCHES[example.name]
        for variant in options.variant or list(VARIANTS):
            for backend in options.backend or ["llvmlite", "mlir"]:
                ok &= check(Case(example, variant, backend, grid, block), options.seed, device)
    return 0 if ok else 1


if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    sys.exit(main())
