"""`transforms/pre_lowering.py`: affine, index and parallel loops to arith and scf.for.

The values are checked against Python's own arithmetic (floor division and a
non-negative `mod`, which is what MLIR's affine semantics are) and against what
`mlir-opt-22 --lower-affine` computes from the same kernel, both run in the simulator.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.sim.launch import simulate
from gpu_alloc.tools.sim_loading import parse_module
from gpu_alloc.transforms.pre_lowering import PRE_LOWERED_OPS, pre_lower

THREADS = 16
COLUMNS = 12

KERNEL = """
gpu.module @m {
  gpu.func @k(%out: memref<16x12xi32>) kernel {
    %t = gpu.thread_id x
    %c8 = arith.constant 8 : index
    %c5 = arith.constant 5 : index
    %x = arith.subi %t, %c8 : index
    %v0 = affine.apply affine_map<(d0) -> (d0 mod 4)>(%x)
    %v1 = affine.apply affine_map<(d0) -> (d0 floordiv 3)>(%x)
    %v2 = affine.apply affine_map<(d0) -> (d0 ceildiv 3)>(%x)
    %v3 = affine.min affine_map<(d0)[s0] -> (d0 + 2, s0)>(%x)[%c5]
    %v4 = affine.max affine_map<(d0) -> (d0 * 2, 1 - d0)>(%x)
    %q:2 = affine.delinearize_index %t into (4, 4) : index, index
    %v7 = affine.linearize_index [%q#1, %q#0] by (4, 4) : index
    %v8 = affine.if affine_set<(d0) : (d0 - 8 >= 0)>(%t) -> index {
      affine.yield %c5 : index
    } else {
      affine.yield %c8 : index
    }
    %c0 = arith.constant 0 : index
    %v9 = affine.for %i = 0 to min affine_map<(d0) -> (d0, 6)>(%t) iter_args(%acc = %c0) -> (index) {
      %n = index.add %acc, %i
      affine.yield %n : index
    }
    %v10 = index.rems %x, %c5
    %v11 = index.floordivs %x, %c5
STORES
    gpu.return
  }
}
"""
_VALUES = ["%v0", "%v1", "%v2", "%v3", "%v4", "%q#0", "%q#1", "%v7", "%v8", "%v9", "%v10", "%v11"]
KERNEL = KERNEL.replace(
    "STORES",
    "\n".join(
        f"    %w{k} = arith.index_cast {v} : index to i32\n"
        f"    %col{k} = arith.constant {k} : index\n"
        f"    memref.store %w{k}, %out[%t, %col{k}] : memref<16x12xi32>"
        for k, v in enumerate(_VALUES)
    ),
)


def _expected() -> np.ndarray:
    rows = []
    for t in range(THREADS):
        x = t - 8
        ceil_div = -((-x) // 3)
        q0, q1 = t // 4, t % 4
        rows.append(
            [
                x % 4,
                x // 3,
                ceil_div,
                min(x + 2, 5),
                max(2 * x, 1 - x),
                q0,
                q1,
                q1 * 4 + q0,
                5 if t >= 8 else 8,
                sum(range(min(t, 6))),
                int(np.fmod(x, 5)),  # index.rems: C's truncating remainder
                x // 5,
            ]
        )
    return np.array(rows, dtype=np.int32)


def _run(module) -> np.ndarray:  # noqa: ANN001
    result = simulate(module, grid=(1, 1, 1), block=(THREADS, 1, 1), seed=3)
    (out,) = result.arguments
    return np.asarray(out.array).reshape(THREADS, COLUMNS)


def test_pre_lowered_kernel_computes_mlirs_affine_semantics():
    module = parse_module(KERNEL)
    pre_lower(module)
    assert not [op.name for op in module.walk() if op.name in PRE_LOWERED_OPS]
    assert (_run(module) == _expected()).all()


def test_pre_lowering_agrees_with_mlir_lower_affine():
    lowered_by_mlir = subprocess.run(
        ["mlir-opt-22", "--lower-affine", "--mlir-print-op-generic"],
        input=KERNEL,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    ours = parse_module(KERNEL)
    pre_lower(ours)
    theirs = parse_module(lowered_by_mlir)
    pre_lower(theirs)  # the index ops mlir's --lower-affine leaves
    assert (_run(ours) == _run(theirs)).all()


FORALL = """
gpu.module @m {
  gpu.func @k(%out: memref<8x8xi32>) kernel {
    %one = arith.constant 1 : i32
    %c4 = arith.constant 4 : index
    scf.forall (%i, %j) = (0, 1) to (%c4, 8) step (1, 2) {
      %s = arith.addi %i, %j : index
      %v = arith.index_cast %s : index to i32
      memref.store %v, %out[%i, %j] : memref<8x8xi32>
    } MAPPING
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c8 = arith.constant 8 : index
    scf.parallel (%k) = (%c0) to (%c8) step (%c4) {
      memref.store %one, %out[%c8, %k] : memref<8x8xi32>
    }
    gpu.return
  }
}
"""


def test_forall_and_parallel_become_loops_over_every_iteration():
    text = FORALL.replace("MAPPING", "").replace("%out[%c8, %k]", "%out[%c1, %k]")
    module = parse_module(text)
    pre_lower(module)
    assert {op.name for op in module.walk()} & PRE_LOWERED_OPS == set()
    result = simulate(module, grid=(1, 1, 1), block=(1, 1, 1), seed=0)
    (out,) = result.arguments
    array = np.asarray(out.array).reshape(8, 8)
    for i in range(4):
        for j in range(1, 8, 2):
            assert array[i, j] == i + j
    assert array[1, 0] == 1 and array[1, 4] == 1  # the scf.parallel's two iterations


def test_forall_with_a_mapping_is_refused_at_the_op():
    text = FORALL.replace("MAPPING", "{mapping = [#gpu.thread<y>, #gpu.thread<x>]}")
    module = parse_module(text)
    with pytest.raises(GpuAllocPassError, match="mapping") as error:
        pre_lower(module)
    assert error.value.op.name == "scf.forall"
