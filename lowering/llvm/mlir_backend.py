"""The reference backend: MLIR 22's own GPU lowering, out of process (`mlir-opt-22`),
after the target-independent passes that lower what no target's pipeline does
(`PRE_LOWERING`).

Each target's pipeline is data (`gpu_alloc.targets`, `MlirPipeline`): NVIDIA's
`--gpu-lower-to-nvvm-pipeline`, AMD's `convert-gpu-to-rocdl` and `rocdl-attach-target`,
SPIR-V's `convert-gpu-to-llvm-spv` and the LLVM lowerings. `gpu-module-to-binary` then
gives, per `gpu.module`, either the assembly (`isa`: PTX, AMDGPU) or LLVM bitcode
(`llvm`: SPIR-V, which LLVM's SPIR-V target compiles here, as MLIR would through a
target attribute it has only for Intel's GPUs, whose sub-group size hint is dropped).

A module with math-library calls on NVIDIA gets a target that links libdevice
(`--nvvm-attach-target=... l=libdevice.10.bc`) before the pipeline; the pipeline then
attaches its own target too, so `gpu.binary` holds two objects, and the assembly is
read from the first, the linked one.
"""

from __future__ import annotations

import io
import re
import subprocess
from collections.abc import Callable
from typing import TypeVar

import llvmlite.binding as llvm_binding
from gpu_alloc.dialect.kernels import KERNEL_ATTRIBUTES, KERNEL_CALLING_CONVENTIONS, is_kernel
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.llvm.isolated import isolated
from gpu_alloc.lowering.llvm.llvmlite_backend import optimise, target_machine, triple_of
from gpu_alloc.lowering.llvm.mlir_ids import prelower_ids
from gpu_alloc.lowering.llvm.target_spaces import (
    attributions_as_buffers,
    number_memory_spaces,
    renumber_address_spaces,
)
from gpu_alloc.lowering.toolchain import ToolchainError, find_math_library, find_mlir_opt
from gpu_alloc.provenance import cloned
from gpu_alloc.syntax.mlir_gpu_kernels import WORKGROUP_ATTRIBUTIONS
from gpu_alloc.targets import Device
from xdsl.dialects import func, gpu, llvm
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    UnregisteredAttr,
    UnregisteredOp,
)
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter

PRE_LOWERING = (
    "--convert-linalg-to-loops",
    "--convert-vector-to-scf",
    "--lower-affine",
    "--convert-vector-to-llvm",
)
"""Target-independent `mlir-opt-22` passes run before every target's pipeline, which
lowers none of these itself: `linalg` ops on memrefs to loops, `vector.transfer_*` to
`scf` and the vector ops to LLVM (each target's pipeline leaves an unrealized cast for a
`vector.transfer_read`, and none lowers `vector.step`), and the `affine.apply`s the
loops use."""

_BINARY = re.compile(
    r'gpu\.binary @([\w$.-]+)\s*\[#gpu\.object<.*?(assembly|offload) = "((?:[^"\\]|\\.)*)"', re.S
)
_ESCAPE = re.compile(r"\\(\\|\"|[0-9A-Fa-f]{2})")
T = TypeVar("T")

_SUB_GROUP_SIZE_HINT = re.compile(r" !intel_reqd_sub_group_size !\d+")


class MlirBackendError(Exception):
    """mlir-opt rejected the module; the message is its first diagnostic."""


def pipeline(device: Device, isa_version: int, module: ModuleOp) -> list[str]:
    """The `mlir-opt-22` options that compile every `gpu.module` of `module`."""
    mlir = device.target.mlir
    values = {
        "chip": device.chip.name,
        "isa_version": isa_version,
        "wave": mlir.wave_options.get(device.wave_size or 0, ""),
    }
    options = [*PRE_LOWERING, *(p.format(**values) for p in mlir.passes)]
    if mlir.library_option and uses_math_library(module):
        for library in find_math_library(device.target.math, device.chip):
            options.insert(0, mlir.library_option.format(library=library, **values))
    return options


def uses_math_library(module: ModuleOp) -> bool:
    return any(op.name.startswith("math.") for op in module.walk())


def unescape_mlir_string(text: str) -> str:
    """Undo MLIR's string escaping (`\\0A`, `\\22`, `\\\\`)."""

    def replace(match: re.Match[str]) -> str:
        escaped = match.group(1)
        return escaped if escaped in ("\\", '"') else chr(int(escaped, 16))

    return _ESCAPE.sub(replace, text)


