"""Run CUDA's assembler on PTX and read what `ptxas -v` says about each kernel."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass

from gpu_alloc.lowering.toolchain import ToolchainError, find_ptxas
from gpu_alloc.targets import TARGETS

DEFAULT_CHIP = TARGETS["ptx"].default_chip

_ENTRY = re.compile(r"Compiling entry function '([^']+)'")
_USAGE = re.compile(r"Used (\d+) registers")
_SHARED = re.compile(r"(\d+) bytes smem")


class PtxasError(Exception):
    """ptxas rejected the PTX; the message holds its first error line."""


@dataclass(frozen=True)
class KernelResources:
    """One kernel's line of `ptxas -v`."""

    kernel: str
    registers: int
    shared_bytes: int
    """Static shared memory (`.shared` globals), 0 when ptxas prints none."""
    usage_line: str


def assemble(ptx: str, chip: str = DEFAULT_CHIP) -> dict[str, KernelResources]:
    """Assemble `ptx` for `chip` with `ptxas -v`; the resources of each entry."""
    ptxas = find_ptxas()
    with tempfile.TemporaryDirectory() as directory:
        source = os.path.join(directory, "kernel.ptx")
        with open(source, "w") as stream:
            stream.write(ptx)
        command = [ptxas, f"-arch={chip}", "-v", source, "-o", os.path.join(directory, "k.cubin")]
        try:
            completed = subprocess.run(command, capture_output=True, text=True, check=False)
        except OSError as error:
            raise ToolchainError(f"cannot run {ptxas}: {error.strerror}") from None
    if completed.returncode != 0:
        errors = [line for line in completed.stderr.splitlines() if "error" in line.lower()]
        raise PtxasError(f"ptxas rejected the PTX: {(errors or [completed.stderr.strip()])[0]}")
    return parse_verbose_output(completed.stderr)


def parse_verbose_output(text: str) -> dict[str, KernelResources]:
    """Per entry function: the `Used N registers ... M bytes smem` line."""
    resources: dict[str, KernelResources] = {}
    kernel: str | None = None
    for line in text.splitlines():
        if entry := _ENTRY.search(line):
            kernel = entry.group(1)
        elif kernel is not None and (usage := _USAGE.search(line)):
            shared = _SHARED.search(line)
            resources[kernel] = KernelResources(
                kernel,
                int(usage.group(1)),
                int(shared.group(1)) if shared else 0,
                line.split(":", 1)[-1].strip(),
            )
            kernel = None
    return resources
