"""OpenCL C 1.2 source (`-t opencl`): what PoCL and Oclgrind build and run on a CPU, and
what OpenCL devices (Mali, Adreno, PowerVR, any OpenCL 1.2 full-profile GPU) compile.

Shared memory is `__local` (one array per kernel, declared at the kernel's scope, or a
`__local` kernel argument for memory sized at the launch), global memory `__global`
(a memref without a memory space too: an OpenCL kernel's buffers), private memory
`__private`. The ids, the barrier and the math functions are OpenCL C builtins, spelled
here as the backend (`lowering/opencl/c.py`) writes them; the LLVM fields of the
description (triple, calling conventions, MLIR pipeline) are empty: the device's own
OpenCL compiler is the backend after this one.

OpenCL 1.2 has no sub-groups, so no lane id or sub-group size; the local memory a block
may use is what every full-profile device provides (`CL_DEVICE_LOCAL_MEM_SIZE` of at
least 32 KiB), and no bank model (the device's).
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

OPENCL_1_2 = Chip("opencl1.2", 32 * KIB, None, None, "OpenCL C 1.2", llvm_cpu="")

CLK_LOCAL_AND_GLOBAL_MEM_FENCE = "CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE"
"""The flags of the barrier: a `gpu.barrier` orders the block's heap (global) accesses too."""

NO_SUBGROUPS = "OpenCL 1.2 has no sub-groups (cl_khr_subgroups is optional)"


def _builtin(name: str) -> Intrinsic:
    return Intrinsic(name, 64, dimension_argument=True)


OPENCL = TargetDescription(
    name="opencl",
    vendor="Khronos",
    backend_name="OpenCL C",
    output="OpenCL C",
    triple="",
    llvm_features="",
    chips=(OPENCL_1_2,),
    default_chip=OPENCL_1_2.name,
    spaces=AddressSpaces(
        generic=1, global_=1, shared=3, private=0, alloca=0, shared_name="__local"
    ),
    static_shared_limit=None,
    ids=Ids(
        thread_id=_builtin("get_local_id"),
        block_id=_builtin("get_group_id"),
        block_dim=_builtin("get_local_size"),
        grid_dim=_builtin("get_num_groups"),
        # No sub-groups in OpenCL 1.2: the coverage contract refuses both ops.
        lane_id=Intrinsic("", 32),
        subgroup_size=Intrinsic("", 32),
    ),
    barrier=(Call("barrier"),),
    abi=KernelAbi(kernel_calling_convention="__kernel", function_calling_convention=""),
    math=MathLibrary(
        naming="suffix",
        prefix="",
        suffixes={"f32": "", "f64": ""},
        renamed={
            "absf": "fabs",
            "powf": "pow",
            "fpowi": "pown",
            "roundeven": "rint",
            "remf": "fmod",
            "ctpop": "popcount",
            "ctlz": "clz",
            "absi": "abs",
        },
    ),
    mlir=MlirPipeline(passes=()),
    symbol_pattern=r"[A-Za-z_][A-Za-z0-9_]*",
    comment="//",
    refused_types={
        "bf16": "OpenCL C has no bf16 type",
        "f16": "half arithmetic is the optional cl_khr_fp16, which PoCL and Oclgrind lack",
    },
    backends=("c",),
    driver="gpu_alloc.lowering.opencl.target:OpenClTarget",
    tool_check="gpu_alloc.lowering.tool_checks:pocl_check",
)
