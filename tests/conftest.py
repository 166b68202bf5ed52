"""Shared fixtures: paths of the repository and its examples."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"


# Property tests draw the same examples on every run (a red CI is a bug, never a draw):
# `HYPOTHESIS_PROFILE=explore` draws fresh ones, for a session that hunts bugs.
settings.register_profile("default", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def examples_dir() -> Path:
    return EXAMPLES


# The test process is one of the project's own: like `gpu-alloc-opt`, `gpu-alloc-sim` and
# `gpu-alloc-layout` at their start, it installs the fixes of xDSL 0.75's bugs (importing the
# package installs nothing: tests/test_no_patch.py).
from gpu_alloc import xdsl_fixes  # noqa: E402

xdsl_fixes.apply()
