"""Regression tests for issue 10 §1 §2 §3 §5 §9: barriers that may not run, dead stores
through overlapping aliases, uniform `scf.while`, and deeply nested kernels.

Each reproducer runs through `gpu-alloc-sim` (the correctness oracle) before and
after the passes; a hand-written wrong fusion of the same kernel shows that the
check would catch the old behaviour.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from differential import Launch, check_pipeline, run
from gpu_alloc.dialect.ops import AliasOp, AllocOp
from gpu_alloc.sim.loading import make_context, parse_module
from gpu_alloc.transforms import FuseGpuAllocsPass, RemoveDeadAllocsPass
from gpu_alloc.transforms.block_level_code import gpu_kernels
from gpu_alloc.transforms.kernel_ir import ThreadDependence, walk_ops
from gpu_alloc.transforms.lifetimes import lifetime, stage_map
from handfused import fuse_shared
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.parser import Parser


def _kernel(construct: str, name: str = "k") -> str:
    """X is read last before `construct`, Y written first after it (issue 10's shape)."""
    return f"""
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = (memref<64xi32>, index) -> (), kernel}}> ({{
    ^bb0(%out: memref<64xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %c63 = arith.constant 63 : index
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %X = "gpu_alloc.alloc"() <{{name = "X"}}> : () -> memref<64xi32, 3 : i32>
      %Y = "gpu_alloc.alloc"() <{{name = "Y"}}> : () -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %X[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %t1 = arith.addi %t, %c1 : index
      %r = arith.remui %t1, %c63 : index
      %x = memref.load %X[%r] : memref<64xi32, 3 : i32>
{construct}
      %w = arith.muli %x, %x : i32
      memref.store %w, %Y[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %y = memref.load %Y[%r] : memref<64xi32, 3 : i32>
      memref.store %y, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }}) {{sym_name = "{name}"}} : () -> ()
  }}) : () -> ()
}}
"""


BARRIER = '"gpu.barrier"() : () -> ()'
IF_BARRIER = _kernel(
    f"""      %cond = arith.cmpi ugt, %n, %c5 : index
      scf.if %cond {{
        {BARRIER}
      }}"""
)
"""Issue 10 §1: a barrier under a block-uniform `scf.if` without else."""
LOOP_BARRIER = _kernel(
    f"""      scf.for %i = %c0 to %n step %c1 {{
        {BARRIER}
      }}"""
)
"""Issue 10 §2: a barrier in a loop that runs zero times when %n = 0."""
WHILE_BARRIER = _kernel(
    f"""      %z = scf.while (%k = %c0) : (index) -> index {{
        %more = arith.cmpi ult, %k, %n : index
        scf.condition(%more) %k : index
      }} do {{
      ^bb0(%k2: index):
        {BARRIER}
        %next = arith.addi %k2, %c1 : index
        scf.yield %next : index
      }}"""
)
"""The same with the barrier in an `scf.while` body, which may run zero times."""

REPRODUCERS = {"if": IF_BARRIER, "for": LOOP_BARRIER, "while": WHILE_BARRIER}
PIPELINES = [
    ("fuse-gpu-allocs",),
    ("fuse-gpu-allocs", "flatten-aliases"),
    ("fuse-gpu-allocs", "flatten-aliases", "remove-dead-allocs", "lower-gpu-allocs"),
]


def _launch(n: int) -> Launch:
    return Launch(grid=(1,), block=(64,), scalars=(float(n),))


@pytest.mark.parametrize("n", [0, 10])
@pytest.mark.parametrize("pipeline", PIPELINES, ids=",".join)
@pytest.mark.parametrize("construct", sorted(REPRODUCERS))
def test_a_barrier_that_may_not_run_does_not_separate(
    construct: str, pipeline: tuple[str, ...], n: int
):
    text = REPRODUCERS[construct]
    assert run(parse_module(text), _launch(n)).races == []
    check_pipeline(text, _launch(n), pipeline)  # same digests, no race


@pytest.mark.parametrize("construct", sorted(REPRODUCERS))
def test_sharing_bytes_across_such_a_barrier_races(construct: str):
    """What the old stage numbering produced (X and Y at offset 0) races with n = 0, so
    the differential check above would catch the bug."""
    wrong = fuse_shared(REPRODUCERS[construct], {"X": 0, "Y": 0}, 256)
    races = run(parse_module(wrong), _launch(0)).races
    assert frozenset({"X", "Y"}) in {frozenset(r.funcs) for r in races}
    assert run(parse_module(wrong), _launch(10)).races == []


# ---- remove-dead-allocs through overlapping aliases (issue 10 §3) ------------------------

OVERLAP = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>):
      %c1 = arith.constant 1 : index
      %c63 = arith.constant 63 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %shared_alloc = gpu_alloc.alloc "shared_alloc" align 16 : memref<512xi8, 3 : i32>
      %a_offset = arith.constant 0 : index
      %pa = gpu_alloc.offset_pointer %shared_alloc[%a_offset] : memref<512xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %A = gpu_alloc.alias "A" %pa : !gpu_alloc.ptr<3 : i32> -> memref<64xi32, 3 : i32>
      %b_offset = arith.constant 0 : index
      %pb = gpu_alloc.offset_pointer %shared_alloc[%b_offset] : memref<512xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
      %B = gpu_alloc.alias "B" %pb : !gpu_alloc.ptr<3 : i32> -> memref<64xi32, 3 : i32>
      %ti = arith.index_cast %t : index to i32
      memref.store %ti, %A[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %t1 = arith.addi %t, %c1 : index
      %r = arith.remui %t1, %c63 : index
      %b = memref.load %B[%r] : memref<64xi32, 3 : i32>
      memref.store %b, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "overlap"} : () -> ()
  }) : () -> ()
}
"""
"""Issue 10 §3: a store through A, a barrier, a load through B over the same bytes."""


def _storage_names(module: ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.walk():
        if isinstance(op, AllocOp):
            names.add(op.alloc_name.data)
        elif isinstance(op, AliasOp):
            names.add(op.alias_name.data)
    return names


def test_a_store_read_through_an_overlapping_alias_is_kept():
    module = parse_module(OVERLAP)
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _storage_names(module) == {"A", "B", "shared_alloc"}
    launch = Launch(grid=(2,), block=(64,))
    check_pipeline(OVERLAP, launch, ("remove-dead-allocs",))
    check_pipeline(OVERLAP, launch, ("remove-dead-allocs", "flatten-aliases"))


@pytest.mark.parametrize(
    ("b_offset", "kept"), [(256, {"B", "shared_alloc"}), (252, {"A", "B", "shared_alloc"})]
)
def test_only_aliases_whose_bytes_may_overlap_a_read_one_stay(b_offset: int, kept: set[str]):
    """B at 256 is disjoint from A's 256 bytes, so the write-only A goes; at 252 their
    last and first words overlap and A stays."""
    text = OVERLAP.replace("%b_offset = arith.constant 0", f"%b_offset = arith.constant {b_offset}")
    module = parse_module(text)
    RemoveDeadAllocsPass().apply(make_context(), module)
    assert _storage_names(module) == kept
    check_pipeline(text, Launch(grid=(2,), block=(64,)), ("remove-dead-allocs",))


# ---- uniform scf.while, scf.for iter_args and scf.if results (issue 10 §5) ------------------

UNIFORM_WHILE = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c3 = arith.constant 3 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ti = arith.index_cast %t : index to i32
      %r:2 = scf.while (%k = %c0, %acc = %ti) : (index, i32) -> (index, i32) {
        %more = arith.cmpi ult, %k, %c3 : index
        scf.condition(%more) %k, %acc : index, i32
      } do {
      ^bb0(%k2: index, %acc2: i32):
        %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
        memref.store %acc2, %A[%t] : memref<64xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %c63 = arith.constant 63 : index
        %j = arith.subi %c63, %t : index
        %a = memref.load %A[%j] : memref<64xi32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %next = arith.addi %k2, %c1 : index
        %sum = arith.addi %acc2, %a : i32
        scf.yield %next, %sum : index, i32
      }
      memref.store %r#1, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "uniform_while"} : () -> ()
  }) : () -> ()
}
"""


