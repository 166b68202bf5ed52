"""The target seam: no vendor fact lives outside the target descriptions.

An ast scan of every library module outside `targets/` (docstrings and comments aside)
finds no string that names a vendor's intrinsic, calling convention, triple, chip, math
library or MLIR lowering, no number that is a vendor's shared-memory limit, and no
constant named like a warp size or a bank model. The tool drivers (`toolchain`, and the
modules that read ptxas, LLVM's AMDGPU tools and SPIRV-Tools) may name their tools'
files and output formats, nothing else.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

from gpu_alloc.passes import PASSES

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("core", "dialect", "transforms", "lowering", "tools", "sim")

VENDOR_STRINGS = re.compile(
    r"llvm\.(nvvm|amdgcn)\."  # intrinsics
    r"|\b(ptx_kernel|amdgpu_kernel|spir_kernel|spir_func)\b"  # calling conventions
    r"|\b(nvptx64|amdgcn-amd|spirv64)"  # triples
    r"|\b(sm_\d+a?|gfx\d+[a-z]?)\b"  # chips
    r"|__nv_|__ocml_|__ockl_|^_Z\d+\w+"  # math libraries and OpenCL builtins
    r"|rocdl|nvvm-|to-nvvm|llvm-spv|xevm"  # MLIR lowerings
    r"|CrossWorkgroup"  # storage classes
)
"""Spellings that belong to one vendor."""

VENDOR_NUMBERS = {48 * 1024, 64 * 1024, 96 * 1024, 99 * 1024, 160 * 1024, 163 * 1024, 227 * 1024}
"""Shared-memory limits of some chip (and the static one)."""

KIB_FACTORS = {32, 48, 64, 96, 99, 160, 163, 227}
"""`n * 1024` spellings of the same."""

VENDOR_NAMES = re.compile(r"(WARP|WAVE|BANK|LANES?)(_SIZE|S|_BYTES|_WIDTH)?$|warp_size$", re.I)
"""Constants (module level, class level, option defaults) named like a vendor fact."""

TOOL_DRIVERS = {
    "lowering/toolchain.py",
    "lowering/ptx/ptxas.py",
    "lowering/amdgcn/amdgpu_tools.py",
    "lowering/spirv/spirv_tools.py",
}
"""Where each tool is installed and how its output reads: the tools' own facts."""

MLIR_VOCABULARY = {
    ("syntax/mlir_attributes.py", "MLIR_DIALECTS"),
    ("dialect/spellings.py", "_WORDS"),
    ("dialect/kernels.py", "KERNEL_ATTRIBUTES"),
    ("dialect/kernels.py", "KERNEL_CALLING_CONVENTIONS"),
}
"""Constants that list MLIR's own names (every dialect MLIR 22 has, vendors' `rocdl` and
`xevm` among them, so that their attributes are read as text; the memory-space words of
MLIR's attributes; MLIR's kernel markers and calling conventions): MLIR's facts, not a
target's."""


def _library_modules() -> list[Path]:
    return sorted(p for d in LIBRARY for p in (ROOT / d).rglob("*.py"))


