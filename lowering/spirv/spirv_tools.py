"""SPIRV-Tools on SPIR-V: `spirv-as` assembles the text, `spirv-val` validates the binary,
and `spirv-dis` prints it back, from which `workgroup_bytes` reads what each kernel's
Workgroup variables occupy."""

from __future__ import annotations

import os
import re
import tempfile

from gpu_alloc.lowering.tool_runs import ToolRejected, run_tool
from gpu_alloc.lowering.toolchain import find_tool

_LINE = re.compile(r"^\s*(?:(%\w+)\s*=\s*)?(Op\w+)(.*)$")


def _target_env(version: int) -> str:
    return f"spv{version // 10}.{version % 10}"


def assemble(text: str, version: int) -> bytes:
    """`spirv-as` of `text` for SPIR-V `version` (times ten)."""
    with tempfile.TemporaryDirectory() as directory:
        source, binary = os.path.join(directory, "k.spvasm"), os.path.join(directory, "k.spv")
        with open(source, "w") as stream:
            stream.write(text)
        run_tool(
            [
                find_tool("spirv-as"),
                "--preserve-numeric-ids",
                "--target-env",
                _target_env(version),
                source,
                "-o",
                binary,
            ],
            "spirv-as rejected the assembly",
        )
        with open(binary, "rb") as stream:
            return stream.read()


def validate(binary: bytes, version: int) -> str:
    """`spirv-val` the binary for SPIR-V `version`, then `check_variables`; its
    `spirv-dis --raw-id` text."""
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "k.spv")
        with open(path, "wb") as stream:
            stream.write(binary)
        run_tool(
            [find_tool("spirv-val"), "--target-env", _target_env(version), path],
            "spirv-val rejected the binary",
        )
        disassembly = run_tool([find_tool("spirv-dis"), "--raw-id", path], "spirv-dis").stdout
    check_variables(disassembly)
    return disassembly


def check_variables(disassembly: str) -> None:
    """`ToolRejected` for an `OpVariable` whose storage class is not its pointer type's (a
    Function variable of a CrossWorkgroup pointer), which spirv-val 2023.1 lets through."""
    module = _Module(disassembly)
    for result, (opcode, words) in module.definitions.items():
        if opcode != "OpVariable":
            continue
        pointer_class = module.definitions[words[0]][1][0]
        if pointer_class != words[1]:
            raise ToolRejected(
                f"variable {result} is {words[1]} storage of a {pointer_class} pointer type"
            )


class _Module:
    """The types, constants, variables and functions of a disassembled module."""

    def __init__(self, text: str):
        self.definitions: dict[str, tuple[str, list[str]]] = {}
        self.entries: dict[str, str] = {}
        self.uses: dict[str, set[str]] = {}
        function: str | None = None
        for line in text.splitlines():
            match = _LINE.match(line)
            if match is None:
                continue
            result, opcode, rest = match.groups()
            words = rest.split()
            if opcode == "OpEntryPoint":
                self.entries[words[2].strip('"')] = words[1]
            if opcode == "OpFunction" and result is not None:
                function = result
                self.uses[result] = set()
            elif opcode == "OpFunctionEnd":
                function = None
            elif function is not None:
                self.uses[function].update(w for w in words if w.startswith("%"))
            if result is not None:
                self.definitions[result] = (opcode, words)

    def size(self, type_id: str) -> int:
        opcode, words = self.definitions[type_id]
        if opcode in ("OpTypeInt", "OpTypeFloat"):
            return int(words[0]) // 8
        if opcode == "OpTypeVector":
            return self.size(words[0]) * int(words[1])
        if opcode == "OpTypeArray":
            return self.size(words[0]) * int(self.definitions[words[1]][1][1])
        if opcode == "OpTypeStruct":
            return sum(self.size(member) for member in words)
        raise ValueError(f"cannot size SPIR-V type {opcode}")

    def reached(self, function: str) -> set[str]:
        """The ids used by `function` and every function it calls."""
        seen, pending, ids = {function}, [function], set[str]()
        while pending:
            used = self.uses.get(pending.pop(), set())
            ids |= used
            for callee in used & set(self.uses) - seen:
                seen.add(callee)
                pending.append(callee)
        return ids


def workgroup_bytes(disassembly: str) -> dict[str, int]:
    """Per kernel (entry point) of a `spirv-dis --raw-id` text, the bytes of the
    Workgroup variables it and the functions it calls use."""
    module = _Module(disassembly)
    variables = {
        result: module.size(module.definitions[words[0]][1][1])
        for result, (opcode, words) in module.definitions.items()
        if opcode == "OpVariable" and words[1] == "Workgroup"
    }
    return {
        name: sum(size for variable, size in variables.items() if variable in module.reached(entry))
        for name, entry in module.entries.items()
    }
