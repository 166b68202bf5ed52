"""Issue 31 §4: the README is short (at most 300 lines) and every command in it works. Each
line of its ```sh blocks runs as written, in a folder holding the ten-line example as
`kernel.mlir` and the repository's `examples/` and `bench/`, and its output says what the
README says it does; `make` and `pip` lines name a target and extras that exist."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
MAX_LINES = 300

EXPECTED = {
    "fuse-gpu-allocs,flatten-aliases kernel.mlir": "memref<1024xi8, #gpu.address_space<workgroup>>",
    "fuse-gpu-allocs{report=true}' kernel.mlir": "unfused 2048 B, fused 1024 B, lower bound 1024 B",
    "lower-gpu-allocs -t ptx kernel.mlir": ".visible .entry k(",
    "gpu-alloc-sim kernel.mlir": "out 256xf32 sha256=",
    "gpu-alloc-pack": "peak=1048576 lower_bound=1048576",
    "xdsl-opt -p 'fuse-gpu-allocs{report=true},flatten-aliases'": "fused 884 B",
    "xdsl-opt -f mlir-gpu": 'gpu_alloc.alloc "shared_alloc" backing',
    "examples/mlir_transpose.mlir": "memref<8192xi8",
    "-t ptx examples": ".target sm_90",
    "ptx{chip=sm_80 ptx_version=78}": ".target sm_80",
    "amdgcn{chip=gfx942}": '.amdgcn_target "amdgcn-amd-amdhsa--gfx942"',
    "spirv{spirv_version=14}": "OpCapability Kernel",
    "--gpu-lower-to-nvvm-pipeline": 'gpu.binary @m  [#gpu.object<#nvvm.target<chip = "sm_90"',
    "--profile": "bank_conflicts",
    "gpu-alloc-layout": "",  # its output is the picture, checked below
}
"""For each command (found by a part of it): what its output must contain."""


def sh_lines() -> list[str]:
    """Every command of the README's ```sh blocks, without its trailing comment."""
    blocks = re.findall(r"```sh\n(.*?)```", README, re.DOTALL)
    return [re.split(r"\s+#\s", line)[0].strip() for b in blocks for line in b.splitlines()]


def ten_line_example() -> str:
    section = README[README.index("## A ten-line example") :]
    return re.findall(r"```mlir\n(.*?)```", section, re.DOTALL)[0]


COMMANDS = [line for line in sh_lines() if not line.startswith(("make ", "pip "))]


def test_the_readme_is_short_and_in_the_users_order():
    assert len(README.splitlines()) <= MAX_LINES
    headings = [line for line in README.splitlines() if line.startswith("## ")]
    order = ["## Installing", "## Two commands", "## A ten-line example", "## The passes"]
    order += ["## Lowering and targets", "## Where the target comes from", "## Links"]
    positions = [next(i for i, h in enumerate(headings) if h.startswith(o)) for o in order]
    assert positions == sorted(positions)


def test_every_command_has_an_expectation():
    assert len(COMMANDS) >= 10
    for command in COMMANDS:
        assert any(part in command for part in EXPECTED), command


def test_make_and_pip_lines_name_what_exists():
    makefile = (ROOT / "Makefile").read_text()
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = set(extras["optional-dependencies"])
    lines = [line for line in sh_lines() if line.startswith(("make ", "pip "))]
    assert {"make demo", "make test"} <= set(lines)
    for line in lines:
        if line.startswith("make "):
            assert re.search(rf"^{line.split()[1]}:", makefile, re.MULTILINE), line
        else:
            named = re.fullmatch(r"pip install '?gpu-alloc(?:\[(\w+)\])?'?", line)
            assert named is not None and (named[1] is None or named[1] in extras), line


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("readme")
    (path / "kernel.mlir").write_text(ten_line_example())
    for name in ("examples", "bench"):
        (path / name).symlink_to(ROOT / name)
    return path


@pytest.mark.parametrize("command", COMMANDS)
def test_the_readme_command_does_what_it_says(command: str, folder: Path):
    tools = {"mlir-opt-22": "mlir-opt-22", "--gpu-lower-to-nvvm-pipeline": "ptxas"}
    for part, tool in tools.items():
        if part in command and shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    expected = next(text for part, text in EXPECTED.items() if part in command)
    assert expected in result.stdout + result.stderr
    if command.startswith("gpu-alloc-layout"):
        picture = folder / command.split("--svg ")[1].split()[0]
        assert 'data-func="f1"' in picture.read_text()  # the stencil chain's first Func