def mlir_input(module: ModuleOp, device: Device | None = None) -> str:
    """`module` as MLIR 22 reads it: a `gpu.container_module` for its launch sites,
    kernels marked `gpu.kernel`, memory spaces numbered where the pipeline wants numbers,
    and only the `gpu.module`s where the pipeline lowers no host code."""
    container = cloned(module)  # an error on the copy points at the user's op
    if device is not None and device.target.mlir.device_code_only:
        kept = [cloned(op) for op in container.walk() if isinstance(op, gpu.ModuleOp)]
        container = ModuleOp(kept)
    if device is not None and device.target.mlir.attributions_as_buffers:
        attributions_as_buffers(container)
    if device is not None and device.target.mlir.numbered_spaces:
        number_memory_spaces(container)
    if device is not None:
        prelower_ids(container, device)
    if device is not None:
        kernels_as_mlir_reads_them(container, device)
    container.attributes["gpu.container_module"] = UnitAttr()
    for op in container.walk():
        # MLIR 22 reads a kernel from the `gpu.kernel` attribute; the `kernel` property
        # xDSL prints is dropped, which would make the kernel a plain function.
        if isinstance(op, gpu.FuncOp) and op.kernel is not None:
            op.attributes["gpu.kernel"] = UnitAttr()
        if isinstance(op, gpu.FuncOp) and WORKGROUP_ATTRIBUTIONS not in op.attributes:
            # MLIR 22's gpu.all_reduce lowering adds a workgroup attribution and crashes
            # when the count is absent (the generic form xDSL prints omits a zero count)
            op.attributes[WORKGROUP_ATTRIBUTIONS] = IntegerAttr(0, 64)
    text = io.StringIO()
    Printer(stream=text).print_op(container)
    return text.getvalue()


def kernels_as_mlir_reads_them(module: ModuleOp, device: Device) -> None:
    """Every kernel of `module` (each marker of `dialect.kernels`) marked as MLIR 22's
    pipelines find kernels: they make an entry point of a `gpu.func` kernel and, in LLVM
    IR, of an `llvm.func` carrying the target's attribute (`nvvm.kernel`, `rocdl.kernel`)
    or its kernel calling convention. A `func.func` kernel in a `gpu.module` becomes the
    `gpu.func` kernel it stands for; an `llvm.func` one gets the target's attribute
    instead of another vendor's marker, or is refused at its line where the target has
    no such attribute and the function lacks its convention. Unchanged, either would be
    emitted as a device function without a word."""
    marker = device.target.mlir.kernel_attribute
    convention = device.target.abi.kernel_calling_convention
    for op in list(module.walk()):
        if not is_kernel(op) or not isinstance(op.parent_op(), gpu.ModuleOp):
            continue
        if isinstance(op, func.FuncOp) and op.body.blocks and not op.function_type.outputs.data:
            _as_gpu_kernel(op)
        elif isinstance(op, llvm.FuncOp):
            cconv = op.properties.get("CConv")
            written = getattr(getattr(cconv, "convention", None), "data", "ccc")
            if marker:
                for name in KERNEL_ATTRIBUTES:
                    op.attributes.pop(name, None)
                op.attributes[marker] = UnitAttr()
                if written in KERNEL_CALLING_CONVENTIONS:  # another vendor's: the marker decides
                    op.properties["CConv"] = llvm.CallingConventionAttr("ccc")
            elif written.removesuffix("cc") != convention:
                raise GpuAllocPassError(
                    f"kernel '{op.sym_name.data}' is an llvm.func that MLIR's "
                    f"{device.target.backend_name} lowering would make a plain function: "
                    f"give it the {convention}cc calling convention",
                    op,
                )


def _as_gpu_kernel(function: func.FuncOp) -> None:
    body = function.detach_region(function.body)
    for ret in [op for op in body.walk() if isinstance(op, func.ReturnOp)]:
        Rewriter.replace_op(ret, gpu.ReturnOp(ret.operands))
    kernel = gpu.FuncOp(function.sym_name.data, function.function_type, body, kernel=True)
    kept = {"sym_name", "function_type", "sym_visibility", *KERNEL_ATTRIBUTES}
    for name, value in function.attributes.items():
        if name not in kept:
            kernel.attributes[name] = value
    kernel.attributes["gpu.kernel"] = UnitAttr()
    Rewriter.replace_op(function, kernel)


def binaries_from_mlir_output(output: str) -> dict[str, tuple[str, str]]:
    """Per `gpu.module` name, the first object of its `gpu.binary`: its kind
    (`assembly` or `offload`) and its unescaped contents."""
    binaries: dict[str, tuple[str, str]] = {}
    for name, kind, body in _BINARY.findall(output):
        binaries.setdefault(name, (kind, unescape_mlir_string(body)))
    return binaries


def ptx_from_mlir_output(output: str) -> dict[str, str]:
    """The assembly of each `gpu.binary` in mlir-opt's output, by `gpu.module` name."""
    return {name: body for name, (_, body) in binaries_from_mlir_output(output).items()}


def _bitcode_module(
    bitcode: str, device: Device, isa_version: int
) -> tuple[llvm_binding.ModuleRef, llvm_binding.TargetMachine]:
    """The bitcode MLIR made (the characters are its bytes), optimised for `device`."""
    machine = target_machine(device, isa_version)
    parsed = llvm_binding.parse_bitcode(bitcode.encode("latin-1"))
    # MLIR's serialiser asks for Intel's sub-group size; a generic OpenCL kernel has none.
    text = _SUB_GROUP_SIZE_HINT.sub("", str(parsed))
    text = renumber_address_spaces(text, device.target.mlir.renumbered_spaces)
    text = re.sub(
        r'target triple = "[^"]*"', f'target triple = "{triple_of(device, isa_version)}"', text
    )
    module = llvm_binding.parse_assembly(text)
    module.verify()
    return optimise(module, machine), machine


