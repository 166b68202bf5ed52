"""scripts/gpu_check.py without a GPU: the kernel ABI it packs and its seeding convention."""

from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest
from lowering_support import EXAMPLES, ROOT, load
from xdsl.dialects import gpu

_spec = importlib.util.spec_from_file_location("gpu_check", ROOT / "scripts" / "gpu_check.py")
assert _spec is not None and _spec.loader is not None
gpu_check = importlib.util.module_from_spec(_spec)
sys.modules["gpu_check"] = gpu_check  # its dataclasses look their module up
_spec.loader.exec_module(gpu_check)


def _kernel(name: str) -> gpu.FuncOp:
    (kernel,) = [op for op in load(EXAMPLES / name).walk() if isinstance(op, gpu.FuncOp)]
    return kernel


def test_memref_arguments_are_mlir_descriptors():
    fields = gpu_check._descriptor_fields([0x1000, 0x2000], [(67, 67), (4096,)])
    assert fields == [
        (True, 0x1000), (True, 0x1000), (False, 0), (False, 67), (False, 67), (False, 67), (False, 1),
        (True, 0x2000), (True, 0x2000), (False, 0), (False, 4096), (False, 1),
    ]  # fmt: skip


def test_seeded_arguments_follow_the_simulator_convention():
    inputs = gpu_check.seeded_arguments(_kernel("stencil_chain.mlir"), seed=7)
    assert [a.shape for a in inputs] == [(67, 67), (64, 64)]
    expected = np.random.default_rng([7, 0]).integers(-64, 64, (67, 67)).astype(np.int32)
    assert np.array_equal(inputs[0], expected)
    assert inputs[0].dtype == np.int32 and not np.array_equal(inputs[1][:8, :8], inputs[0][:8, :8])


def test_dry_run_matches_the_simulator_inputs():
    pytest.importorskip("gpu_alloc.sim.launch", reason="the simulator is not merged yet")
    argv = ["--dry-run", "--variant", "unfused", str(EXAMPLES / "heap_scratch.mlir")]
    assert gpu_check.main(argv) == 0


def test_dynamic_shared_memory_above_48_kib_gets_the_opt_in():
    """A kernel whose >48 KiB backing became dynamic shared memory is launched with
    that many dynamic bytes and the max-dynamic-shared-size attribute set."""
    from gpu_alloc.lowering.lower_gpu_allocs import DYNAMIC_SHARED_BYTES
    from xdsl.dialects.builtin import IntegerAttr, i64

    kernel = _kernel("stencil_chain.mlir")
    assert gpu_check.dynamic_shared_bytes(kernel) == 0
    kernel.attributes[DYNAMIC_SHARED_BYTES] = IntegerAttr(65536, i64)
    assert gpu_check.dynamic_shared_bytes(kernel) == 65536

    calls = []

    class FakeDriver:
        class CUfunction_attribute:
            CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8

    device = object.__new__(gpu_check.CudaDevice)
    device.driver = FakeDriver
    device.call = lambda name, *args: calls.append((name, args)) or 1  # type: ignore[method-assign]
    device.run("ptx", "k", (1, 1, 1), (32, 1, 1), [], [], dynamic_shared=65536)
    names = [name for name, _ in calls]
    assert ("cuFuncSetAttribute", (1, 8, 65536)) in calls
    assert names.index("cuFuncSetAttribute") < names.index("cuLaunchKernel")
    (launch,) = [args for name, args in calls if name == "cuLaunchKernel"]
    assert launch[7] == 65536  # sharedMemBytes
