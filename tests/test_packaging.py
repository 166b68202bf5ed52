"""Packaging: the license, the version, the Python floor and the dependencies (issue 23 item 1)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import zipfile
from email.parser import Parser as MetadataParser
from importlib import metadata
from pathlib import Path

import gpu_alloc
import pytest
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TOOLS = ("gpu-alloc-opt", "gpu-alloc-sim", "gpu-alloc-pack", "gpu-alloc-layout", "gpu-alloc-run")


def _pyproject_floor() -> Version:
    text = (ROOT / "pyproject.toml").read_text()
    found = re.search(r'^requires-python = ">=([0-9.]+)"$', text, re.MULTILINE)
    assert found, "requires-python must be a plain '>=X.Y' floor"
    return Version(found.group(1))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel `pip wheel .` builds from this checkout (an isolated build, as users get)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", str(ROOT), "-w", str(out)],
        check=True,
        capture_output=True,
        env={**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1"},
    )
    (path,) = out.glob("gpu_alloc-*.whl")
    return zipfile.ZipFile(path)


def _wheel_metadata(wheel: zipfile.ZipFile):
    name = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    return MetadataParser().parsestr(wheel.read(name).decode())


def test_the_wheel_ships_the_license_and_py_typed(wheel: zipfile.ZipFile):
    names = wheel.namelist()
    license_name = next(n for n in names if n.endswith(".dist-info/licenses/LICENSE"))
    text = wheel.read(license_name).decode()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "---- LLVM Exceptions to the Apache 2.0 License ----" in text
    assert text == (ROOT / "LICENSE").read_text()
    assert "gpu_alloc/py.typed" in names
    assert _wheel_metadata(wheel)["License-Expression"] == "Apache-2.0 WITH LLVM-exception"


def test_one_version_everywhere(wheel: zipfile.ZipFile):
    meta = _wheel_metadata(wheel)
    assert meta["Version"] == gpu_alloc.__version__
    assert metadata.version("gpu-alloc") == gpu_alloc.__version__
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert not re.search(r"^version\s*=\s*\"", pyproject, re.MULTILINE), (
        "the version lives in core/"
    )
    changelog = (ROOT / "CHANGELOG.md").read_text()
    assert f"## {gpu_alloc.__version__}" in changelog


@pytest.mark.parametrize("tool", TOOLS)
def test_every_tool_prints_its_version(tool: str):
    result = subprocess.run([str(BIN / tool), "--version"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    xdsl = metadata.version("xdsl")
    assert result.stdout == f"{tool} (gpu_alloc {gpu_alloc.__version__}, xDSL {xdsl})\n"


def test_the_python_floor_is_true(wheel: zipfile.ZipFile):
    """Every hard dependency installs on the floor, and the floor is no lower than the
    highest floor among them (xdsl 0.75 needs 3.11: a 3.10 floor was a lie)."""
    floor = _pyproject_floor()
    assert SpecifierSet(_wheel_metadata(wheel)["Requires-Python"]) == SpecifierSet(f">={floor}")
    below = Version(f"{floor.major}.{floor.minor - 1}")
    floors: dict[str, SpecifierSet] = {}
    for requirement in map(Requirement, metadata.requires("gpu-alloc") or []):
        if requirement.marker is None:
            needed = metadata.metadata(requirement.name)["Requires-Python"] or ""
            floors[requirement.name] = SpecifierSet(needed)
            assert floor in floors[requirement.name], (requirement.name, needed)
    assert any(below not in spec for spec in floors.values()), (
        f"no dependency needs {floor}: the floor could be lower ({floors})"
    )
    if os.environ.get("CI"):  # .ci/run builds its environment with the floor interpreter
        assert sys.version_info[:2] == (floor.major, floor.minor)


def test_numba_is_an_extra_and_the_default_install_runs_the_demo(tmp_path: Path):
    """numba is only in `[pack]`; without it `make demo`'s whole job (import, fuse, flatten,
    lower, PTX through llvmlite, the layout picture) still runs."""
    hard = [Requirement(r) for r in metadata.requires("gpu-alloc") or []]
    assert {r.name for r in hard if r.marker is None} == {"xdsl", "numpy", "llvmlite"}
    assert any(r.name == "numba" and r.marker and "pack" in str(r.marker) for r in hard)
    script = (
        "import sys; sys.modules['numba'] = None\n"  # `import numba` raises ImportError
        f"sys.argv = ['demo', {str(ROOT / 'examples')!r}]\n"
        f"sys.path.insert(0, {str(ROOT / 'scripts')!r})\n"
        "import demo; demo.main()\n"
        "assert 'numba' not in sys.modules or sys.modules['numba'] is None\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "== stencil_chain.mlir: PTX (fused, llvmlite, sm_90) ==" in result.stdout
    assert "// Generated by LLVM NVPTX Back-End" in result.stdout
    examples = sorted(p.stem for p in (ROOT / "examples").glob("*.mlir"))
    pictures = sorted(p.stem for p in (tmp_path / "build" / "layouts").glob("*.svg"))
    assert pictures == examples
