"""Modules a newcomer can hold in their head: no library module over 500 lines, no
function over 80 (issue 11, section 5), checked by an ast scan of the package."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIRS = ("core", "dialect", "transforms", "lowering", "tools", "sim", "targets")
MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 80


def _library_modules() -> list[Path]:
    return sorted(p for d in PACKAGE_DIRS for p in (ROOT / d).rglob("*.py"))


def test_the_scan_sees_the_package():
    names = {p.name for p in _library_modules()}
    assert {"fold_conditions.py", "lower_gpu_allocs.py", "alloc_patterns.py"} <= names


def test_no_module_over_500_lines_and_no_function_over_80():
    too_long: list[str] = []
    for path in _library_modules():
        text = path.read_text()
        if (lines := len(text.splitlines())) > MAX_MODULE_LINES:
            too_long.append(f"{path.relative_to(ROOT)}: {lines} lines")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > MAX_FUNCTION_LINES:
                    too_long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}: {length}")
    assert not too_long, "\n".join(too_long)
