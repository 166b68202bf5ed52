"""Every example through the whole pipeline: fuse, flatten, lower, PTX from both backends.

ptxas must accept both backends' PTX and report, for every kernel, exactly the shared
bytes that fuse-gpu-allocs promised (its static shared backing, or the lone shared
Func it kept), and fewer than the unfused kernel when anything was reused.
"""

from __future__ import annotations

import pytest
from gpu_alloc.lowering.ptx import BACKENDS, emit_ptx
from gpu_alloc.lowering.ptxas import assemble
from gpu_alloc.lowering.toolchain import have_mlir_opt, have_ptxas
from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass
from gpu_alloc.transforms.fuse_gpu_allocs import fuse_module
from lowering_support import EXAMPLES, load, lowered, make_context

# By hand: the stencil chain's lower bound (f1 + f2 live at stage 1), mixed_types's
# smallest 16-aligned layout of a, b, w (37, 36, 80 bytes, all live at stage 1),
# heap_scratch's lone 32 x i32 shared table, mlir_transpose's two 4 KiB tiles live at
# stage 1 (the third reuses the first's bytes).
PROMISED = {"stencil_chain": 884, "mixed_types": 164, "heap_scratch": 128, "mlir_transpose": 8192}


@pytest.mark.skipif(not (have_ptxas() and have_mlir_opt()), reason="needs ptxas and mlir-opt-22")
@pytest.mark.parametrize("example", sorted(p.stem for p in EXAMPLES.glob("*.mlir")))
def test_example_holds_the_promised_shared_bytes(example: str):
    module = load(EXAMPLES / f"{example}.mlir")
    (report,) = fuse_module(module, FuseGpuAllocsPass())
    (shared,) = [s for s in report.spaces if s.space == 3]
    assert shared.plan.static_bytes == PROMISED[example]
    FlattenAliasesPass().apply(make_context(), module)
    lowered(module)
    unfused = lowered(load(EXAMPLES / f"{example}.mlir"))
    for backend in BACKENDS:
        fused_usage = assemble(emit_ptx(module, backend=backend))[report.kernel]
        unfused_usage = assemble(emit_ptx(unfused, backend=backend))[report.kernel]
        assert fused_usage.shared_bytes == PROMISED[example], backend
        assert fused_usage.shared_bytes <= unfused_usage.shared_bytes
        if shared.plan.static_bytes < shared.plan.unfused_bytes:
            assert fused_usage.shared_bytes < unfused_usage.shared_bytes
