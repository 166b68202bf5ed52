"""Lit support for projects that use gpu_alloc: this package's tools, MLIR 22, ptxas and
FileCheck as lit substitutions, and lit features for the optional tools.

A downstream project's `lit.cfg.py`:

    from gpu_alloc.testing import configure_lit
    configure_lit(config)

Then a test writes `// RUN: %gpu-alloc-opt %s -p fuse-gpu-allocs | %filecheck %s`, guards a
test that needs MLIR with `// REQUIRES: mlir-opt`, and checks diagnostics with
`%gpu-alloc-opt %s --verify-diagnostics` and `// expected-error {{...}}` annotations (as
mlir-opt does: see `gpu_alloc.tools.verify_diagnostics`). `examples/downstream/` is a complete
sample project.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

TOOLS = ("gpu-alloc-opt", "gpu-alloc-sim", "gpu-alloc-pack", "gpu-alloc-layout")
"""This package's command-line tools: each becomes the substitution `%<tool>`."""


def tools_directory() -> Path:
    """Where this installation's scripts are (beside the Python running lit, else on PATH)."""
    beside = Path(sys.executable).parent
    if (beside / TOOLS[0]).exists():
        return beside
    found = shutil.which(TOOLS[0])
    if found is None:
        raise RuntimeError(f"{TOOLS[0]} not found: is gpu-alloc installed in this environment?")
    return Path(found).parent


def external_tools() -> dict[str, str]:
    """The optional tools found here, by substitution name: `mlir-opt` (`$XDSL_MLIR_OPT`,
    else `mlir-opt-22`), `ptxas` and `libdevice` (as the PTX target finds them) and
    `filecheck` (`filecheck`, else LLVM's `FileCheck` or `FileCheck-22`)."""
    from gpu_alloc.lowering.toolchain import (
        ToolchainError,
        find_libdevice,
        find_mlir_opt,
        find_ptxas,
    )

    found: dict[str, str] = {}
    for name, finder in (("mlir-opt", find_mlir_opt), ("ptxas", find_ptxas)):
        try:
            found[name] = finder()
        except ToolchainError:
            pass
    try:
        found["libdevice"] = find_libdevice()
    except ToolchainError:
        pass
    for candidate in ("filecheck", "FileCheck", "FileCheck-22"):
        if (path := shutil.which(candidate)) is not None:
            found["filecheck"] = path
            break
    return found


def configure_lit(config: Any) -> None:
    """Adds to a lit `config`: the substitutions `%gpu-alloc-opt`, `%gpu-alloc-sim`,
    `%gpu-alloc-pack`, `%gpu-alloc-layout`, and `%mlir-opt`, `%ptxas`, `%filecheck` where
    found; the features `mlir-opt`, `ptxas`, `libdevice`, `filecheck` for what was found;
    and this installation's scripts first on the tests' `PATH`."""
    directory = tools_directory()
    path = config.environment.get("PATH", os.environ.get("PATH", ""))
    config.environment["PATH"] = os.pathsep.join([str(directory), path])
    # Longest names first: lit replaces in order, and `%gpu-alloc-opt` must not eat a prefix.
    substitutions = {f"%{tool}": str(directory / tool) for tool in TOOLS}
    for name, location in external_tools().items():
        config.available_features.add(name)
        if name != "libdevice":
            substitutions[f"%{name}"] = location
    for pattern in sorted(substitutions, key=len, reverse=True):
        config.substitutions.append((pattern, substitutions[pattern]))
