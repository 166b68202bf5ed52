"""Issue 19 §3: a shared allocation made in a loop body is hoisted without a new race.

An allocation in a loop body is a new buffer on every iteration (the simulator gives each
execution of the op its own arena). Fusion hoists it to the entry: it either finds a
barrier that closes the loop's back edge for the Func, or a barrier-free loop that touches
the same bytes every iteration, or inserts a barrier at the end of the body (under
`insert-barriers`, reported), or refuses the kernel with a located diagnostic. Each
reproducer is simulated before and after; a hand-made hoist without the barrier shows the
simulator would catch the race.
"""

from __future__ import annotations

import pytest
from corpus import outline
from differential import Launch, assert_same_behaviour, check_pipeline, run
from gpu_alloc.dialect import AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.sim.loading import make_context, parse_module
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.lifetimes import stage_map
from gpu_alloc.transforms.loop_allocs import open_loop
from hypothesis import HealthCheck, given, settings
from kernelgen_loops import LoopLocalKernel, loop_local_kernels
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.printer import Printer
from xdsl.rewriter import Rewriter


def _loop_kernel(body: str, bounds: str = "%c0 to %c3 step %c1") -> str:
    """A kernel whose `scf.for` body is `body`; %A is made in the body."""
    return f"""
gpu.module @m {{
  gpu.func @loop(%out: memref<64xi32>) kernel {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %c64 = arith.constant 64 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    scf.for %i = {bounds} {{
      %A = "gpu_alloc.alloc"() <{{name = "f0"}}> : () -> memref<64xi32, 3 : i32>
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %ti, %ii : i32
{body}
      %o = memref.load %out[%t] : memref<64xi32>
      %s = arith.addi %o, %a : i32
      memref.store %s, %out[%t] : memref<64xi32>
    }}
    gpu.return
  }}
}}
"""


RACY_HOIST = _loop_kernel(
    """      memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier
      %a = memref.load %A[%r] : memref<64xi32, 3 : i32>"""
)
"""The issue's reproducer: each iteration writes its own element, and after a barrier
reads a neighbour's. Hoisted, iteration i+1's write races with iteration i's read."""

SAME_BYTES = _loop_kernel(
    """      memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      %a = memref.load %A[%t] : memref<64xi32, 3 : i32>"""
)
"""No barrier in the loop, and every iteration touches the same bytes from the same threads."""

MOVING_BYTES = _loop_kernel(
    """      %ti2 = arith.addi %t, %i : index
      %j = arith.remui %ti2, %c64 : index
      memref.store %v, %A[%j] : memref<64xi32, 3 : i32>
      %a = memref.load %A[%j] : memref<64xi32, 3 : i32>"""
)
"""No barrier in the loop, but iteration i's thread t touches element (t + i) % 64, which
thread t + 1 touched in iteration i - 1: hoisted, that is a race."""

WHILE_KERNEL = """
gpu.module @m {
  gpu.func @loop(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    %n = scf.while (%k = %c0) : (index) -> index {
      %more = arith.cmpi ult, %k, %c3 : index
      scf.condition(%more) %k : index
    } do {
    ^bb0(%k2: index):
      %A = "gpu_alloc.alloc"() <{name = "f0"}> : () -> memref<64xi32, 3 : i32>
      %kk = arith.index_cast %k2 : index to i32
      %v = arith.addi %ti, %kk : i32
      memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier
      %a = memref.load %A[%r] : memref<64xi32, 3 : i32>
      %o = memref.load %out[%t] : memref<64xi32>
      %s = arith.addi %o, %a : i32
      memref.store %s, %out[%t] : memref<64xi32>
      %next = arith.addi %k2, %c1 : index
      scf.yield %next : index
    }
    gpu.return
  }
}
"""

