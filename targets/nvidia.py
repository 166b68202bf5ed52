"""NVIDIA GPUs through PTX (`-t ptx`): LLVM 22's NVPTX target and MLIR 22's NVVM pipeline."""

from __future__ import annotations

from gpu_alloc.targets.description import (
    KIB,
    AddressSpaces,
    BankModel,
    Call,
    Chip,
    Ids,
    Intrinsic,
    KernelAbi,
    MathLibrary,
    MlirPipeline,
    TargetDescription,
)

WARP = 32
BANKS = BankModel(banks=32, bank_bytes=4, lanes=WARP)
"""32 banks of 4 bytes, conflicts counted per warp (every chip since sm_50)."""

STATIC_SHARED_LIMIT = 48 * KIB
"""Static (`.shared` global) bytes a PTX kernel may declare; more needs dynamic shared
memory and the launch's `cudaFuncAttributeMaxDynamicSharedMemorySize` opt-in."""


def _chip(name: str, shared_kib: int, min_ptx_version: int) -> Chip:
    return Chip(name, shared_kib * KIB, WARP, BANKS, name, min_ptx_version)


CHIPS = (
    _chip("sm_50", 48, 40),
    _chip("sm_52", 48, 41),
    _chip("sm_53", 48, 42),
    _chip("sm_60", 48, 50),
    _chip("sm_61", 48, 50),
    _chip("sm_62", 48, 50),
    _chip("sm_70", 96, 60),
    _chip("sm_72", 96, 61),
    _chip("sm_75", 64, 63),
    _chip("sm_80", 163, 70),
    _chip("sm_86", 99, 71),
    _chip("sm_87", 163, 74),
    _chip("sm_89", 99, 78),
    _chip("sm_90", 227, 78),
    _chip("sm_90a", 227, 80),
    _chip("sm_100", 227, 86),
    _chip("sm_120", 99, 87),
)
"""Chips LLVM 22's NVPTX target (both backends) compiles for, and the shared memory one
block may use (with the opt-in above 48 KiB)."""

PTX_VERSIONS = (
    *(32, 40, 41, 42, 43, 50, 60, 61, 62, 63, 64, 65),
    *(70, 71, 72, 73, 74, 75, 76, 77, 78),
    *(80, 81, 82, 83, 84, 85, 86, 87, 88),
)
"""PTX ISA versions (times ten) that LLVM 22's NVPTX target emits."""


BASELINE = Chip("", STATIC_SHARED_LIMIT, WARP, BANKS, "any sm_XX")
"""What every NVIDIA chip allows: the limits a pass uses when no target or chip is named."""


def _register(name: str) -> Intrinsic:
    return Intrinsic(f"llvm.nvvm.read.ptx.sreg.{name}", 32)


NVIDIA = TargetDescription(
    name="ptx",
    vendor="NVIDIA",
    backend_name="PTX",
    output="PTX",
    triple="nvptx64-nvidia-cuda",
    llvm_features="+ptx{isa_version}",
    chips=CHIPS,
    default_chip="sm_90",
    spaces=AddressSpaces(generic=0, global_=1, shared=3, private=5, alloca=0, shared_name="shared"),
    static_shared_limit=STATIC_SHARED_LIMIT,
    ids=Ids(
        thread_id=_register("tid.{dim}"),
        block_id=_register("ctaid.{dim}"),
        block_dim=_register("ntid.{dim}"),
        grid_dim=_register("nctaid.{dim}"),
        lane_id=_register("laneid"),
        subgroup_size=_register("warpsize"),
    ),
    # LLVM 21+ spelling of `bar.sync 0` (`llvm.nvvm.barrier0` is gone); it orders every
    # memory access of the block's threads.
    barrier=(Call("llvm.nvvm.barrier.cta.sync.aligned.all", (0,)),),
    abi=KernelAbi(kernel_calling_convention="ptx_kernel", function_calling_convention=""),
    math=MathLibrary(
        naming="suffix",
        prefix="__nv_",
        suffixes={"f32": "f", "f64": ""},
        renamed={"powf": "pow", "fpowi": "powi"},
        files=("libdevice.10.bc",),
        finder="cuda",
        needs="libdevice.10.bc (NVIDIA's math library)",
    ),
    mlir=MlirPipeline(
        passes=(
            # nvgpu (async copies, ldmatrix, mma.sync, mbarriers, TMA), which MLIR 22's
            # NVVM pipeline does not lower itself
            "--convert-nvgpu-to-nvvm",
            "--gpu-lower-to-nvvm-pipeline=cubin-chip={chip} "
            "cubin-features=+ptx{isa_version} cubin-format=isa",
        ),
        library_option="--nvvm-attach-target=chip={chip} features=+ptx{isa_version} l={library}",
        kernel_attribute="nvvm.kernel",
    ),
    isa_versions=PTX_VERSIONS,
    default_isa_version=80,
    isa_version_unit="PTX ISA x10",
    isa_version_option="ptx_version",
    symbol_pattern=r"[A-Za-z][A-Za-z0-9_$]*|[_$%][A-Za-z0-9_$]+",
    comment="//",
    dynamic_shared_opt_in="cudaFuncAttributeMaxDynamicSharedMemorySize",
    driver="gpu_alloc.lowering.ptx.target:PtxTarget",
    tool_check="gpu_alloc.lowering.tool_checks:ptxas_check",
    mlir_target_attributes=("nvvm.target",),
    mlir_default_chip="sm_50",
)
