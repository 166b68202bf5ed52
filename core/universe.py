"""Registers the gpu_alloc dialect, passes and targets (`ptx`, `amdgcn`, `spirv`) with xDSL
(`xdsl.universe` entry point), and the `mlir-gpu` frontend (`xdsl-opt -f mlir-gpu`: MLIR's
`gpu`/`memref` syntax)."""

from __future__ import annotations

from collections.abc import Callable

from gpu_alloc import stock_driver as _stock_driver
from gpu_alloc import xdsl_fixes
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
    from gpu_alloc.dialect.mlir_nvgpu import NVGPU

    return NVGPU


def _amdgpu() -> Dialect:
    from gpu_alloc.dialect.mlir_amdgpu import AMDGPU

    return AMDGPU


def _index() -> Dialect:
    from gpu_alloc.dialect.mlir_index import INDEX

    return INDEX


def _mlir_gpu() -> Dialect:
    from gpu_alloc.dialect.mlir_gpu_kernels import MLIR_GPU

    return MLIR_GPU


def _mlir_memref() -> Dialect:
    from gpu_alloc.dialect.mlir_memref import MLIR_MEMREF

    return MLIR_MEMREF


def _mlir_scf() -> Dialect:
    from gpu_alloc.dialect.mlir_scf import MLIR_SCF

    return MLIR_SCF


def _mlir_affine() -> Dialect:
    from gpu_alloc.dialect.mlir_affine import MLIR_AFFINE

    return MLIR_AFFINE


def _mlir_vector() -> Dialect:
    from gpu_alloc.dialect.mlir_vector import MLIR_VECTOR

    return MLIR_VECTOR


xdsl_fixes.apply()  # `xdsl-opt` loads this module before it parses anything

MLIR_SYNTAX_DIALECTS: dict[str, Callable[[], Dialect]] = {
    "affine": _mlir_affine,
    "gpu": _mlir_gpu,
    "memref": _mlir_memref,
    "scf": _mlir_scf,
    "vector": _mlir_vector,
}
"""xDSL dialects replaced by ones that also read MLIR's custom syntax (`gpu-alloc-opt`,
`gpu-alloc-sim`); stock `xdsl-opt` keeps xDSL's built-in ones, which read generic form only."""


def register_dialects(ctx: Context) -> None:
    """Registers every dialect xDSL and its plugins know, with MLIR's `gpu` and `memref`
    syntax (`MLIR_SYNTAX_DIALECTS`) in place of xDSL's."""
    for name, factory in Universe.get_multiverse().all_dialects.items():
        ctx.register_dialect(name, MLIR_SYNTAX_DIALECTS.get(name, factory))


def _import() -> type[ModulePass]:
    from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass

    return ImportGpuAllocsPass


def _fuse() -> type[ModulePass]:
    from gpu_alloc.transforms.fuse_gpu_allocs import FuseGpuAllocsPass

    return FuseGpuAllocsPass


def _flatten() -> type[ModulePass]:
    from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass

    return FlattenAliasesPass


def _remove_dead() -> type[ModulePass]:
    from gpu_alloc.transforms.remove_dead_allocs import RemoveDeadAllocsPass

    return RemoveDeadAllocsPass


def _partition() -> type[ModulePass]:
    from gpu_alloc.transforms.partition_loops import PartitionLoopsPass

    return PartitionLoopsPass


def _stripe() -> type[ModulePass]:
    from gpu_alloc.transforms.stripe_lane_allocs import StripeLaneAllocsPass

    return StripeLaneAllocsPass


def _pad() -> type[ModulePass]:
    from gpu_alloc.transforms.pad_shared_allocs import PadSharedAllocsPass

    return PadSharedAllocsPass


def _lower() -> type[ModulePass]:
    from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass

    return LowerGpuAllocsPass


def _ptx_target() -> type[Target]:
    from gpu_alloc.lowering.ptx import PtxTarget

    return PtxTarget


def _amdgcn_target() -> type[Target]:
    from gpu_alloc.lowering.amdgcn import AmdgcnTarget

    return AmdgcnTarget


def _spirv_target() -> type[Target]:
    from gpu_alloc.lowering.spirv import SpirvTarget

    return SpirvTarget


def _opencl_target() -> type[Target]:
    from gpu_alloc.lowering.opencl import OpenClTarget

    return OpenClTarget


ALL_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "import-gpu-allocs": _import,
    "fuse-gpu-allocs": _fuse,
    "flatten-aliases": _flatten,
    "remove-dead-allocs": _remove_dead,
    "partition-loops": _partition,
    "stripe-lane-allocs": _stripe,
    "pad-shared-allocs": _pad,
    "lower-gpu-allocs": _lower,
}


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
    all_targets={
        "ptx": _ptx_target,
        "amdgcn": _amdgcn_target,
        "spirv": _spirv_target,
        "opencl": _opencl_target,
    },
    all_frontends={"mlir-gpu": _mlir_gpu_frontend},
)

_stock_driver.install()  # located errors under the stock xdsl-opt (see gpu_alloc.stock_driver)