LAUNCH_KERNEL = """
func.func @host(%out: memref<64xi32>) {
  %one = arith.constant 1 : index
  %size = arith.constant 64 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one) threads(%t, %ty, %tz) in (%sx = %size, %sy = %one, %sz = %one) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %A = "gpu_alloc.alloc"() <{name = "f0"}> : () -> memref<64xi32, 3 : i32>
      %ii = arith.index_cast %i : index to i32
      %v = arith.addi %ti, %ii : i32
      memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier
      %a = memref.load %A[%r] : memref<64xi32, 3 : i32>
      %o = memref.load %out[%t] : memref<64xi32>
      %s = arith.addi %o, %a : i32
      memref.store %s, %out[%t] : memref<64xi32>
    }
    gpu.terminator
  }
  return
}
"""

LAUNCH = Launch(grid=(2,), block=(64,))
PIPELINES = [
    ("fuse-gpu-allocs",),
    ("fuse-gpu-allocs", "remove-dead-allocs", "flatten-aliases"),
    ("fuse-gpu-allocs", "flatten-aliases", "lower-gpu-allocs"),
]


def _fuse(text: str, **options) -> ModuleOp:
    module = parse_module(text)
    FuseGpuAllocsPass(**options).apply(make_context(), module)
    module.verify()
    return module


def _barriers(op: Operation) -> list[gpu.BarrierOp]:
    return [o for o in op.walk() if isinstance(o, gpu.BarrierOp)]


def _loop(module: ModuleOp) -> scf.ForOp | scf.WhileOp:
    return next(o for o in module.walk() if isinstance(o, scf.ForOp | scf.WhileOp))


def _body_ends_with_barrier(loop: scf.ForOp | scf.WhileOp) -> bool:
    block = loop.body.block if isinstance(loop, scf.ForOp) else loop.after_region.blocks[0]
    ops = list(block.ops)
    return len(ops) >= 2 and isinstance(ops[-2], gpu.BarrierOp)


@pytest.mark.parametrize(
    "text", [RACY_HOIST, MOVING_BYTES, WHILE_KERNEL], ids=["for", "moving", "while"]
)
def test_the_original_is_race_free_and_a_plain_hoist_races(text: str):
    """What fusion did before: the allocation moved to the entry with nothing else."""
    assert run(parse_module(text), LAUNCH).races == []
    module = parse_module(text)
    alloc = next(o for o in module.walk() if isinstance(o, AllocOp))
    alloc.detach()
    kernel = next(o for o in module.walk() if isinstance(o, gpu.FuncOp))
    Rewriter.insert_op(alloc, _entry_start(kernel))
    assert "f0" in {f for race in run(module, LAUNCH).races for f in race.funcs}


def _entry_start(kernel: gpu.FuncOp):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.at_start(kernel.body.blocks[0])


@pytest.mark.parametrize("mode", ["over-limit", "always"])
@pytest.mark.parametrize(
    "text", [RACY_HOIST, MOVING_BYTES, WHILE_KERNEL], ids=["for", "moving", "while"]
)
def test_a_barrier_closes_the_back_edge(text: str, mode: str, capsys: pytest.CaptureFixture[str]):
    module = _fuse(text, insert_barriers=mode)
    remark = capsys.readouterr().err
    assert "closes the loop's back edge, so 'f0' (made in the loop) can be hoisted" in remark
    loop = _loop(module)
    assert _body_ends_with_barrier(loop)
    assert not any(loop.is_ancestor(o) for o in module.walk() if isinstance(o, AllocOp))
    assert_same_behaviour(parse_module(text), module, LAUNCH, f"insert-barriers={mode}")


@pytest.mark.parametrize("pipeline", PIPELINES, ids=",".join)
@pytest.mark.parametrize(
    "text", [RACY_HOIST, MOVING_BYTES, WHILE_KERNEL], ids=["for", "moving", "while"]
)
def test_every_pipeline_keeps_the_results(text: str, pipeline: tuple[str, ...]):
    check_pipeline(text, LAUNCH, pipeline)


def test_without_the_inserted_barrier_the_fused_kernel_races():
    module = _fuse(RACY_HOIST)
    loop = _loop(module)
    assert isinstance(loop, scf.ForOp)
    Rewriter.erase_op(list(loop.body.block.ops)[-2])
    assert "f0" in {f for race in run(module, LAUNCH).races for f in race.funcs}


