"""The differential harness itself: a pass that breaks a kernel fails; declines are
allowed only where `may_decline` says so."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import differential
import pytest
from differential import (
    Launch,
    PassDeclinedWarning,
    check_pipeline,
    may_decline,
)
from gpu_alloc.errors import GpuAllocPassError
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.passes import ModulePass

TEXT = (Path(__file__).resolve().parent.parent / "examples" / "mixed_types.mlir").read_text()
LAUNCH = Launch(grid=(4,), block=(64,))


@dataclass(frozen=True)
class OffByOnePass(ModulePass):
    """Turns `arith.constant 17 : index` into 16 (mixed_types' offsets and counts)."""

    name = "test-off-by-one"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for constant in op.walk():
            if isinstance(
                constant, arith.ConstantOp
            ) and constant.value == IntegerAttr.from_index_int_value(17):
                constant.properties["value"] = IntegerAttr.from_index_int_value(16)


@dataclass(frozen=True)
class DecliningPass(ModulePass):
    name = "test-declining"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise GpuAllocPassError("cannot handle this kernel")


PASSES: dict[str, type[ModulePass]] = {p.name: p for p in (OffByOnePass, DecliningPass)}


@pytest.fixture(autouse=True)
def fake_passes(monkeypatch: pytest.MonkeyPatch):
    real = differential.pass_class
    monkeypatch.setattr(
        differential, "pass_class", lambda name: PASSES[name] if name in PASSES else real(name)
    )


def test_a_pass_that_changes_results_fails():
    with pytest.raises(
        AssertionError,
        match="test-off-by-one changed the kernel's results: 'out' differs in \\d+ of 68 elements",
    ):
        check_pipeline(TEXT, LAUNCH, ("test-off-by-one",))


def test_a_failure_keeps_the_ir_for_rerunning():
    with pytest.raises(AssertionError, match=r"IR before and after: (\S+)\)") as failure:
        check_pipeline(TEXT, LAUNCH, ("test-off-by-one",))
    saved = Path(re.search(r"IR before and after: (\S+)\)", str(failure.value))[1])
    assert (saved / "before.mlir").read_text() == TEXT
    assert "arith.constant 16 : index" in (saved / "after.mlir").read_text()


def test_a_decline_fails_unless_allowed():
    with pytest.raises(GpuAllocPassError, match="cannot handle this kernel"):
        check_pipeline(TEXT, LAUNCH, ("test-declining",))
    with pytest.warns(PassDeclinedWarning, match="'test-declining' declined a kernel on its own"):
        after = differential.apply_pipeline(TEXT, ("test-declining",), allow_decline=True)
    assert after.declined == "test-declining"


def test_only_later_passes_alone_may_decline():
    assert may_decline(("lower-gpu-allocs",))
    assert not may_decline(("fuse-gpu-allocs",))
    assert not may_decline(("fuse-gpu-allocs", "flatten-aliases"))
