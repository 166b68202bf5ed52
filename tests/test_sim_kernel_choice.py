"""`--kernel` with several `gpu.module`s: two kernels of one name were listed as
`kernels: k, k` and `--kernel k` silently ran the first; `MODULE::KERNEL` names either."""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.launch import simulate


def _module_text(name: str, value: float) -> str:
    return f"""
gpu.module @{name} {{
  gpu.func @k(%out: memref<4xf32>) kernel {{
    %t = gpu.thread_id x
    %v = arith.constant {value} : f32
    memref.store %v, %out[%t] : memref<4xf32>
    gpu.return
  }}
  gpu.func @only_{name}(%out: memref<4xf32>) kernel {{
    gpu.return
  }}
}}"""


TWO_MODULES = _module_text("m1", 1.0) + _module_text("m2", 2.0)


def _out(kernel: str) -> list[float]:
    result = simulate(corpus.parse(TWO_MODULES), grid=(1,), block=(4,), kernel=kernel)
    return result.arrays()["out"].tolist()


def test_a_qualified_name_picks_the_kernel_of_that_module():
    assert _out("m1::k") == [1.0] * 4
    assert _out("m2::k") == [2.0] * 4
    assert _out("only_m2") == _out("m2::only_m2")  # a unique name needs no module


@pytest.mark.parametrize(
    ("kernel", "message"),
    [
        ("k", "kernel 'k' is ambiguous: name one of m1::k, only_m1, m2::k, only_m2"),
        (None, "pick a kernel with kernel= (kernels: m1::k, only_m1, m2::k, only_m2)"),
        ("m3::k", "no kernel named 'm3::k' (kernels: m1::k, only_m1, m2::k, only_m2)"),
    ],
)
def test_an_ambiguous_or_unknown_name_lists_the_qualified_names(kernel, message):
    with pytest.raises(SimulationError) as error:
        simulate(corpus.parse(TWO_MODULES), grid=(1,), block=(4,), kernel=kernel)
    assert str(error.value) == message


def test_an_input_without_a_kernel_says_so():
    """It said "pick a kernel with --kernel (kernels: none)", which no --kernel fixes."""
    empty = corpus.parse("gpu.module @m {\n}")
    with pytest.raises(SimulationError, match="the input has no kernel to run"):
        simulate(empty, grid=(1,), block=(4,))