@pytest.mark.parametrize("text", [RACY_HOIST, WHILE_KERNEL], ids=["for", "while"])
def test_never_refuses_with_a_located_reason(text: str):
    module = parse_module(text)
    before = str(module)
    with pytest.raises(GpuAllocPassError) as error:
        FuseGpuAllocsPass(insert_barriers="never").apply(make_context(), module)
    assert "shared allocation 'f0' is made in an" in error.value.message
    assert "no gpu.barrier closing the loop's back edge" in error.value.message
    assert isinstance(error.value.op, AllocOp) and error.value.op.alloc_name.data == "f0"
    assert str(module) == before


def test_a_loop_touching_the_same_bytes_needs_no_barrier(capsys: pytest.CaptureFixture[str]):
    module = _fuse(SAME_BYTES, insert_barriers="never")
    assert _barriers(module) == []
    assert capsys.readouterr().err == ""
    assert_same_behaviour(parse_module(SAME_BYTES), module, LAUNCH, "hoisted without a barrier")


def test_an_existing_barrier_at_the_end_of_the_body_is_enough():
    text = RACY_HOIST.replace(
        "      memref.store %s, %out[%t] : memref<64xi32>\n    }",
        "      memref.store %s, %out[%t] : memref<64xi32>\n      gpu.barrier\n    }",
    )
    module = _fuse(text, insert_barriers="never")
    assert len(_barriers(module)) == 2
    assert_same_behaviour(parse_module(text), module, LAUNCH, "closed by the user's barrier")


def test_open_loop_is_the_innermost_loop_to_close():
    """Nested: the inner loop touches the same bytes every trip (no barrier in it), the
    outer loop's barrier does not close its back edge: the outer loop needs one."""
    text = RACY_HOIST.replace(
        """      memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier""",
        """      scf.for %k = %c0 to %c3 step %c1 {
        memref.store %v, %A[%t] : memref<64xi32, 3 : i32>
      }
      gpu.barrier""",
    )
    module = parse_module(text)
    kernel = next(o for o in module.walk() if isinstance(o, gpu.FuncOp))
    alloc = next(o for o in module.walk() if isinstance(o, AllocOp))
    found = open_loop(alloc, kernel, stage_map(kernel))
    assert found is not None and found.loop is _loop(module)
    check_pipeline(text, LAUNCH, ("fuse-gpu-allocs", "flatten-aliases"))


def test_an_allocation_carried_to_the_next_iteration_is_refused():
    text = """
gpu.module @m {
  gpu.func @carried(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %t = gpu.thread_id x
    %init = "gpu_alloc.alloc"() <{name = "init"}> : () -> memref<64xi32, 3 : i32>
    %last = scf.for %i = %c0 to %c3 step %c1 iter_args(%prev = %init) -> (memref<64xi32, 3 : i32>) {
      %A = "gpu_alloc.alloc"() <{name = "f0"}> : () -> memref<64xi32, 3 : i32>
      %x = memref.load %prev[%t] : memref<64xi32, 3 : i32>
      memref.store %x, %A[%t] : memref<64xi32, 3 : i32>
      scf.yield %A : memref<64xi32, 3 : i32>
    }
    gpu.return
  }
}
"""
    for mode in ("never", "always"):
        with pytest.raises(GpuAllocPassError, match="'f0' is carried out of the loop iteration"):
            FuseGpuAllocsPass(insert_barriers=mode).apply(make_context(), parse_module(text))


def _generic(module: ModuleOp) -> str:
    from io import StringIO

    stream = StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def test_in_a_launch_body_too():
    """Outlined by mlir-opt-22, the launch body is simulated before and after fusion."""
    fused = parse_module(LAUNCH_KERNEL)
    FuseGpuAllocsPass().apply(make_context(), fused)
    assert _body_ends_with_barrier(_loop(fused))
    before, after = outline(_generic(parse_module(LAUNCH_KERNEL))), outline(_generic(fused))
    launch = Launch(grid=(1,), block=(64,), kernel="host_kernel")
    assert run(before, launch).races == []
    assert_same_behaviour(before, after, launch, "fuse-gpu-allocs in a gpu.launch body")


