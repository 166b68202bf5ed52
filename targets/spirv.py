"""OpenCL kernels in SPIR-V (`-t spirv`): LLVM 22's SPIR-V target, and MLIR 22's
`convert-gpu-to-llvm-spv` lowering for `backend=mlir`.

Global memory is the CrossWorkgroup storage class (LLVM address space 1, also for a
memref without a memory space: an OpenCL kernel's buffers), shared memory Workgroup
(3), private memory Function (0). The ids, the sub-group queries and the barrier are
OpenCL C builtins (Itanium-mangled), which LLVM's SPIR-V target turns into SPIR-V
built-in variables and `OpControlBarrier`; math ops are OpenCL builtins too, which it
turns into `OpenCL.std` extended instructions, so no library is linked.

SPIR-V leaves the sub-group size and the banks of Workgroup memory to the device, and
the Workgroup bytes a block may use too: `generic` is what every OpenCL 1.2+ full-profile
device provides (`CL_DEVICE_LOCAL_MEM_SIZE` of at least 32 KiB).
"""

from __future__ import annotations

from gpu_alloc.targets.description import (
    KIB,
    AddressSpaces,
    Call,
    Chip,
    Ids,
    Intrinsic,
    KernelAbi,
    MathLibrary,
    MlirPipeline,
    TargetDescription,
)

GENERIC = Chip("generic", 32 * KIB, None, None, "OpenCL 1.2 full profile", llvm_cpu="")

CLK_LOCAL_AND_GLOBAL_MEM_FENCE = 3
"""`barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)`: a `gpu.barrier` orders the
block's heap (global) accesses too."""


def _builtin(name: str, bits: int = 64, per_dimension: bool = True) -> Intrinsic:
    return Intrinsic(name, bits, dimension_argument=per_dimension)


SPIRV = TargetDescription(
    name="spirv",
    vendor="Khronos",
    backend_name="SPIR-V",
    output="SPIR-V assembly",
    triple="spirv64v{isa_version_dotted}-unknown-unknown",
    llvm_features="",
    chips=(GENERIC,),
    default_chip="generic",
    spaces=AddressSpaces(
        generic=1, global_=1, shared=3, private=0, alloca=0, shared_name="Workgroup"
    ),
    static_shared_limit=None,
    ids=Ids(
        thread_id=_builtin("_Z12get_local_idj"),
        block_id=_builtin("_Z12get_group_idj"),
        block_dim=_builtin("_Z14get_local_sizej"),
        grid_dim=_builtin("_Z14get_num_groupsj"),
        lane_id=_builtin("_Z22get_sub_group_local_idv", 32, per_dimension=False),
        subgroup_size=_builtin("_Z18get_sub_group_sizev", 32, per_dimension=False),
    ),
    barrier=(Call("_Z7barrierj", (CLK_LOCAL_AND_GLOBAL_MEM_FENCE,)),),
    abi=KernelAbi(kernel_calling_convention="spir_kernel", function_calling_convention="spir_func"),
    math=MathLibrary(
        naming="itanium",
        prefix="",
        suffixes={"f32": "f", "f64": "d", "i32": "i"},
        renamed={"powf": "pow", "fpowi": "pown"},
    ),
    mlir=MlirPipeline(
        passes=(
            "--convert-scf-to-cf",
            # Branches first: after the GPU conversion their block arguments would keep
            # `index` while their predecessors pass `i64`.
            "--convert-cf-to-llvm",
            "--convert-gpu-to-llvm-spv=use-64bit-index=true",
            "--expand-strided-metadata",
            "--lower-affine",
            "--convert-to-llvm",
            "--reconcile-unrealized-casts",
            "--xevm-attach-target",
            "--gpu-module-to-binary=format=llvm",
        ),
        device_code_only=True,
        # MLIR's lowering numbers a memref's address space as its memory space, but 0
        # (and none) as global, and refuses a spelled private space outside attributions:
        # private memory goes through MLIR as 5 and is made Function storage (0) after.
        numbered_spaces=True,
        # MLIR makes workgroup attributions `__local` kernel arguments (another kernel
        # signature than the embedded backend's) and private ones pointers their numbered
        # space cannot hold: both are handed to it as the buffers they stand for.
        attributions_as_buffers=True,
        renumbered_spaces={5: 0},
    ),
    isa_versions=(10, 11, 12, 13, 14),
    default_isa_version=14,
    isa_version_unit="SPIR-V version x10",
    isa_version_option="spirv_version",
    symbol_pattern=r"[A-Za-z_][A-Za-z0-9_]*",
    no_dynamic_shared=(
        "OpenCL passes dynamic Workgroup memory as a __local kernel argument, which "
        "lower-gpu-allocs does not make"
    ),
    isolated_codegen=True,
    refused_types={
        "bf16": "LLVM 22's SPIR-V target needs SPV_KHR_bfloat16 for bf16, which OpenCL lacks"
    },
    # MLIR's SPIR-V environment, or Intel's target (which MLIR compiles to SPIR-V); the
    # environment's resource limits give the Workgroup bytes (16 KiB unless it says).
    driver="gpu_alloc.lowering.spirv.target:SpirvTarget",
    tool_check="gpu_alloc.lowering.tool_checks:spirv_check",
    mlir_target_attributes=("spirv.target_env", "xevm.target"),
    mlir_default_chip="generic",
    mlir_shared_limit_key="max_compute_shared_memory_size",
    mlir_shared_limit_default=16 * KIB,
)
