"""The embedded backend: `to_llvm`, `llvmlite_translate` and llvmlite's LLVM 22 targets
(NVPTX, AMDGPU, SPIR-V), in-process.

One `gpu.module` becomes one LLVM module for the device's triple, processor and
features (all from `gpu_alloc.targets`), linked with the target's math library when it
calls one (internalised, so -O2 drops what is unused), optimised at -O2 like MLIR's
pipelines, and printed as the target's assembly (PTX, AMDGPU assembly, SPIR-V
assembly); `compile_to_object` gives the object instead (a SPIR-V binary).
"""

from __future__ import annotations

import llvmlite.binding as llvm_binding
from gpu_alloc.lowering.llvm.isolated import isolated
from gpu_alloc.lowering.llvm.llvmlite_translate import translate_to_llvmlite
from gpu_alloc.lowering.toolchain import find_math_library
from gpu_alloc.targets import Device
from xdsl.dialects.builtin import ModuleOp

_initialised = False


def _initialise_llvm() -> None:
    global _initialised
    if not _initialised:
        llvm_binding.initialize_all_targets()
        llvm_binding.initialize_all_asmprinters()
        _initialised = True


def triple_of(device: Device, isa_version: int) -> str:
    dotted = f"{isa_version // 10}.{isa_version % 10}"
    return device.target.triple.format(isa_version=isa_version, isa_version_dotted=dotted)


def target_machine(device: Device, isa_version: int) -> llvm_binding.TargetMachine:
    """LLVM's target machine for `device`, at -O2."""
    _initialise_llvm()
    features = [device.target.llvm_features.format(isa_version=isa_version)]
    features.append(device.chip.llvm_features)
    target = llvm_binding.Target.from_triple(triple_of(device, isa_version))
    return target.create_target_machine(
        cpu=device.chip.cpu, features=",".join(f for f in features if f), opt=2
    )


def link_math_library(parsed: llvm_binding.ModuleRef, device: Device) -> None:
    """Link the math library when one of its functions is called; its functions become
    internal, so the -O2 pipeline inlines what is used and drops the rest."""
    library = device.target.math
    wanted = {
        f.name for f in parsed.functions if f.is_declaration and f.name.startswith(library.prefix)
    }
    if not library.files or not library.prefix or not wanted:
        return
    ours = {f.name for f in parsed.functions if not f.is_declaration}
    for path in find_math_library(library, device.chip):
        with open(path, "rb") as stream:
            linked = llvm_binding.parse_bitcode(stream.read())
        linked.triple = parsed.triple
        linked.data_layout = parsed.data_layout
        parsed.link_in(linked)
    for function in parsed.functions:
        if not function.is_declaration and function.name not in ours:
            function.linkage = "internal"


def optimised(module: ModuleOp, device: Device, isa_version: int) -> llvm_binding.ModuleRef:
    """The LLVM module of an LLVM dialect module (from `to_llvm`), linked and at -O2."""
    machine = target_machine(device, isa_version)
    llvm_ir = translate_to_llvmlite(
        module, triple_of(device, isa_version), device.target.abi, str(machine.target_data)
    )
    parsed = llvm_binding.parse_assembly(str(llvm_ir))
    parsed.verify()
    link_math_library(parsed, device)
    return optimise(parsed, machine)


def optimise(
    parsed: llvm_binding.ModuleRef, machine: llvm_binding.TargetMachine
) -> llvm_binding.ModuleRef:
    options = llvm_binding.create_pipeline_tuning_options(speed_level=2)
    pass_builder = llvm_binding.create_pass_builder(machine, options)
    pass_builder.getModulePassManager().run(parsed, pass_builder)
    return parsed


def _assembly(module: ModuleOp, device: Device, isa_version: int) -> str:
    machine = target_machine(device, isa_version)
    return machine.emit_assembly(optimised(module, device, isa_version))


def _object(module: ModuleOp, device: Device, isa_version: int) -> bytes:
    machine = target_machine(device, isa_version)
    return machine.emit_object(optimised(module, device, isa_version))


def compile_to_assembly(module: ModuleOp, device: Device, isa_version: int) -> str:
    """The target's assembly (PTX, AMDGPU, SPIR-V) for an LLVM dialect module."""
    if device.target.isolated_codegen:
        return isolated(_assembly, module, device, isa_version)
    return _assembly(module, device, isa_version)


def compile_to_object(module: ModuleOp, device: Device, isa_version: int) -> bytes:
    """The target's object (an AMDGPU ELF object, a SPIR-V binary) for the same."""
    if device.target.isolated_codegen:
        return isolated(_object, module, device, isa_version)
    return _object(module, device, isa_version)
