"""Issue 19 §8: `fuse-gpu-allocs` run twice changes nothing the second time, also on
kernels with a private allocation (which the second run used to move again)."""

from __future__ import annotations

from io import StringIO

from gpu_alloc.sim.loading import make_context, parse_module
from gpu_alloc.transforms import FuseGpuAllocsPass
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, kernels
from kernelgen_loops import with_private_scratch
from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer


def _fused_text(module: ModuleOp) -> str:
    FuseGpuAllocsPass().apply(make_context(), module)
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels())
def test_fusing_twice_changes_nothing(kernel: GeneratedKernel):
    text = with_private_scratch(kernel.text)
    once = _fused_text(parse_module(text))
    assert "scratch" in once
    assert _fused_text(parse_module(once)) == once
