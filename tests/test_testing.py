"""`gpu_alloc.testing` and the sample downstream project `examples/downstream/` (issue 23
item 3): a project's lit.cfg.py gets the tools and MLIR as substitutions."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

from gpu_alloc.testing import TOOLS, configure_lit

ROOT = Path(__file__).resolve().parent.parent
DOWNSTREAM = ROOT / "examples" / "downstream"
LIT = Path(sys.executable).parent / "lit"


def _lit(project: Path) -> subprocess.CompletedProcess[str]:
    # A bare environment: the project's lit.cfg.py must find everything by itself.
    env = {"PATH": "/usr/bin:/bin", "HOME": str(project)}
    return subprocess.run(
        [str(LIT), "-v", str(project)], capture_output=True, text=True, env=env, check=False
    )


def test_configure_lit_gives_every_tool_and_feature():
    config = SimpleNamespace(substitutions=[], available_features=set(), environment={})
    configure_lit(config)
    substitutions = dict(config.substitutions)
    for tool in TOOLS:
        assert Path(substitutions[f"%{tool}"]).name == tool
        assert Path(substitutions[f"%{tool}"]).exists()
    assert Path(substitutions["%mlir-opt"]).name.startswith("mlir-opt")
    assert Path(substitutions["%ptxas"]).name == "ptxas"
    assert {"mlir-opt", "ptxas", "libdevice", "filecheck"} <= config.available_features
    assert config.environment["PATH"].split(":")[0] == str(Path(sys.executable).parent)
    names = [pattern for pattern, _ in config.substitutions]
    assert names == sorted(names, key=len, reverse=True)  # no substitution eats a longer one


def test_the_sample_downstream_project_passes(tmp_path: Path):
    project = tmp_path / "downstream"
    shutil.copytree(DOWNSTREAM, project)
    result = _lit(project)
    assert result.returncode == 0, result.stdout[-3000:]
    tests = sorted(p.name for p in (project / "tests").glob("*.mlir"))
    for name in tests:
        assert f"PASS: downstream :: {name}" in result.stdout
    assert "UNSUPPORTED" not in result.stdout  # mlir-opt is found: the test ran


def test_a_broken_downstream_test_fails(tmp_path: Path):
    project = tmp_path / "downstream"
    shutil.copytree(DOWNSTREAM, project)
    errors = project / "tests" / "errors.mlir"
    errors.write_text(errors.read_text().replace("needs 65536 bytes", "needs 65535 bytes"))
    fuse = project / "tests" / "fuse.mlir"
    fuse.write_text(fuse.read_text().replace("memref<1024xi8", "memref<2048xi8", 1))
    result = _lit(project)
    assert result.returncode != 0
    assert "FAIL: downstream :: errors.mlir" in result.stdout
    assert "expected error \"kernel 'k' needs 65535 bytes" in result.stdout
    assert "FAIL: downstream :: fuse.mlir" in result.stdout
