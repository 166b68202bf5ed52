"""`runs_once`: code the block may run more than once gets one rule (issue 30, items 2-4, 10).

Each case is the issue's reproducer: a shared allocation in a `cf` loop, a device
function called twice or in a loop, a recursive one. Where the old behaviour was a race,
the test shows it through the simulator (with the rule switched off) and then that the
rule refuses it or makes it safe.
"""

from __future__ import annotations

import corpus
import pytest
from differential import Launch, assert_same_behaviour, run
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering import lower_gpu_allocs
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.block_level_code import block_level_code
from gpu_alloc.transforms.call_graph import CallGraph
from gpu_alloc.transforms.fuse import fuse_gpu_allocs
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from gpu_alloc.transforms.runs_once import RunsOnce, in_cf_loop
from xdsl.context import Context
from xdsl.dialects import func, gpu
from xdsl.dialects.builtin import ModuleOp

CF_LOOP = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    cf.br ^loop(%c0 : index)
  ^loop(%i: index):
    %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    %ii = arith.index_cast %i : index to i32
    %v = arith.addi %ti, %ii : i32
    memref.store %v, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %a = memref.load %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %a, %out[%t] : memref<64xi32>
    %n = arith.addi %i, %c1 : index
    %more = arith.cmpi slt, %n, %c3 : index
    cf.cond_br %more, ^loop(%n : index), ^done
  ^done:
    gpu.return
  }
}
"""

HELPER = """
gpu.module @m {
  func.func @wg(%out: memref<64xi32>, %k: i32) {
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    %v = arith.addi %ti, %k : i32
    %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %v, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    gpu.barrier
    %a = memref.load %A[%r] : memref<64xi32, #gpu.address_space<workgroup>>
    %o = memref.load %out[%t] : memref<64xi32>
    %s = arith.addi %o, %a : i32
    memref.store %s, %out[%t] : memref<64xi32>
    END
    return
  }
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %k0 = arith.constant 0 : i32
    %k1 = arith.constant 7 : i32
    CALLS
    gpu.return
  }
}
"""
"""`wg` writes A at its thread's index and reads it at the next thread's, a barrier
between: within one call that is safe. With one A for two calls, the second call's
write meets the first call's read of another thread unless a barrier ends the call."""

TWICE = """func.call @wg(%out, %k0) : (memref<64xi32>, i32) -> ()
    func.call @wg(%out, %k1) : (memref<64xi32>, i32) -> ()"""
IN_LOOP = """scf.for %i = %c0 to %c2 step %c1 {
      func.call @wg(%out, %k1) : (memref<64xi32>, i32) -> ()
    }"""

RECURSIVE = """
gpu.module @m {
  func.func @r(%out: memref<64xi32>, %d: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %t = gpu.thread_id x
    %di = arith.index_cast %d : index to i32
    %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %di, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %deeper = arith.cmpi ugt, %d, %c0 : index
    scf.if %deeper {
      %d1 = arith.subi %d, %c1 : index
      func.call @r(%out, %d1) : (memref<64xi32>, index) -> ()
    }
    %a = memref.load %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %o = memref.load %out[%t] : memref<64xi32>
    %s = arith.addi %o, %a : i32
    memref.store %s, %out[%t] : memref<64xi32>
    return
  }
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c2 = arith.constant 2 : index
    func.call @r(%out, %c2) : (memref<64xi32>, index) -> ()
    gpu.return
  }
}
"""
"""Depth 2: each level stores its depth in A, recurses, then reads A back. With one A
for every level the inner level overwrites the outer one's value."""

LAUNCH = Launch(grid=(1,), block=(64,))


def _helper(calls: str, end: str = "") -> str:
    return HELPER.replace("CALLS", calls).replace("END", end)


def _imported(text: str) -> ModuleOp:
    module = corpus.parse(text)
    import_gpu_allocs(module)
    return module


