"""Registers the gpu_alloc dialect, passes and targets (every one of `TARGETS`) with xDSL
(`xdsl.universe` entry point), and the `mlir-gpu` frontend (`xdsl-opt -f mlir-gpu`: MLIR's
`gpu`/`memref` syntax)."""

from __future__ import annotations

import functools
from collections.abc import Callable

from gpu_alloc import stock_driver as _stock_driver
from gpu_alloc.passes import PASSES
from xdsl.context import Context
from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target


def _dialect() -> Dialect:
    from gpu_alloc.dialect import GpuAlloc

    return GpuAlloc


def _nvgpu() -> Dialect:
    from gpu_alloc.syntax.mlir_nvgpu import NVGPU

    return NVGPU


def _amdgpu() -> Dialect:
    from gpu_alloc.syntax.mlir_amdgpu import AMDGPU

    return AMDGPU


def _index() -> Dialect:
    from gpu_alloc.syntax.mlir_index import INDEX

    return INDEX


def _mlir_gpu() -> Dialect:
    from gpu_alloc.syntax.mlir_gpu_kernels import MLIR_GPU

    return MLIR_GPU


def _mlir_llvm() -> Dialect:
    from gpu_alloc.syntax.mlir_llvm import MLIR_LLVM

    return MLIR_LLVM


def _mlir_memref() -> Dialect:
    from gpu_alloc.syntax.mlir_memref import MLIR_MEMREF

    return MLIR_MEMREF


def _mlir_scf() -> Dialect:
    from gpu_alloc.syntax.mlir_scf import MLIR_SCF

    return MLIR_SCF


def _mlir_affine() -> Dialect:
    from gpu_alloc.syntax.mlir_affine import MLIR_AFFINE

    return MLIR_AFFINE


def _mlir_vector() -> Dialect:
    from gpu_alloc.syntax.mlir_vector import MLIR_VECTOR

    return MLIR_VECTOR


MLIR_SYNTAX_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "affine": _mlir_affine,
    "gpu": _mlir_gpu,
    "llvm": _mlir_llvm,
    "memref": _mlir_memref,
    "scf": _mlir_scf,
    "vector": _mlir_vector,
}
"""xDSL dialects replaced by ones that also read MLIR's custom syntax (`gpu-alloc-opt`,
`gpu-alloc-sim`); stock `xdsl-opt` keeps xDSL's built-in ones, which read generic form only."""


def register_dialects(ctx: Context) -> None:
    """Registers every dialect xDSL and its plugins know, with MLIR's `gpu` and `memref`
    syntax (`MLIR_SYNTAX_DIALECTS`) in place of xDSL's. A dialect `ctx` already holds (a
    caller's own, or one an earlier call registered) is kept as it is."""
    held = set(ctx.registered_dialect_names)
    for name, factory in Universe.get_multiverse().all_dialects.items():
        if name not in held:
            ctx.register_dialect(name, MLIR_SYNTAX_DIALECTS.get(name, factory))


def target_entries() -> dict[str, Callable[[], type[Target]]]:
    """Every target of `gpu_alloc.targets.TARGETS` by its `-t` name, each loading the
    driver its description names (`driver`, through `gpu_alloc.plugins`) on first use."""
    from gpu_alloc.plugins import loaded
    from gpu_alloc.targets import TARGETS

    return {
        name: functools.partial(loaded, target.driver)
        for name, target in TARGETS.items()
        if target.driver
    }


ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {p.name: p.load for p in PASSES}
"""Every pass of `gpu_alloc.passes.PASSES`, loaded on first use."""


def _mlir_gpu_frontend() -> type[Frontend]:
    from gpu_alloc.tools.stock_xdsl_opt import MlirGpuFrontend

    return MlirGpuFrontend


GPU_ALLOC_UNIVERSE = Universe(
    all_dialects={
        "gpu_alloc": _dialect,
        "nvgpu": _nvgpu,
        "amdgpu": _amdgpu,
        "index": _index,
    },
    all_passes=ALL_PASSES,
    all_targets=target_entries(),
    all_frontends={"mlir-gpu": _mlir_gpu_frontend},
)

_stock_driver.install()  # located errors under the stock xdsl-opt (see gpu_alloc.stock_driver)
