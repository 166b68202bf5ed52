"""Uniformity over unstructured control flow (issue 30, item 1).

A barrier in a workgroup `func.func` is met by the whole block only if every thread
calls it. The rule used to look at `scf` nesting only: a call in a block reached
through a thread-dependent `cf.cond_br`, or after an early `return` in a multi-block
caller, got a reuse barrier in its callee, and the threads that skip the call deadlock.
"""

from __future__ import annotations

import corpus
import pytest
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from xdsl.dialects import func, gpu

HELPER = """
  func.func @helper(%out: memref<64xf32>, %i: index) {
    %ii = arith.index_cast %i : index to i32
    %v = arith.sitofp %ii : i32 to f32
    %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    %x = memref.load %a[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %x, %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%i] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %out[%i] : memref<64xf32>
    return
  }"""
"""Two buffers a barrier after `%x` would let share bytes: `always` wants one there."""

BRANCH = f"""
gpu.module @m {{{HELPER}
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {{
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x
    %p = arith.cmpi ult, COND : index
    cf.cond_br %p, ^call, ^done
  ^call:
    func.call @helper(%out, %t) : (memref<64xf32>, index) -> ()
    cf.br ^done
  ^done:
    gpu.return
  }}
}}
"""

EARLY_RETURN = f"""
gpu.module @m {{{HELPER}
  func.func @relay(%out: memref<64xf32>, %t: index) {{
    %c32 = arith.constant 32 : index
    %p = arith.cmpi ult, %t, %c32 : index
    cf.cond_br %p, ^out, ^go
  ^out:
    return
  ^go:
    func.call @helper(%out, %t) : (memref<64xf32>, index) -> ()
    return
  }}
  gpu.func @k(%out: memref<64xf32>) kernel {{
    %t = gpu.thread_id x
    func.call @relay(%out, %t) : (memref<64xf32>, index) -> ()
    gpu.return
  }}
}}
"""


def _helper_barriers(text: str) -> int:
    module = corpus.parse(text)
    import_gpu_allocs(module)
    FuseGpuAllocsPass(insert_barriers="always").run(module)
    helper = next(
        op for op in module.walk() if isinstance(op, func.FuncOp) and op.sym_name.data == "helper"
    )
    return sum(isinstance(op, gpu.BarrierOp) for op in helper.walk())


@pytest.mark.parametrize(
    "text", [BRANCH.replace("COND", "%t, %c32"), EARLY_RETURN], ids=["cond_br", "early_return"]
)
def test_no_barrier_in_a_helper_reached_through_a_thread_dependent_branch(
    text: str, capsys: pytest.CaptureFixture[str]
):
    assert _helper_barriers(text) == 0
    assert "no barrier inserted in 'helper'" in capsys.readouterr().err
    module = corpus.parse(text)
    graph = CallGraph(module)
    helper = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    assert "thread-dependent control flow" in (graph.why_not_uniform(helper) or "")


def test_a_uniform_cf_branch_still_gets_its_barrier():
    """The same CFG on a block-uniform condition: every thread takes the same branch."""
    assert _helper_barriers(BRANCH.replace("COND", "%n, %c32")) == 1