def _fused_without_the_rule(text: str, monkeypatch: pytest.MonkeyPatch) -> ModuleOp:
    with monkeypatch.context() as patch:
        patch.setattr(fuse_gpu_allocs, "check_runs_once", lambda *args: None)
        patch.setattr(lower_gpu_allocs, "check_module_runs_once", lambda *args: None)
        module = _imported(text)
        FuseGpuAllocsPass(insert_barriers="never").run(module)
        LowerGpuAllocsPass().apply(Context(), module)  # one static array for every call
    return module


@pytest.mark.parametrize("mode", ["never", "over-limit", "always"])
def test_a_shared_allocation_in_a_cf_loop_is_refused(mode: str):
    module = _imported(CF_LOOP)
    before = str(module)
    with pytest.raises(GpuAllocPassError, match="loop of unstructured control flow") as error:
        FuseGpuAllocsPass(insert_barriers=mode).run(module)
    assert error.value.op is not None and error.value.op.alloc_name.data == "A"
    assert str(module) == before


def test_the_cf_loop_is_found_from_the_cfg():
    module = corpus.parse(CF_LOOP)
    (kernel,) = block_level_code(module)
    store = next(op for op in module.walk() if op.name == "memref.store")
    ret = next(op for op in module.walk() if isinstance(op, gpu.ReturnOp))
    assert in_cf_loop(store, kernel) and not in_cf_loop(ret, kernel)


@pytest.mark.parametrize(("calls", "reason"), [(TWICE, "2 call sites"), (IN_LOOP, "scf.for")])
def test_a_helper_entered_twice_races_on_one_buffer(
    calls: str, reason: str, monkeypatch: pytest.MonkeyPatch
):
    text = _helper(calls)
    assert run(corpus.parse(text), LAUNCH).races == []
    unsafe = _fused_without_the_rule(text, monkeypatch)
    assert run(unsafe, LAUNCH).races  # what the pass used to make
    with pytest.raises(GpuAllocPassError, match=reason) as error:
        FuseGpuAllocsPass(insert_barriers="never").run(_imported(text))
    assert "put a gpu.barrier at the end of 'wg'" in str(error.value)


@pytest.mark.parametrize("calls", [TWICE, IN_LOOP])
def test_always_ends_the_helper_with_a_barrier_and_keeps_its_behaviour(calls: str):
    text = _helper(calls)
    module = _imported(text)
    FuseGpuAllocsPass(insert_barriers="always").run(module)
    wg = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    ops = list(wg.body.blocks[0].ops)
    assert isinstance(ops[-2], gpu.BarrierOp) and isinstance(ops[-1], func.ReturnOp)
    assert_same_behaviour(corpus.parse(text), module, LAUNCH, "insert-barriers=always")


def test_a_helper_that_ends_with_a_barrier_needs_nothing():
    text = _helper(TWICE, end="gpu.barrier")
    module = _imported(text)
    FuseGpuAllocsPass(insert_barriers="never").run(module)
    assert_same_behaviour(corpus.parse(text), module, LAUNCH, "insert-barriers=never")


def test_calls_from_two_kernels_are_two_launches():
    two = _helper("func.call @wg(%out, %k0) : (memref<64xi32>, i32) -> ()").replace(
        "  gpu.func @k(",
        """  gpu.func @k2(%out: memref<64xi32>) kernel {
    %k1 = arith.constant 7 : i32
    func.call @wg(%out, %k1) : (memref<64xi32>, i32) -> ()
    gpu.return
  }
  gpu.func @k(""",
    )
    module = _imported(two)
    graph = CallGraph(module)
    wg = next(op for op in module.walk() if isinstance(op, func.FuncOp))
    assert RunsOnce(graph).why_repeated(wg) is None
    FuseGpuAllocsPass(insert_barriers="never").run(module)


def test_a_helper_touching_its_own_thread_slot_may_be_called_twice():
    """No barrier in it and the same bytes from the same threads on every call: the calls
    cannot race on one buffer (the loop rule's "same accesses", for calls)."""
    text = (
        _helper(TWICE)
        .replace("    gpu.barrier\n    %a = memref.load %A[%r]", "    %a = memref.load %A[%t]")
        .replace("%v = arith.addi %ti, %k : i32", "%v = arith.addi %ti, %ti : i32")
    )
    module = _imported(text)
    FuseGpuAllocsPass(insert_barriers="never").run(module)
    assert not any(isinstance(op, gpu.BarrierOp) for op in module.walk())
    assert_same_behaviour(corpus.parse(text), module, LAUNCH, "insert-barriers=never")