def _docstrings(tree: ast.Module) -> set[int]:
    """The ids of the string constants that are docstrings (module, class, function, or
    the attribute docstring after an assignment)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list):
            continue
        for statement in body:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                found.add(id(statement.value))
    return found


def _mlir_vocabulary(tree: ast.Module, where: str) -> set[int]:
    """The ids of the string constants inside the `MLIR_VOCABULARY` assignments."""
    names = {name for module, name in MLIR_VOCABULARY if module == where}
    return {
        id(constant)
        for node in tree.body
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in names for t in node.targets)
        for constant in ast.walk(node.value)
        if isinstance(constant, ast.Constant)
    }


def _is_kib(node: ast.AST) -> bool:
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult)):
        return False
    sides = [node.left, node.right]
    numbers = {s.value for s in sides if isinstance(s, ast.Constant)}
    names = {s.id for s in sides if isinstance(s, ast.Name)}
    return bool(numbers & KIB_FACTORS) and (1024 in numbers or "KIB" in names)


def _assigned_constant(node: ast.AST) -> tuple[str, ast.AST] | None:
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target, value = node.targets[0], node.value
    elif isinstance(node, ast.AnnAssign) and node.value is not None:
        target, value = node.target, node.value
    else:
        return None
    name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
    if name is None or not (isinstance(value, ast.Constant) and isinstance(value.value, int)):
        return None
    return name, value


def vendor_facts(path: Path) -> list[str]:
    """Each vendor fact in `path`, as `file:line: what`."""
    tree = ast.parse(path.read_text())
    where = path.relative_to(ROOT).as_posix()
    docstrings = _docstrings(tree) | _mlir_vocabulary(tree, where)
    strings_allowed = where in TOOL_DRIVERS
    found: list[str] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings and not strings_allowed:
                if match := VENDOR_STRINGS.search(node.value):
                    found.append(f"{where}:{line}: string {match.group(0)!r}")
        elif isinstance(node, ast.Constant) and type(node.value) is int:
            if node.value in VENDOR_NUMBERS:
                found.append(f"{where}:{line}: number {node.value}")
        elif _is_kib(node):
            found.append(f"{where}:{line}: {ast.unparse(node)}")
        elif (constant := _assigned_constant(node)) and VENDOR_NAMES.search(constant[0]):
            found.append(f"{where}:{line}: {constant[0]} = {ast.unparse(constant[1])}")
    return found


def test_the_scan_finds_what_it_looks_for(tmp_path):
    """Each kind of vendor fact, planted in a module, is found (so an empty result means
    the library has none, not that the scan is blind)."""
    planted = ROOT / "lowering" / "planted_for_the_scan.py"
    planted.write_text(
        '"""Docstring: llvm.nvvm.barrier0, sm_90 and 48 * 1024 are fine here."""\n'
        'BARRIER = "llvm.nvvm.barrier0"\n'
        'CC = "amdgpu_kernel"\n'
        "LIMIT = 48 * 1024\n"
        "RAW = 65536\n"
        "WARP_SIZE = 32\n"
        "class P:\n"
        "    warp_size: int = 32\n"
    )
    try:
        found = vendor_facts(planted)
    finally:
        planted.unlink()
    kinds = " ".join(found)
    assert "'llvm.nvvm.'" in kinds and "'amdgpu_kernel'" in kinds
    assert "48 * 1024" in kinds and "number 65536" in kinds
    assert "WARP_SIZE = 32" in kinds and "warp_size = 32" in kinds
    assert not any(":1:" in f for f in found)  # the docstring is not a fact


def test_no_vendor_fact_outside_the_descriptions():
    found = [fact for path in _library_modules() for fact in vendor_facts(path)]
    assert not found, "\n".join(found)


# -------------------------------------------------------------------------- layering

PACKAGES = {
    "core": "gpu_alloc",
    "targets": "gpu_alloc.targets",
    "syntax": "gpu_alloc.syntax",
    "dialect": "gpu_alloc.dialect",
    "transforms": "gpu_alloc.transforms",
    "packing": "gpu_alloc.packing",
    "lowering": "gpu_alloc.lowering",
    "sim": "gpu_alloc.sim",
    "tools": "gpu_alloc.tools",
}

LAYERS = {
    "targets": set(),
    "packing": set(),
    "syntax": set(),
    "core": {"targets"},
    "dialect": {"core", "targets", "syntax"},
    "transforms": {"core", "targets", "syntax", "dialect", "packing"},
    "lowering": {"core", "targets", "syntax", "dialect", "transforms", "packing"},
    "sim": {"core", "targets", "syntax", "dialect", "transforms", "packing"},
    "tools": {"core", "targets", "syntax", "dialect", "transforms", "packing", "lowering", "sim"},
}
"""What each layer may import (docs/design.md, section 2)."""

EXCEPTIONS = {("gpu_alloc.syntax.mlir_gpu_kernels", "gpu_alloc.dialect.spellings")}
"""Imports against the layering, each documented where it is made."""

ENTRY_POINTS = {
    "gpu_alloc.universe",
    "gpu_alloc.api",
    "gpu_alloc.stock_driver",
    "gpu_alloc.testing",
}
"""Core modules that gather everything for xDSL, the user or a downstream test suite."""


@functools.cache
def _module_names() -> dict[str, Path]:
    names: dict[str, Path] = {}
    for folder, package in PACKAGES.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            names[".".join([package, *parts])] = path
    return names


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS and parts[1] != "core" else "core"


def _imports(path: Path) -> list[tuple[str, bool]]:
    """Every `gpu_alloc` module `path` imports, and whether at the top level (`from
    package import module` imports the module)."""
    modules = _module_names()
    tree = ast.parse(path.read_text())
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        top = node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("gpu_alloc"):
            submodules = [f"{node.module}.{a.name}" for a in node.names]
            if all(name in modules for name in submodules):
                found += [(name, top) for name in submodules]
            else:
                found.append((node.module, top))
        elif isinstance(node, ast.Import):
            found += [(a.name, top) for a in node.names if a.name.startswith("gpu_alloc")]
    return found


def test_every_import_follows_the_layering():
    wrong = []
    for module, path in _module_names().items():
        if module in ENTRY_POINTS:
            continue
        allowed = LAYERS[_layer(module)] | {_layer(module)}
        for imported, _ in _imports(path):
            if _layer(imported) not in allowed and (module, imported) not in EXCEPTIONS:
                wrong.append(f"{module} imports {imported}")
    assert not wrong, "\n".join(wrong)


FUSE_CORE = "gpu_alloc.transforms.fuse"
FUSE_CORE_USERS = {"gpu_alloc.api", "gpu_alloc.transforms", "gpu_alloc.tools"}
"""Who may import the fuse core (docs/design.md, section 2): the API, the pass registry
and the tools; the analyses it shares live beside it in `transforms`."""

TARGET_FOLDERS = ("ptx", "amdgcn", "spirv", "opencl")


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def test_only_the_api_the_registry_and_the_tools_import_the_fuse_core():
    wrong = [
        f"{module} imports {imported}"
        for module, path in _module_names().items()
        if not _inside(module, FUSE_CORE)
        and module not in FUSE_CORE_USERS
        and not _inside(module, "gpu_alloc.tools")
        for imported, _ in _imports(path)
        if _inside(imported, FUSE_CORE)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_target_folder_imports_another():
    wrong = []
    for module, path in _module_names().items():
        for folder in TARGET_FOLDERS:
            if not _inside(module, f"gpu_alloc.lowering.{folder}"):
                continue
            others = [f"gpu_alloc.lowering.{f}" for f in TARGET_FOLDERS if f != folder]
            wrong += [
                f"{module} imports {imported}"
                for imported, _ in _imports(path)
                if any(_inside(imported, other) for other in others)
            ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle():
    """No cycle among the modules' top-level imports, and none among the packages'."""
    names = _module_names()
    graph = {m: {i for i, top in _imports(p) if top and i in names} for m, p in names.items()}
    state: dict[str, int] = {}

    def visit(module: str, path: list[str]) -> list[str] | None:
        state[module] = 1
        for imported in sorted(graph[module]):
            if state.get(imported) == 1:
                return [*path, module, imported]
            if imported not in state and (cycle := visit(imported, [*path, module])):
                return cycle
        state[module] = 2
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module, [])
            assert cycle is None, " -> ".join(cycle)


def _loaded_by(code: str) -> set[str]:
    import subprocess
    import sys

    probe = f"import sys\n{code}\nprint('\\n'.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return set(done.stdout.split())


def test_importing_the_simulator_loads_no_pass_and_no_backend():
    loaded = _loaded_by("from gpu_alloc.sim import simulate")  # launch: on first use
    passes = {p.module for p in PASSES if p.name != "import-gpu-allocs"}
    assert "gpu_alloc.sim.launch" in loaded
    assert not loaded & passes
    assert not {m for m in loaded if m.startswith(("gpu_alloc.lowering", "gpu_alloc.tools"))}
    assert "llvmlite" not in loaded


def test_the_packer_loads_no_xdsl():
    loaded = _loaded_by(
        "from gpu_alloc.packing import PackItem, pack\n"
        "assert pack([PackItem(0, 2, 16, 1), PackItem(1, 3, 8, 1)]).peak == 24"
    )
    assert "gpu_alloc.packing.api" in loaded
    assert not {m for m in loaded if m == "xdsl" or m.startswith("xdsl.")}


def test_the_target_descriptions_load_nothing_but_the_standard_library():
    loaded = _loaded_by("import gpu_alloc.targets")
    assert {m for m in loaded if m.startswith("gpu_alloc")} == {
        "gpu_alloc",
        "gpu_alloc.version",
        *(
            f"gpu_alloc.targets{s}"
            for s in ("", ".amd", ".description", ".nvidia", ".opencl", ".spirv")
        ),
    }
    assert not {m for m in loaded if m.split(".")[0] in ("xdsl", "numpy", "llvmlite")}