def _results_of(module: ModuleOp, op_type: type) -> list:
    return [r for op in module.walk() if isinstance(op, op_type) for r in op.results]


def test_a_counter_while_is_uniform_and_its_thread_values_are_not():
    module = parse_module(UNIFORM_WHILE)
    kernel = gpu_kernels(module)[0]
    depends = ThreadDependence(kernel)
    counter, accumulator = _results_of(module, scf.WhileOp)
    assert not depends(counter)
    assert depends(accumulator)
    condition = next(op for op in module.walk() if isinstance(op, scf.ConditionOp))
    assert not depends(condition.condition)


def test_a_shared_allocation_in_a_uniform_while_is_fused():
    """A is hoisted out of the loop to the kernel's entry (the barrier after its last
    access closes the back edge, so none is added), and the results stay the same."""
    module = parse_module(UNIFORM_WHILE)
    FuseGpuAllocsPass(insert_barriers="never").apply(make_context(), module)
    kernel = gpu_kernels(module)[0]
    (alloc,) = [op for op in walk_ops(kernel) if isinstance(op, AllocOp)]
    assert alloc.alloc_name.data == "A" and alloc.parent_block() is kernel.body.blocks[0]
    loop = next(op for op in walk_ops(kernel) if isinstance(op, scf.WhileOp))
    assert not loop.is_ancestor(alloc)
    assert sum(op.name == "gpu.barrier" for op in walk_ops(kernel)) == 2
    for pipeline in [("fuse-gpu-allocs",), ("fuse-gpu-allocs", "flatten-aliases")]:
        check_pipeline(UNIFORM_WHILE, Launch(grid=(2,), block=(64,)), pipeline)


