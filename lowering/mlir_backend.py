"""The reference PTX backend: MLIR 22's `--gpu-lower-to-nvvm-pipeline`, out of process,
after the passes that lower what the pipeline does not (`PREPARATION_PASSES`).

A module with `math` ops (which MLIR lowers to libdevice calls) gets an NVVM target
that links libdevice (`--nvvm-attach-target=... l=libdevice.10.bc`) before the
pipeline; the pipeline then attaches its own target too, so `gpu.binary` holds two
objects, and the PTX is read from the first, the linked one.
"""

from __future__ import annotations

import io
import re
import subprocess

from gpu_alloc.dialect.mlir_gpu_kernels import WORKGROUP_ATTRIBUTIONS
from gpu_alloc.lowering.toolchain import ToolchainError, find_libdevice, find_mlir_opt
from xdsl.dialects import gpu
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr
from xdsl.printer import Printer

_BINARY = re.compile(
    r'gpu\.binary @([\w$.-]+)\s*\[#gpu\.object<.*?assembly = "((?:[^"\\]|\\.)*)"', re.S
)
_ESCAPE = re.compile(r"\\(\\|\"|[0-9A-Fa-f]{2})")


class MlirBackendError(Exception):
    """mlir-opt rejected the module; the message is its first diagnostic."""


PREPARATION_PASSES = (
    "--convert-linalg-to-loops",
    "--convert-vector-to-scf",
    "--lower-affine",
    "--convert-nvgpu-to-nvvm",
    "--convert-vector-to-llvm",
)
"""Run before the NVVM pipeline, which lowers none of these itself: `linalg` ops on
memrefs to loops, `vector.transfer_*` to `scf` and LLVM (MLIR 22's pipeline leaves an
unrealized cast for a `vector.transfer_read`), the `affine.apply`s the loops use, and
`nvgpu` (async copies, `ldmatrix`, `mma.sync`, mbarriers, TMA) to NVVM."""


def nvvm_pipeline(chip: str, ptx_version: int) -> str:
    """The `mlir-opt` option that lowers every `gpu.module` to PTX text."""
    return (
        f"--gpu-lower-to-nvvm-pipeline=cubin-chip={chip} "
        f"cubin-features=+ptx{ptx_version} cubin-format=isa"
    )


def attach_libdevice(chip: str, ptx_version: int) -> str:
    """The `mlir-opt` option that gives every `gpu.module` a target linking libdevice."""
    return f"--nvvm-attach-target=chip={chip} features=+ptx{ptx_version} l={find_libdevice()}"


def uses_libdevice(module: ModuleOp) -> bool:
    return any(op.name.startswith("math.") for op in module.walk())


def unescape_mlir_string(text: str) -> str:
    """Undo MLIR's string escaping (`\\0A`, `\\22`, `\\\\`)."""

    def replace(match: re.Match[str]) -> str:
        escaped = match.group(1)
        return escaped if escaped in ("\\", '"') else chr(int(escaped, 16))

    return _ESCAPE.sub(replace, text)


def mlir_input(module: ModuleOp) -> str:
    """`module` as MLIR 22 reads it: a `gpu.container_module` for its launch sites,
    kernels marked `gpu.kernel`."""
    container = module.clone()
    container.attributes["gpu.container_module"] = UnitAttr()
    for op in container.walk():
        # MLIR 22 reads a kernel from the `gpu.kernel` attribute; the `kernel` property
        # xDSL prints is dropped, which would make the kernel a plain `.func`.
        if isinstance(op, gpu.FuncOp) and op.kernel is not None:
            op.attributes["gpu.kernel"] = UnitAttr()
        if isinstance(op, gpu.FuncOp) and WORKGROUP_ATTRIBUTIONS not in op.attributes:
            # MLIR 22's gpu.all_reduce lowering adds a workgroup attribution and crashes
            # when the count is absent (the generic form xDSL prints omits a zero count)
            op.attributes[WORKGROUP_ATTRIBUTIONS] = IntegerAttr(0, 64)
    text = io.StringIO()
    Printer(stream=text).print_op(container)
    return text.getvalue()


def ptx_from_mlir_output(output: str) -> dict[str, str]:
    """The PTX of each `gpu.binary` in mlir-opt's output, by `gpu.module` name."""
    return {name: unescape_mlir_string(body) for name, body in _BINARY.findall(output)}


def emit_ptx_with_mlir(module: ModuleOp, chip: str, ptx_version: int) -> dict[str, str]:
    """PTX per `gpu.module` of a lowered module, compiled by `mlir-opt-22`."""
    mlir_opt = find_mlir_opt()
    options = [*PREPARATION_PASSES, nvvm_pipeline(chip, ptx_version)]
    if uses_libdevice(module):
        options.insert(0, attach_libdevice(chip, ptx_version))
    try:
        completed = subprocess.run(
            [mlir_opt, *options],
            input=mlir_input(module),
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as error:
        raise ToolchainError(f"cannot run {mlir_opt}: {error.strerror}") from None
    if completed.returncode != 0:
        lines = [line for line in completed.stderr.splitlines() if "error:" in line]
        first = lines[0] if lines else completed.stderr.strip().splitlines()[0]
        raise MlirBackendError(f"mlir-opt-22 rejected the lowered module: {first}")
    return ptx_from_mlir_output(completed.stdout)
