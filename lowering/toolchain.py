"""Finding the external tools: MLIR 22's `mlir-opt`, CUDA's `ptxas` and libdevice, LLVM
22's `ld.lld` and `llvm-mc` (AMD code objects), SPIRV-Tools' `spirv-as` and `spirv-val`,
and ROCm's device libraries."""

from __future__ import annotations

import importlib.util
import os
import shutil
from pathlib import Path

from gpu_alloc.targets import Chip, MathLibrary

MLIR_OPT_ENV = "XDSL_MLIR_OPT"
MLIR_OPT_NAMES = ("mlir-opt-22", "mlir-opt")
PTXAS_ENV = "GPU_ALLOC_PTXAS"
LIBDEVICE_ENV = "GPU_ALLOC_LIBDEVICE"
LIBDEVICE_RELATIVE = "nvvm/libdevice/libdevice.10.bc"
CUDA_HOME_VARIABLES = ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")
DEFAULT_CUDA_HOME = "/usr/local/cuda"
ROCM_DEVICE_LIBS_ENV = "GPU_ALLOC_ROCM_DEVICE_LIBS"
ROCM_DEVICE_LIBS_FOLDERS = ("/opt/rocm/amdgcn/bitcode", "/usr/lib/x86_64-linux-gnu/amdgcn/bitcode")

TOOLS: dict[str, tuple[tuple[str, ...], str]] = {
    "ld.lld": (("ld.lld-22", "ld.lld"), "apt-get install lld-22"),
    "llvm-mc": (("llvm-mc-22", "llvm-mc"), "apt-get install llvm-22"),
    "llc": (("llc-22", "llc"), "apt-get install llvm-22"),
    "spirv-as": (("spirv-as",), "apt-get install spirv-tools"),
    "spirv-val": (("spirv-val",), "apt-get install spirv-tools"),
    "spirv-dis": (("spirv-dis",), "apt-get install spirv-tools"),
}
"""The other tools the target checks run: the names tried on PATH, and how to install them."""


class ToolchainError(Exception):
    """A tool is missing; the message is one line saying what to install."""


def _from_environment(variable: str) -> str | None:
    """The executable a user named in `variable`, None if unset; an error if not found."""
    configured = os.environ.get(variable)
    if not configured:
        return None
    found = shutil.which(configured)
    if found is None:
        raise ToolchainError(f"{variable}={configured} is not an executable")
    return found


def find_mlir_opt() -> str:
    """`$XDSL_MLIR_OPT`, else `mlir-opt-22`, else `mlir-opt` on PATH."""
    if (configured := _from_environment(MLIR_OPT_ENV)) is not None:
        return configured
    for name in MLIR_OPT_NAMES:
        found = shutil.which(name)
        if found is not None:
            return found
    raise ToolchainError(
        "mlir-opt-22 not found: install MLIR 22 (Debian/Ubuntu: apt-get install mlir-22-tools) "
        f"or set {MLIR_OPT_ENV}, or use the default backend=llvmlite"
    )


