"""Every `gpu_alloc.*` attribute the library writes is declared in `dialect/attributes.py`,
documented in docs/design.md, and checked when a tool reads a module."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc.dialect.attributes import ATTRIBUTES

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = ("core", "dialect", "transforms", "lowering", "tools", "sim", "targets")
DECLARED = {a.name for a in ATTRIBUTES}
OPS_AND_TYPES = {"gpu_alloc.alloc", "gpu_alloc.alias", "gpu_alloc.dealloc"}
OPS_AND_TYPES |= {"gpu_alloc.offset_pointer", "gpu_alloc.ptr"}


def _names_written_in_the_library() -> set[str]:
    found: set[str] = set()
    for folder in LIBRARY:
        for path in (ROOT / folder).rglob("*.py"):
            found |= set(re.findall(r'"(gpu_alloc\.[a-z_]+)"', path.read_text()))
    return {name for name in found if name not in OPS_AND_TYPES}


def test_every_attribute_the_library_names_is_declared():
    assert _names_written_in_the_library() == DECLARED


def test_every_declared_attribute_is_documented():
    design = (ROOT / "docs" / "design.md").read_text()
    assert not [name for name in DECLARED if f"| `{name}` |" not in design]


def _read(attribute: str) -> subprocess.CompletedProcess[str]:
    text = f"module {{\n  func.func @f() attributes {{{attribute}}} {{\n    func.return\n  }}\n}}\n"
    return subprocess.run(
        [sys.executable, "-m", "gpu_alloc.tools.opt", "-"],
        input=text,
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize(
    ("attribute", "message"),
    [
        ("gpu_alloc.layuot = 1", "unknown attribute 'gpu_alloc.layuot'"),
        ("gpu_alloc.lower_bound = -3", "gpu_alloc.lower_bound must be a non-negative i64"),
        ("gpu_alloc.proven_optimal = 1", "gpu_alloc.proven_optimal is a unit attribute"),
        ("gpu_alloc.layout = 1", "gpu_alloc.layout must be an array of dictionaries"),
        ("gpu_alloc.heap_bytes_per_block = 64", "kernel's last argument is not a heap buffer"),
    ],
)
def test_a_wrong_attribute_is_a_located_error(attribute: str, message: str):
    completed = _read(attribute)
    assert completed.returncode == 1
    assert completed.stdout == ""
    [line] = [x for x in completed.stderr.splitlines() if "error:" in x]
    assert line.startswith("-:2:3: error: ") and message in line, completed.stderr


def test_declared_attributes_with_good_values_read():
    completed = _read("gpu_alloc.proven_optimal, gpu_alloc.lower_bound = 7 : i64")
    assert completed.returncode == 0, completed.stderr
    assert "gpu_alloc.lower_bound = 7 : i64" in completed.stdout
