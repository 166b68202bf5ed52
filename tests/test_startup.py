"""Issue 31 §3: a tool loads at start-up only what every run of it needs; the backends, the
passes, the simulator's interpreter and the packer's engine come when a run uses them.
(The times are measured by `bench/startup.py` in `make bench`, not here.)"""

from __future__ import annotations

import subprocess
import sys

import pytest

LATER = {
    "gpu_alloc.tools.opt": [
        "llvmlite",
        "numpy",
        "gpu_alloc.lowering.emit",
        "gpu_alloc.lowering.ptx.target",
        "gpu_alloc.transforms.fuse.fuse_gpu_allocs",
        "gpu_alloc.packing",
    ],
    "gpu_alloc.tools.sim_cli": ["numpy", "gpu_alloc.sim.launch", "gpu_alloc.lowering.emit"],
    "gpu_alloc.tools.layout": [
        "numpy",
        "xml.sax.saxutils",
        "gpu_alloc.transforms.fuse.fuse_gpu_allocs",
        "gpu_alloc.sim.launch",
    ],
    "gpu_alloc.tools.pack": ["xdsl.ir", "gpu_alloc.dialect", "numba", "xml.sax.saxutils"],
}


def loaded_after_import(module: str) -> set[str]:
    code = f"import sys, {module}; print('\\n'.join(sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return set(result.stdout.split())


@pytest.mark.parametrize("module", sorted(LATER))
def test_a_tool_starts_without_what_a_run_loads_later(module):
    loaded = loaded_after_import(module)
    assert module in loaded
    assert not [name for name in LATER[module] if name in loaded]


def test_help_still_lists_every_pass_option():
    from gpu_alloc.universe import ALL_PASSES

    result = subprocess.run(
        [sys.executable, "-m", "gpu_alloc.tools.opt", "--help"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert all(f"  {name}: " in result.stdout for name in ALL_PASSES)
    assert "      time-limit=none (a number): " in result.stdout