# ---- random kernels ---------------------------------------------------------------------

RANDOM = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _launch_of(kernel: LoopLocalKernel) -> Launch:
    return Launch(kernel.grid, kernel.block, tuple(map(float, kernel.scalars)))


@RANDOM
@given(loop_local_kernels())
def test_random_loop_local_funcs_keep_results_through_every_pipeline(kernel: LoopLocalKernel):
    launch = _launch_of(kernel)
    assert run(parse_module(kernel.text), launch).races == []
    for pipeline in PIPELINES:
        check_pipeline(kernel.text, launch, pipeline)
    fused = _fuse(kernel.text, insert_barriers="always")
    assert_same_behaviour(parse_module(kernel.text), fused, launch, "insert-barriers=always")


@RANDOM
@given(loop_local_kernels())
def test_never_refuses_exactly_the_kernels_that_need_a_barrier(kernel: LoopLocalKernel):
    module = parse_module(kernel.text)
    barriers = len(_barriers(module))
    try:
        FuseGpuAllocsPass(insert_barriers="never").apply(make_context(), module)
    except GpuAllocPassError as error:
        assert kernel.needs_barrier, error.message
        assert "no gpu.barrier closing the loop's back edge" in error.message
        return
    assert not kernel.needs_barrier
    assert len(_barriers(module)) == barriers
    assert_same_behaviour(parse_module(kernel.text), module, _launch_of(kernel), "never")


def test_where_no_barrier_may_go_the_kernel_is_refused_with_the_reason():
    """The loop is in a device function some thread-dependent branch calls: a barrier
    there would be met by part of the block, so fusion refuses instead of inserting one."""
    text = """
gpu.module @m {
  func.func @helper(%out: memref<64xi32>, %t: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c63 = arith.constant 63 : index
    %ti = arith.index_cast %t : index to i32
    scf.for %i = %c0 to %c3 step %c1 {
      %A = "gpu_alloc.alloc"() <{name = "f0"}> : () -> memref<64xi32, 3 : i32>
      memref.store %ti, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier
      %a = memref.load %A[%c63] : memref<64xi32, 3 : i32>
      memref.store %a, %out[%t] : memref<64xi32>
    }
    return
  }
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c32 = arith.constant 32 : index
    %t = gpu.thread_id x
    %p = arith.cmpi ult, %t, %c32 : index
    scf.if %p {
      func.call @helper(%out, %t) : (memref<64xi32>, index) -> ()
    }
    gpu.return
  }
}
"""
    module = parse_module(text)
    before = str(module)
    with pytest.raises(GpuAllocPassError) as error:
        FuseGpuAllocsPass().apply(make_context(), module)
    assert error.value.message.endswith(
        "and no barrier may be inserted in 'helper': 'helper' is called under "
        "thread-dependent control flow in 'k'"
    )
    assert str(module) == before


def test_no_back_edge_barrier_in_unstructured_code():
    """A loop in a block some threads branch to (`cf.cond_br` on the thread id) is not a
    place every thread reaches: the kernel is refused, not given a barrier there."""
    text = """
gpu.module @m {
  gpu.func @k(%out: memref<64xi32>) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %c32 = arith.constant 32 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %p = arith.cmpi ult, %t, %c32 : index
    cf.cond_br %p, ^bb1, ^bb2
  ^bb1:
    scf.for %i = %c0 to %c3 step %c1 {
      %A = "gpu_alloc.alloc"() <{name = "f0"}> : () -> memref<64xi32, 3 : i32>
      memref.store %ti, %A[%t] : memref<64xi32, 3 : i32>
      gpu.barrier
      %a = memref.load %A[%c63] : memref<64xi32, 3 : i32>
      memref.store %a, %out[%t] : memref<64xi32>
    }
    cf.br ^bb2
  ^bb2:
    gpu.return
  }
}
"""
    module = parse_module(text)
    with pytest.raises(GpuAllocPassError, match="its body has several blocks"):
        FuseGpuAllocsPass(insert_barriers="always").apply(make_context(), module)
    assert len(_barriers(module)) == 1  # as it was