def run_mlir_opt(text: str, options: list[str]) -> str:
    mlir_opt = find_mlir_opt()
    try:
        completed = subprocess.run(
            [mlir_opt, *options], input=text, capture_output=True, text=True, check=False
        )
    except OSError as error:
        raise ToolchainError(f"cannot run {mlir_opt}: {error.strerror}") from None
    if completed.returncode != 0:
        lines = [line for line in completed.stderr.splitlines() if "error:" in line]
        first = lines[0] if lines else completed.stderr.strip().splitlines()[0]
        raise MlirBackendError(f"mlir-opt-22 rejected the lowered module: {first}")
    return completed.stdout


ALLOW_UNREGISTERED = "--allow-unregistered-dialect"


def holds_unregistered(module: ModuleOp) -> bool:
    """Whether `module` holds an op or attribute no dialect defines, which the reader let
    through only under `--allow-unregistered-dialect`: MLIR is then given the flag too,
    on every target."""
    for op in module.walk():
        if isinstance(op, UnregisteredOp):
            return True
        values = [*op.attributes.values(), *op.properties.values()]
        if any(isinstance(v, UnregisteredAttr) for v in values):
            return True
    return False


def _binaries(module: ModuleOp, device: Device, isa_version: int) -> dict[str, tuple[str, str]]:
    options = pipeline(device, isa_version, module)
    if holds_unregistered(module):
        options.insert(0, ALLOW_UNREGISTERED)
    output = run_mlir_opt(mlir_input(module, device), options)
    return binaries_from_mlir_output(output)


def emit_with_mlir(module: ModuleOp, device: Device, isa_version: int) -> dict[str, str]:
    """The assembly per `gpu.module` of a lowered module, compiled by `mlir-opt-22`."""
    assembly: dict[str, str] = {}
    for name, (kind, body) in _binaries(module, device, isa_version).items():
        if kind == "offload":
            assembly[name] = _isolated(_bitcode_assembly, body, device, isa_version)
        elif device.target.name == "ptx":
            assembly[name] = extern_dynamic_shared(body)
        else:
            assembly[name] = body
    return assembly


_DYNAMIC_SHARED_PTX = re.compile(
    r"^(?:\t// demoted variable\n)?[ \t]*\.shared \.align (\d+) \.b8 (__dynamic_shmem__\d+)"
    r"(?:\[\d+\])?;\n",
    re.M,
)
_FIRST_FUNCTION = re.compile(r"^(?:\t// \.globl|\.visible|\.entry|\.func|\.weak)", re.M)


def extern_dynamic_shared(ptx: str) -> str:
    """MLIR 22 lowers `gpu.dynamic_shared_memory` to an internal `[0 x i8]` global, which
    LLVM's NVPTX backend prints as a one-byte static `.shared` variable (demoted into the
    kernel): ptxas counts a byte more, and the block's dynamic shared memory, which starts
    after the static variables, is not where the kernel reads it. Here each such variable is
    the `.extern .shared` array CUDA declares for dynamic shared memory."""
    found = {name: align for align, name in _DYNAMIC_SHARED_PTX.findall(ptx)}
    if not found:
        return ptx
    text = _DYNAMIC_SHARED_PTX.sub("", ptx)
    text = re.sub(r"^// (__dynamic_shmem__\d+) has been demoted\n", "", text, flags=re.M)
    declarations = "".join(
        f".extern .shared .align {align} .b8 {name}[];\n" for name, align in found.items()
    )
    first = _FIRST_FUNCTION.search(text)
    at = first.start() if first else len(text)
    return text[:at] + declarations + "\n" + text[at:]


def objects_with_mlir(module: ModuleOp, device: Device, isa_version: int) -> dict[str, bytes]:
    """The object per `gpu.module` where MLIR's pipeline ends in LLVM bitcode (SPIR-V)."""
    objects: dict[str, bytes] = {}
    for name, (kind, body) in _binaries(module, device, isa_version).items():
        if kind != "offload":
            raise MlirBackendError(
                f"the mlir {device.target.backend_name} backend gives assembly, not objects"
            )
        objects[name] = _isolated(_bitcode_object, body, device, isa_version)
    return objects


def _bitcode_assembly(bitcode: str, device: Device, isa_version: int) -> str:
    parsed, machine = _bitcode_module(bitcode, device, isa_version)
    return machine.emit_assembly(parsed)


def _bitcode_object(bitcode: str, device: Device, isa_version: int) -> bytes:
    parsed, machine = _bitcode_module(bitcode, device, isa_version)
    return machine.emit_object(parsed)


def _isolated(compile: Callable[[str, Device, int], T], *arguments: object) -> T:
    device = arguments[1]
    assert isinstance(device, Device)
    return isolated(compile, *arguments) if device.target.isolated_codegen else compile(*arguments)  # pyright: ignore[reportArgumentType]