@pytest.mark.parametrize("mode", ["never", "always"])
def test_a_recursive_helper_is_refused(mode: str, monkeypatch: pytest.MonkeyPatch):
    original = run(corpus.parse(RECURSIVE), LAUNCH)
    unsafe = run(_fused_without_the_rule(RECURSIVE, monkeypatch), LAUNCH)
    assert unsafe.digests() != original.digests()  # the inner level overwrote the outer's A
    with pytest.raises(GpuAllocPassError, match="called recursively") as error:
        FuseGpuAllocsPass(insert_barriers=mode).run(_imported(RECURSIVE))
    assert error.value.op is not None and error.value.op.alloc_name.data == "A"


LOOP_LOCAL = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %A = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %ti, %ii : i32
      memref.store %v, %A[%t] : memref<64xi32, #gpu.address_space<workgroup>>
      gpu.barrier
      %a = memref.load %A[%r] : memref<64xi32, #gpu.address_space<workgroup>>
      %o = memref.load %out[%t] : memref<64xi32>
      %s = arith.addi %o, %a : i32
      memref.store %s, %out[%t] : memref<64xi32>
    }
    gpu.return
  }
}
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (LOOP_LOCAL, "no gpu.barrier closing the loop's back edge"),
        (_helper(TWICE), "would be one buffer for every run of 'wg'"),
        (RECURSIVE, "called recursively"),
        (CF_LOOP, "loop of unstructured control flow"),
    ],
)
def test_lowering_unfused_ir_applies_the_same_rule(text: str, message: str):
    """`lower-gpu-allocs` alone gives each allocation one static array (issue 30 item 6)."""
    module = _imported(text)
    before = [op.name for op in module.walk()]
    with pytest.raises(GpuAllocPassError, match=message):
        LowerGpuAllocsPass().apply(Context(), module)
    assert [op.name for op in module.walk()] == before  # (the rollback renames blocks)


def test_lowering_a_closed_helper_called_twice_keeps_its_behaviour():
    text = _helper(TWICE, end="gpu.barrier")
    module = _imported(text)
    LowerGpuAllocsPass().apply(Context(), module)
    assert_same_behaviour(corpus.parse(text), module, LAUNCH, "lower-gpu-allocs")


GLOBAL_IN_HELPER = """
gpu.module @m {
  memref.global "private" @counter : memref<64xi32, #gpu.address_space<workgroup>>
  func.func @wg(%out: memref<64xi32>) {
    %t = gpu.thread_id x
    %g = memref.get_global @counter : memref<64xi32, #gpu.address_space<workgroup>>
    %o = memref.load %g[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %c1 = arith.constant 1 : i32
    %n = arith.addi %o, %c1 : i32
    memref.store %n, %g[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %s = memref.alloc() : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %n, %s[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    %m = memref.load %s[%t] : memref<64xi32, #gpu.address_space<workgroup>>
    memref.store %m, %out[%t] : memref<64xi32>
    gpu.barrier
    return
  }
  gpu.func @k(%out: memref<64xi32>) kernel {
    func.call @wg(%out) : (memref<64xi32>) -> ()
    func.call @wg(%out) : (memref<64xi32>) -> ()
    gpu.return
  }
}
"""
"""`wg` counts its calls in a workgroup global and keeps a scratch buffer of its own:
the global's bytes persist between the two calls, an allocation's would not."""


def test_a_workgroup_global_of_a_device_function_stays_a_global():
    module = _imported(GLOBAL_IN_HELPER)
    assert any(op.name == "memref.global" for op in module.walk())  # issue 30 item 7
    FuseGpuAllocsPass(insert_barriers="never").run(module)
    assert any(op.name == "memref.global" for op in module.walk())
    assert_same_behaviour(corpus.parse(GLOBAL_IN_HELPER), module, LAUNCH, "import, fuse")