def test_a_while_on_a_thread_id_is_still_refused():
    text = UNIFORM_WHILE.replace(
        "%more = arith.cmpi ult, %k, %c3", "%more = arith.cmpi ult, %k, %t"
    )
    with pytest.raises(Exception, match="thread-dependent control flow \\('scf.while'\\)"):
        FuseGpuAllocsPass().apply(make_context(), parse_module(text))


ITER_ARGS = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %u, %d = scf.for %i = %c0 to %n step %c1 iter_args(%a = %c0, %b = %t) -> (index, index) {
        %a2 = arith.addi %a, %i : index
        %b2 = arith.addi %b, %c1 : index
        scf.yield %a2, %b2 : index, index
      }
      %p = arith.cmpi ult, %u, %n : index
      %q = arith.cmpi ult, %d, %n : index
      %s = scf.if %p -> (index) {
        scf.yield %u : index
      } else {
        scf.yield %c1 : index
      }
      %s2 = scf.if %q -> (index) {
        scf.yield %u : index
      } else {
        scf.yield %c1 : index
      }
      %s3 = scf.if %p -> (index) {
        scf.yield %t : index
      } else {
        scf.yield %c1 : index
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


def test_for_iter_args_and_if_results_are_uniform_when_their_inputs_are():
    module = parse_module(ITER_ARGS)
    depends = ThreadDependence(gpu_kernels(module)[0])
    uniform_sum, thread_sum = _results_of(module, scf.ForOp)
    assert not depends(uniform_sum)
    assert depends(thread_sum)
    uniform_if, dependent_condition, dependent_yield = _results_of(module, scf.IfOp)
    assert not depends(uniform_if)
    assert depends(dependent_condition)
    assert depends(dependent_yield)
    assert not depends(next(r for r in _results_of(module, arith.CmpiOp)))


# ---- no recursion limit (issue 10 §9, fuse side) --------------------------------------------


def _deep_kernel(depth: int) -> str:
    """`depth` nested block-uniform `scf.if`s, each condition computed from the one
    before; the innermost holds the only barrier between X's and Y's uses."""
    lines = [
        "builtin.module {",
        '  "gpu.module"() <{sym_name = "m"}> ({',
        '    "gpu.func"() <{function_type = (index) -> (), kernel}> ({',
        "    ^bb0(%n: index):",
        "      %c0 = arith.constant 0 : index",
        "      %v = arith.constant 1 : i32",
        '      %X = "gpu_alloc.alloc"() <{name = "X"}> : () -> memref<64xi32, 3 : i32>',
        '      %Y = "gpu_alloc.alloc"() <{name = "Y"}> : () -> memref<64xi32, 3 : i32>',
        "      memref.store %v, %X[%c0] : memref<64xi32, 3 : i32>",
        "      %m0 = arith.addi %n, %c0 : index",
    ]
    for k in range(depth):
        lines += [
            f"      %m{k + 1} = arith.addi %m{k}, %n : index",
            f"      %k{k} = arith.cmpi ugt, %m{k + 1}, %c0 : index",
            f"      scf.if %k{k} {{",
        ]
    lines.append(f"      {BARRIER}")
    lines += ["      }"] * depth
    lines += [
        "      memref.store %v, %Y[%c0] : memref<64xi32, 3 : i32>",
        '      "gpu.return"() : () -> ()',
        '    }) {sym_name = "k"} : () -> ()',
        "  }) : () -> ()",
        "}",
    ]
    return "\n".join(lines)


@contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(limit)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


@pytest.mark.parametrize("depth", [300, 1000])
def test_deeply_nested_uniform_ifs_need_no_recursion(depth: int):
    ctx = make_context()
    with _recursion_limit(50 * depth):  # xDSL's parser is recursive; the passes must not be
        module = Parser(ctx, _deep_kernel(depth)).parse_module()
    with _recursion_limit(1000):
        kernel = gpu_kernels(module)[0]
        depends = ThreadDependence(kernel)
        assert not any(depends(op.cond) for op in walk_ops(kernel) if isinstance(op, scf.IfOp))
        stages = stage_map(kernel)
        assert stages.intact
        x, y = [op for op in walk_ops(kernel) if isinstance(op, AllocOp)]
        assert lifetime(x, x.memref, stages).overlaps(lifetime(y, y.memref, stages))
        FuseGpuAllocsPass().apply(ctx, module)
        backing = next(op for op in walk_ops(module) if isinstance(op, AllocOp))
        assert isinstance(backing.memref.type, MemRefType)
        assert backing.memref.type.get_shape() == (512,)  # X and Y do not share bytes


# ---- a view's creation is not an access (issue 12 §3a) -------------------------------------


def _view_kernel(view_use: str = "") -> str:
    """X's subview is made first; Y is written and read, then X is written and read
    through the view, each access one barrier apart. `view_use` goes right after the view."""
    return f"""
gpu.module @m {{
  gpu.func @views(%out: memref<64xi32>) kernel {{
    %c1 = arith.constant 1 : index
    %c63 = arith.constant 63 : index
    %t = gpu.thread_id x
    %t1 = arith.addi %t, %c1 : index
    %r = arith.remui %t1, %c63 : index
    %X = "gpu_alloc.alloc"() <{{name = "X"}}> : () -> memref<64xi32, 3 : i32>
    %Y = "gpu_alloc.alloc"() <{{name = "Y"}}> : () -> memref<64xi32, 3 : i32>
    %Xv = memref.subview %X[0] [64] [1] : memref<64xi32, 3 : i32> to memref<64xi32, strided<[1]>, 3 : i32>
{view_use}
    %ti = arith.index_cast %t : index to i32
    memref.store %ti, %Y[%t] : memref<64xi32, 3 : i32>
    gpu.barrier
    %y = memref.load %Y[%r] : memref<64xi32, 3 : i32>
    gpu.barrier
    memref.store %y, %Xv[%t] : memref<64xi32, strided<[1]>, 3 : i32>
    gpu.barrier
    %x = memref.load %Xv[%r] : memref<64xi32, strided<[1]>, 3 : i32>
    memref.store %x, %out[%t] : memref<64xi32>
    gpu.return
  }}
}}
"""


def _lifetimes(text: str) -> dict[str, tuple[int, int]]:
    module = parse_module(text)
    kernel = gpu_kernels(module)[0]
    stages = stage_map(kernel)
    found: dict[str, tuple[int, int]] = {}
    for op in walk_ops(kernel):
        if isinstance(op, AllocOp):
            life = lifetime(op, op.memref, stages)
            found[op.alloc_name.data] = (life.start, life.end)
    return found


def _shared_backing_bytes(module: ModuleOp) -> int:
    backing = next(
        op
        for op in walk_ops(module)
        if isinstance(op, AllocOp) and op.alloc_name.data == "shared_alloc"
    )
    assert isinstance(backing.memref.type, MemRefType)
    return backing.memref.type.get_shape()[0]


def test_a_view_made_early_does_not_keep_its_buffer_live():
    """X lives from its first access through the view (stage 2), not from the view's
    creation (stage 0): it shares Y's bytes, and the simulator finds no race."""
    text = _view_kernel()
    assert _lifetimes(text) == {"X": (2, 4), "Y": (0, 2)}
    module = parse_module(text)
    FuseGpuAllocsPass().apply(make_context(), module)
    assert _shared_backing_bytes(module) == 256
    launch = Launch(grid=(2,), block=(64,))
    for pipeline in PIPELINES:
        check_pipeline(text, launch, pipeline)


@pytest.mark.parametrize(
    "view_use",
    [
        "    %early = memref.load %Xv[%c1] : memref<64xi32, strided<[1]>, 3 : i32>",
        '    "test.opaque"(%Xv) : (memref<64xi32, strided<[1]>, 3 : i32>) -> ()',
        "    %Xc = memref.cast %Xv : memref<64xi32, strided<[1]>, 3 : i32> to "
        "memref<?xi32, strided<[1]>, 3 : i32>\n"
        '    "test.opaque"(%Xc) : (memref<?xi32, strided<[1]>, 3 : i32>) -> ()',
    ],
    ids=["read-through-the-view", "view-escapes", "view-of-view-escapes"],
)
def test_an_access_or_escape_through_a_view_still_counts(view_use: str):
    """A read through the view in stage 0, or the view (or a view of it) escaping to an
    op the table does not know, keeps X live where Y is: they get different bytes."""
    lifetimes = _lifetimes(_view_kernel(view_use))
    assert lifetimes["X"][0] == 0
    assert lifetimes["X"][1] > lifetimes["Y"][0]


def test_sharing_a_view_made_buffer_without_the_barrier_races():
    """Without the barrier between Y's read and X's first write, X and Y at one offset
    race: the check above would catch a lifetime that started too late."""
    text = _view_kernel().replace(
        "    gpu.barrier\n    memref.store %y, %Xv", "    memref.store %y, %Xv", 1
    )
    assert _lifetimes(text)["X"][0] == 1  # now in Y's last stage: no sharing
    wrong = fuse_shared(text, {"X": 0, "Y": 0}, 256)
    races = run(parse_module(wrong), Launch(grid=(1,), block=(64,))).races
    assert frozenset({"Xv", "Y"}) in {frozenset(r.funcs) for r in races}  # X via its view
