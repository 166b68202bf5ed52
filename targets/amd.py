"""AMD GPUs (`-t amdgcn`): LLVM 22's AMDGPU target and MLIR 22's ROCDL path.

LDS sizes and bank counts are those AMD's Composable Kernel library builds for
(`get_lds_size`, `get_n_lds_banks`: 64 KiB and 32 banks, gfx950 160 KiB and 64 banks),
banks 4 bytes wide; a wave64 access is checked for conflicts 32 lanes at a time on
32-bank chips (AMD's OpenCL optimisation guide: "threads 0 through 31 are checked for
conflicts as are threads 32 through 63"). CDNA chips run wave64, RDNA chips wave32
(LLVM's default for gfx10 and later). The implicit-argument offsets are code object
v5's (`hidden_block_count_x` at 0, `hidden_group_size_x` at 12), the layout LLVM 22's
default code object version 6 keeps.
"""

from __future__ import annotations

from gpu_alloc.targets.description import (
    KIB,
    AddressSpaces,
    BankModel,
    Call,
    Chip,
    Fence,
    Ids,
    ImplicitArgument,
    Intrinsic,
    KernelAbi,
    MaskedLaneCount,
    MathLibrary,
    MlirPipeline,
    TargetDescription,
)

LDS_32_BANKS = BankModel(banks=32, bank_bytes=4, lanes=32)
LDS_64_BANKS = BankModel(banks=64, bank_bytes=4, lanes=64)


def _chip(name: str, lds_kib: int, wave: int, banks: BankModel, isa: str) -> Chip:
    return Chip(name, lds_kib * KIB, wave, banks, isa)


CHIPS = (
    _chip("gfx908", 64, 64, LDS_32_BANKS, "GFX9.0.8 (CDNA 1)"),
    _chip("gfx90a", 64, 64, LDS_32_BANKS, "GFX9.0.10 (CDNA 2)"),
    _chip("gfx942", 64, 64, LDS_32_BANKS, "GFX9.4.2 (CDNA 3)"),
    _chip("gfx950", 160, 64, LDS_64_BANKS, "GFX9.5.0 (CDNA 4)"),
    _chip("gfx1030", 64, 32, LDS_32_BANKS, "GFX10.3.0 (RDNA 2)"),
    _chip("gfx1100", 64, 32, LDS_32_BANKS, "GFX11.0.0 (RDNA 3)"),
    _chip("gfx1200", 64, 32, LDS_32_BANKS, "GFX12.0.0 (RDNA 4)"),
)
"""Chips LLVM 22's AMDGPU target and MLIR 22's ROCDL target compile for."""

_IMPLICIT_ARGUMENTS = "llvm.amdgcn.implicitarg.ptr"
_CONSTANT_SPACE = 4

AMD = TargetDescription(
    name="amdgcn",
    vendor="AMD",
    backend_name="AMDGPU",
    output="AMDGPU assembly",
    triple="amdgcn-amd-amdhsa",
    llvm_features="",
    chips=CHIPS,
    default_chip="gfx942",
    spaces=AddressSpaces(generic=0, global_=1, shared=3, private=5, alloca=5, shared_name="LDS"),
    static_shared_limit=None,
    ids=Ids(
        thread_id=Intrinsic("llvm.amdgcn.workitem.id.{dim}", 32),
        block_id=Intrinsic("llvm.amdgcn.workgroup.id.{dim}", 32),
        block_dim=ImplicitArgument(_IMPLICIT_ARGUMENTS, _CONSTANT_SPACE, 12, 2, 16),
        grid_dim=ImplicitArgument(_IMPLICIT_ARGUMENTS, _CONSTANT_SPACE, 0, 4, 32),
        lane_id=MaskedLaneCount(("llvm.amdgcn.mbcnt.lo", "llvm.amdgcn.mbcnt.hi")),
        subgroup_size=Intrinsic("llvm.amdgcn.wavefrontsize", 32),
    ),
    # `s_barrier` alone orders no memory: release before it, acquire after it, at
    # workgroup scope (what HIP's __syncthreads() is).
    barrier=(
        Fence("release", "workgroup"),
        Call("llvm.amdgcn.s.barrier"),
        Fence("acquire", "workgroup"),
    ),
    abi=KernelAbi(
        kernel_calling_convention="amdgpu_kernel",
        function_calling_convention="",
        function_linkage="internal",
    ),
    math=MathLibrary(
        naming="suffix",
        prefix="__ocml_",
        suffixes={"f32": "_f32", "f64": "_f64"},
        renamed={"powf": "pow", "fpowi": "pown"},
        files=(
            "ocml.bc",
            "oclc_finite_only_off.bc",
            "oclc_unsafe_math_off.bc",
            "oclc_daz_opt_off.bc",
            "oclc_correctly_rounded_sqrt_on.bc",
        ),
        chip_files=("oclc_isa_version_{isa}.bc", "oclc_wavefrontsize64_{wave}.bc"),
        finder="rocm",
        needs=(
            "ROCm's device libraries (ocml.bc; Debian/Ubuntu: apt-get install "
            "rocm-device-libs, or set GPU_ALLOC_ROCM_DEVICE_LIBS to their amdgcn/bitcode folder)"
        ),
    ),
    mlir=MlirPipeline(
        passes=(
            "--convert-scf-to-cf",
            "--expand-strided-metadata",
            "--lower-affine",
            "--convert-amdgpu-to-rocdl=chipset={chip}",
            "--convert-gpu-to-rocdl=chipset={chip} index-bitwidth=64",
            "--rocdl-attach-target=chip={chip}{wave}",
            # the vector lowering's memref descriptors meet ROCDL's numbered spaces
            "--reconcile-unrealized-casts",
            "--gpu-module-to-binary=format=isa",
        ),
        device_code_only=True,
        kernel_attribute="rocdl.kernel",
        numbered_spaces=True,
        # MLIR 22's ROCDL lowering puts a private attribution's alloca in address space 5
        # and its descriptor in the attribution's space: a spelled private space or none
        # (MLIR's default for private attributions) fails its verifier. Handed as the
        # allocas and shared globals they stand for, attributions lower as everywhere.
        attributions_as_buffers=True,
        # MLIR 22's ROCDL lowering reads these through ockl (__ockl_get_local_size, ...),
        # a ROCm device library.
        prelowered_ids=("block_dim", "grid_dim"),
        wave_options={32: " wave64=false", 64: ""},
    ),
    symbol_pattern=r"[A-Za-z_.$][A-Za-z0-9_.$]*",
    # ds_read_tr: MLIR 22 refuses it on any other chip ("Non-gfx950 chipset not supported")
    chip_only_ops={"amdgpu.transpose_load": ("gfx950",)},
    driver="gpu_alloc.lowering.amdgcn.target:AmdgcnTarget",
    tool_check="gpu_alloc.lowering.tool_checks:amdgpu_check",
    mlir_target_attributes=("rocdl.target",),
    mlir_default_chip="gfx900",
)