def _wheel_file(relatives: tuple[str, ...], executable: bool) -> Path | None:
    """A file of the `nvidia-cuda-nvcc(-cu12)` wheels (the `[ptx]` extra)."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or spec.submodule_search_locations is None:
        return None
    for location in spec.submodule_search_locations:
        for relative in relatives:
            candidate = Path(location) / relative
            if candidate.is_file() and (not executable or os.access(candidate, os.X_OK)):
                return candidate
    return None


def _wheel_ptxas() -> Path | None:
    return _wheel_file(("cu13/bin/ptxas", "cuda_nvcc/bin/ptxas"), executable=True)


def find_ptxas() -> str:
    """`$GPU_ALLOC_PTXAS`, else `ptxas` on PATH, else the one in the nvidia-cuda-nvcc wheel."""
    if (configured := _from_environment(PTXAS_ENV)) is not None:
        return configured
    found = shutil.which("ptxas")
    if found is not None:
        return found
    wheel = _wheel_ptxas()
    if wheel is not None:
        return str(wheel)
    raise ToolchainError(
        "ptxas not found: pip install 'gpu-alloc[ptx]' (CUDA's nvidia-cuda-nvcc wheel) "
        "or put the CUDA toolkit's bin directory on PATH"
    )


def find_libdevice() -> str:
    """NVIDIA's `libdevice.10.bc`: `$GPU_ALLOC_LIBDEVICE`, else under `$CUDA_HOME` (or
    `$CUDA_PATH`, `$CUDA_ROOT`), else beside the `ptxas` on PATH (a CUDA toolkit's
    `bin/../nvvm/libdevice`), else under `/usr/local/cuda`, else from the `nvidia-cuda-nvcc-cu12` wheel."""
    configured = os.environ.get(LIBDEVICE_ENV)
    if configured:
        if not Path(configured).is_file():
            raise ToolchainError(f"{LIBDEVICE_ENV}={configured} is not a file")
        return configured
    homes = [os.environ[v] for v in CUDA_HOME_VARIABLES if os.environ.get(v)]
    ptxas = shutil.which("ptxas")
    if ptxas is not None:
        homes.append(str(Path(ptxas).resolve().parent.parent))
    homes.append(DEFAULT_CUDA_HOME)
    for home in homes:
        candidate = Path(home) / LIBDEVICE_RELATIVE
        if candidate.is_file():
            return str(candidate)
    wheel = _wheel_file((f"cuda_nvcc/{LIBDEVICE_RELATIVE}",), executable=False)
    if wheel is not None:
        return str(wheel)
    raise ToolchainError(
        "libdevice.10.bc (NVIDIA's math library, needed by math ops) not found: "
        "pip install 'gpu-alloc[ptx]' (nvidia-cuda-nvcc-cu12), set CUDA_HOME to a CUDA "
        f"toolkit, or set {LIBDEVICE_ENV}"
    )


def have_mlir_opt() -> bool:
    try:
        find_mlir_opt()
    except ToolchainError:
        return False
    return True


def have_ptxas() -> bool:
    try:
        find_ptxas()
    except ToolchainError:
        return False
    return True


def find_tool(tool: str) -> str:
    """The executable of `tool` (a key of `TOOLS`) on PATH, or a `ToolchainError` saying
    what to install."""
    names, install = TOOLS[tool]
    for name in names:
        found = shutil.which(name)
        if found is not None:
            return found
    raise ToolchainError(f"{names[0]} not found: {install} (Debian/Ubuntu)")


def _rocm_device_libs(library: MathLibrary) -> Path:
    """The folder holding ROCm's device libraries: `$GPU_ALLOC_ROCM_DEVICE_LIBS`, else
    ROCm's own, else Debian's `rocm-device-libs`."""
    configured = os.environ.get(ROCM_DEVICE_LIBS_ENV)
    folders = [configured] if configured else list(ROCM_DEVICE_LIBS_FOLDERS)
    for folder in folders:
        if all((Path(folder) / name).is_file() for name in library.files):
            return Path(folder)
    where = f"{ROCM_DEVICE_LIBS_ENV}={configured}" if configured else ", ".join(folders)
    raise ToolchainError(f"{library.needs}: not found in {where}")


def find_math_library(library: MathLibrary, chip: Chip) -> list[str]:
    """The bitcode files `library` links for `chip` (none when the device's runtime
    resolves the calls); a `ToolchainError` naming what to install if they are missing."""
    if library.finder == "cuda":
        return [find_libdevice()]
    if library.finder == "rocm":
        folder = _rocm_device_libs(library)
        chip_files = [
            f.format(isa=chip.cpu.removeprefix("gfx"), wave="on" if chip.wave_size == 64 else "off")
            for f in library.chip_files
        ]
        missing = [name for name in chip_files if not (folder / name).is_file()]
        if missing:
            raise ToolchainError(f"{library.needs}: {folder} has no {missing[0]} (for {chip.name})")
        return [str(folder / name) for name in (*library.files, *chip_files)]
    return []
