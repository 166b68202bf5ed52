"""The public Python API of gpu_alloc, in one import (documented in docs/api.md).

    from gpu_alloc.api import register, parse, fuse, FlattenAliasesPass, simulate, emit_ptx

- Setting up: `register(ctx)` loads every dialect xDSL and its plugins know into an xDSL
  `Context`, with MLIR's syntax for `gpu` and `memref` (what `gpu-alloc-opt` reads);
  `parse(text)` parses and verifies MLIR text with it. Neither changes anything in xDSL;
  `gpu_alloc.xdsl_fixes.apply()`, once at a program's start, installs the fixes of
  xDSL 0.75's bugs that the project's tools install (docs/xdsl-upstream.md).
- Passes: every pass class of the project (`PASSES` by name); each is a frozen dataclass
  `ModulePass` whose fields are its options.
- Fusion as data: `fuse(module)` runs `fuse-gpu-allocs` and returns a `FusionResult`;
  `fusion_result(module)` reads the same result back from fused (or fused and flattened) IR.
- Running kernels: `simulate(module, grid=..., block=..., arrays=...)` on your numpy arrays.
- PTX: `emit_ptx(module, chip=...)`, `emit_ptx_modules`, and CUDA's assembler as a check:
  `assemble(ptx, chip)` (`ptxas -v`: registers and shared bytes per kernel), `have_ptxas()`.
- AMD and SPIR-V: `emit_amdgcn(module, chip=...)` (AMDGPU assembly), `emit_spirv(module)`
  (the binary), `emit_spirv_assembly`; each target's own tools as a check:
  `shared_bytes_by_tool(text, device, isa_version)`.
- Targets as data: `TARGETS` (`ptx`, `amdgcn`, `spirv`), `resolve(target, chip)` (a
  `Device`: shared bytes per block, wave size, bank model, static-shared limit).
- Errors: a pass's user error is a `GpuAllocPassError` (its `op` is the op it is about); the
  module is then exactly as it was.

Nothing here is defined twice: each name is the project's own object, re-exported.
"""

from __future__ import annotations

from typing import Any

from gpu_alloc.errors import GpuAllocPassError, UserInputError
from gpu_alloc.lowering.amdgcn.target import AmdgcnTarget, emit_amdgcn, emit_amdgcn_modules
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.lowering.ptx.ptxas import KernelResources, PtxasError, assemble
from gpu_alloc.lowering.ptx.target import PtxTarget, emit_ptx, emit_ptx_modules
from gpu_alloc.lowering.spirv.target import (
    SpirvTarget,
    emit_spirv,
    emit_spirv_assembly,
    emit_spirv_modules,
)
from gpu_alloc.lowering.tool_checks import shared_bytes_by_tool
from gpu_alloc.lowering.toolchain import ToolchainError, have_mlir_opt, have_ptxas
from gpu_alloc.passes import PASSES as _PASSES
from gpu_alloc.sim import SimulationError, SimulationResult, simulate
from gpu_alloc.targets import TARGETS, Device, TargetOptionError, resolve
from gpu_alloc.transforms.flatten_aliases import FlattenAliasesPass
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import FuseGpuAllocsPass
from gpu_alloc.transforms.fuse.result import (
    FuncPlacement,
    FusionResult,
    KernelFusion,
    SpaceFusion,
    from_reports,
    read_fusion_result,
)
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.transforms.pad_shared_allocs import PadSharedAllocsPass
from gpu_alloc.transforms.partition_loops import PartitionLoopsPass
from gpu_alloc.transforms.remove_dead_allocs import RemoveDeadAllocsPass
from gpu_alloc.transforms.stripe_lane_allocs import StripeLaneAllocsPass
from gpu_alloc.universe import register_dialects
from gpu_alloc.version import __version__
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

PASSES: dict[str, type[ModulePass]] = {p.name: p.load() for p in _PASSES}
"""Every pass of the project by its command-line name, in pipeline order."""


def register(ctx: Context | None = None) -> Context:
    """Loads into `ctx` (a new `Context` if None) every dialect xDSL and its plugins know,
    this package's `gpu_alloc` included, with MLIR's custom syntax for `gpu` and `memref`
    (`gpu.module @k {`, `gpu.func ... kernel workgroup(...)`, `#gpu.address_space<...>`),
    as `gpu-alloc-opt` does. Dialects are loaded lazily, on first use. Returns `ctx`."""
    ctx = Context() if ctx is None else ctx
    register_dialects(ctx)
    return ctx


def parse(text: str, ctx: Context | None = None, file_name: str = "<string>") -> ModuleOp:
    """Parses MLIR text (generic or custom form) and verifies it, as every tool reads
    its input (`gpu_alloc.tools.reader`: the MLIR bridge through `mlir-opt-22` for what
    the embedded parser cannot read).

    Raises `UserInputError` for bad input, its message the one located line
    (`file:line:col: error: ...`) `gpu-alloc-opt` prints."""
    from gpu_alloc.tools.reader import read

    return read(register(ctx), text, file_name, tool="gpu_alloc.api.parse")[0]


def fuse(module: ModuleOp, **options: Any) -> FusionResult:
    """Runs `fuse-gpu-allocs` on `module` in place, exactly as the pass (barrier insertion,
    remarks and all), and returns what it did. `options` are the pass's fields
    (`alignment=16`, `max_shared_bytes=...`, `chip="sm_90"`, `insert_barriers="always"`, ...).
    Raises `GpuAllocPassError` (the module unchanged) for what the pass refuses."""
    return from_reports(FuseGpuAllocsPass(**options).run(module))


def fusion_result(module: ModuleOp) -> FusionResult:
    """The fusion result recorded in IR that `fuse-gpu-allocs` produced, before or after
    `flatten-aliases` (not after lowering): what `fuse` returned, except that Funcs with a
    run-time offset or size are missing, hand-written backings are listed too, and in
    kernels with loops the stage intervals (derived from the aliases) can differ."""
    return read_fusion_result(module)


__all__ = [
    "PASSES",
    "TARGETS",
    "AmdgcnTarget",
    "Device",
    "SpirvTarget",
    "emit_amdgcn",
    "emit_amdgcn_modules",
    "emit_spirv",
    "emit_spirv_assembly",
    "emit_spirv_modules",
    "resolve",
    "shared_bytes_by_tool",
    "FlattenAliasesPass",
    "FuncPlacement",
    "FuseGpuAllocsPass",
    "FusionResult",
    "GpuAllocPassError",
    "UserInputError",
    "ImportGpuAllocsPass",
    "KernelFusion",
    "KernelResources",
    "LowerGpuAllocsPass",
    "PadSharedAllocsPass",
    "PartitionLoopsPass",
    "PtxTarget",
    "PtxasError",
    "RemoveDeadAllocsPass",
    "SimulationError",
    "SimulationResult",
    "SpaceFusion",
    "StripeLaneAllocsPass",
    "TargetOptionError",
    "ToolchainError",
    "__version__",
    "assemble",
    "emit_ptx",
    "emit_ptx_modules",
    "fuse",
    "fusion_result",
    "have_mlir_opt",
    "have_ptxas",
    "parse",
    "register",
    "simulate",
]
