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
import re
from pathlib import Path

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
    "lowering/ptxas.py",
    "lowering/amdgpu_tools.py",
    "lowering/spirv_tools.py",
}
"""Where each tool is installed and how its output reads: the tools' own facts."""


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
    docstrings = _docstrings(tree)
    where = path.relative_to(ROOT).as_posix()
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
