"""gpu.shuffle, gpu.printf and memref.atomic_rmw in MLIR's custom form (issue 12 §1): what
the analyses make of them, and a located error for a bad atomic kind."""

from __future__ import annotations

from pathlib import Path

import corpus
import numpy as np
from fuzz_cli import run_tool
from gpu_alloc.syntax.mlir_gpu_lanes import ShuffleOp
from gpu_alloc.transforms.block_level_code import gpu_kernels
from gpu_alloc.transforms.kernel_ir import ThreadDependence
from xdsl.dialects import arith, memref

KERNEL = """\
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c1 = arith.constant 1 : i32
    %c32 = arith.constant 32 : i32
    %c0 = arith.constant 0 : index
    %x, %valid = gpu.shuffle xor %c1, %c1, %c32 : i32
    %sum = arith.addi %c1, %c32 : i32
    %old = memref.atomic_rmw KIND %sum, %out[%c0] : (i32, memref<64xi32>) -> i32
    gpu.printf "old %d\\n", %old : i32
    gpu.return
  }
}
"""


def test_shuffle_results_are_thread_dependent_even_of_a_uniform_value():
    """Which lanes are in range differs between lanes: control flow on `%valid` must
    count as thread-dependent (no shared allocation or barrier under it)."""
    module = corpus.parse(KERNEL.replace("KIND", "addi"))
    kernel = gpu_kernels(module)[0]
    depends = ThreadDependence(kernel)
    shuffle = next(op for op in kernel.walk() if isinstance(op, ShuffleOp))
    assert depends(shuffle.valid) and depends(shuffle.shuffle_result)
    add = next(op for op in kernel.walk() if isinstance(op, arith.AddiOp))
    assert not depends(add.result)


def test_atomic_rmw_is_xdsls_own_op_with_mlirs_kind_numbers():
    for kind, number in (("addi", 1), ("maxu", 7), ("xori", 15)):
        module = corpus.parse(KERNEL.replace("KIND", kind))
        atomic = next(op for op in module.walk() if isinstance(op, memref.AtomicRMWOp))
        assert type(atomic) is memref.AtomicRMWOp  # so the effects table knows it
        assert atomic.kind.value.data == number


def test_unknown_atomic_kind_is_one_located_error(tmp_path: Path):
    path = tmp_path / "k.mlir"
    path.write_text(KERNEL.replace("KIND", "addx"))
    outcome = run_tool("opt", [str(path)])
    assert outcome.code == 1 and outcome.out == ""
    first = outcome.err.splitlines()[0]
    assert first.startswith(f"{path}:8:30: error: unknown memref.atomic_rmw kind 'addx'"), first


def _run_outlined(file: str, block: int, dynamic_extent: int):
    from gpu_alloc.sim.launch import simulate

    module = corpus.outline((corpus.CORPUS / file).read_text())
    return simulate(
        module, grid=(1,), block=(block,), seed=1, scalars=[], dynamic_extent=dynamic_extent
    )


def test_shuffle_simulates_as_mlirs_own_test_expects():
    """shuffle.mlir's CHECK line (MLIR's integration test, run on a GPU): 13 threads,
    `xor 4` within width 13; lanes whose partner is past 12 store -1."""
    result = _run_outlined("llvm/shuffle.mlir", block=13, dynamic_extent=13)
    (stored,) = [a.array for a in result.arguments]
    assert stored.tolist() == [4, 5, 6, 7, 0, 1, 2, 3, 12, -1, -1, -1, 8]


def test_atomics_apply_in_lane_order_and_return_the_old_values():
    from gpu_alloc.sim.atomics import atomic_rmw
    from gpu_alloc.sim.memory import Arena, read_elements

    arena = Arena("counter", 1, 8)
    same = np.zeros(5, np.int64)  # five threads on element 0
    olds = atomic_rmw(arena, same, np.ones(5, np.int32), np.dtype(np.int32), 1)  # addi
    assert olds.tolist() == [0, 1, 2, 3, 4]
    assert read_elements(arena, same[:1], np.dtype(np.int32)).tolist() == [5]
    # maxu compares as unsigned: -1 is 0xffffffff and wins over 7; maxs keeps 7.
    values = np.array([-1, 7], np.int32)
    two = np.array([4, 4], np.int64)
    atomic_rmw(arena, two, values, np.dtype(np.int32), 7)
    assert read_elements(arena, two[:1], np.dtype(np.int32)).tolist() == [-1]
    atomic_rmw(arena, two, values, np.dtype(np.int32), 3)  # assign: the last one wins
    atomic_rmw(arena, two[:1], values[:1], np.dtype(np.int32), 6)  # maxs(7, -1)
    assert read_elements(arena, two[:1], np.dtype(np.int32)).tolist() == [7]
