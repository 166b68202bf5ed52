"""Differential tests through the GPU simulator (gpu_alloc.sim).

Each kernel is simulated on seeded random arguments before and after one of this
branch's passes (partition-loops, stripe-lane-allocs, remove-dead-allocs); every
memref argument must end with the same digest and no new race may appear. The
simulator is a separate piece of the project: if it is missing, this module fails to
import, on purpose, rather than skipping.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gpu_alloc.sim.launch import SimulationResult, simulate
from gpu_alloc.tools.sim_loading import parse_module
from gpu_alloc.transforms import (
    PartitionLoopsPass,
    RemoveDeadAllocsPass,
    StripeLaneAllocsPass,
)
from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.passes import ModulePass

EXAMPLES = Path(__file__).parent.parent / "examples"

STENCIL_1D = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<1024xi32>, memref<1024xi32>, index) -> (), kernel}> ({
    ^bb0(%in: memref<1024xi32>, %out: memref<1024xi32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c16 = arith.constant 16 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c32 = arith.constant 32 : index
      %b0 = arith.muli %bx, %c32 : index
      %row = arith.addi %b0, %t : index
      %base = arith.muli %row, %c16 : index
      %last = arith.subi %n, %c1 : index
      %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
        %g = arith.addi %base, %i : index
        %left = arith.cmpi sge, %i, %c1 : index
        %right = arith.cmpi slt, %i, %last : index
        %inside = arith.andi %left, %right : i1
        %v = scf.if %inside -> (i32) {
          %gl = arith.subi %g, %c1 : index
          %gr = arith.addi %g, %c1 : index
          %a = memref.load %in[%gl] : memref<1024xi32>
          %b = memref.load %in[%gr] : memref<1024xi32>
          %s = arith.addi %a, %b : i32
          scf.yield %s : i32
        } else {
          %e = memref.load %in[%g] : memref<1024xi32>
          scf.yield %e : i32
        }
        memref.store %v, %out[%g] : memref<1024xi32>
        %next = arith.addi %acc, %i : index
        scf.yield %next : index
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "stencil_1d"} : () -> ()
  }) : () -> ()
}
"""

STENCIL_2D = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<8x64xi32>, memref<8x64xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<8x64xi32>, %out: memref<8x64xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c7 = arith.constant 7 : index
      %c8 = arith.constant 8 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c8t = arith.muli %t, %c8 : index
      scf.for %y = %c0 to %c8 step %c1 {
        scf.for %x = %c0 to %c8 step %c1 {
          %gx = arith.addi %c8t, %x : index
          %y0 = arith.cmpi sgt, %y, %c0 : index
          %y1 = arith.cmpi slt, %y, %c7 : index
          %x0 = arith.cmpi sge, %x, %c1 : index
          %x1 = arith.cmpi sle, %x, %c7 : index
          %iny = arith.andi %y0, %y1 : i1
          %inx = arith.andi %x0, %x1 : i1
          %in2 = arith.andi %iny, %inx : i1
          %v = memref.load %in[%y, %gx] : memref<8x64xi32>
          %two = arith.constant 2 : i32
          %dbl = arith.muli %v, %two : i32
          %r = arith.select %in2, %dbl, %v : i32
          memref.store %r, %out[%y, %gx] : memref<8x64xi32>
        }
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "stencil_2d"} : () -> ()
  }) : () -> ()
}
"""

# A shared alias made in the loop body from a block-dependent offset computed just
# before it, written and read across a barrier; the bound is uniform.
ALIAS_IN_LOOP = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<256xf32>, memref<256xf32>, index) -> (), kernel}> ({
    ^bb0(%in: memref<256xf32>, %out: memref<256xf32>, %n: index):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %c128 = arith.constant 128 : index
      %shared_alloc = gpu_alloc.alloc "shared_alloc" backing align 16 : memref<256xi8, 3 : i32>
      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %gi0 = arith.muli %bx, %c32 : index
      %gi = arith.addi %gi0, %t : index
      scf.for %i = %c0 to %n step %c1 {
        %parity = arith.remui %bx, %c4 : index
        %slot = arith.muli %parity, %c0 : index
        %off = arith.addi %slot, %c128 : index
        %p = gpu_alloc.offset_pointer %shared_alloc[%off] : memref<256xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>
        %f = gpu_alloc.alias "f" %p : !gpu_alloc.ptr<3 : i32> -> memref<32xf32, 3 : i32>
        %first = arith.cmpi slt, %i, %c1 : index
        %x = memref.load %in[%gi] : memref<256xf32>
        %prev = memref.load %out[%gi] : memref<256xf32>
        %v = arith.select %first, %x, %prev : f32
        memref.store %v, %f[%t] : memref<32xf32, 3 : i32>
        "gpu.barrier"() : () -> ()
        %c31 = arith.constant 31 : index
        %mirror = arith.subi %c31, %t : index
        %w = memref.load %f[%mirror] : memref<32xf32, 3 : i32>
        %s = arith.addf %w, %x : f32
        memref.store %s, %out[%gi] : memref<256xf32>
        "gpu.barrier"() : () -> ()
        gpu_alloc.dealloc %f : memref<32xf32, 3 : i32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "alias_in_loop"} : () -> ()
  }) : () -> ()
}
"""

LANE_STRIPED = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<128xi32>, memref<128xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<128xi32>, %out: memref<128xi32>):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      %c32 = arith.constant 32 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %lane = arith.remui %t, %c32 : index
      %r = gpu_alloc.alloc "r" : memref<128xi32, 5 : i32>
      scf.for %k = %c0 to %c4 step %c1 {
        %m = arith.muli %k, %c32 : index
        %i = arith.addi %lane, %m : index
        %v = memref.load %in[%i] : memref<128xi32>
        memref.store %v, %r[%i] : memref<128xi32, 5 : i32>
      }
      %acc = scf.for %k = %c0 to %c4 step %c1 iter_args(%s = %c0) -> (index) {
        %m = arith.muli %c32, %k : index
        %i = arith.addi %m, %lane : index
        %v = memref.load %r[%i] : memref<128xi32, 5 : i32>
        %vi = arith.index_cast %v : i32 to index
        %s2 = arith.addi %s, %vi : index
        scf.yield %s2 : index
      }
      %o = arith.index_cast %acc : index to i32
      memref.store %o, %out[%t] : memref<128xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "lane_striped"} : () -> ()
  }) : () -> ()
}
"""

WRITE_ONLY_FUNC = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, memref<64xi32>) -> (), kernel}> ({
    ^bb0(%in: memref<64xi32>, %out: memref<64xi32>):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %dead = gpu_alloc.alloc "dead" : memref<64xi32, 3 : i32>
      %live = gpu_alloc.alloc "live" : memref<64xi32, 3 : i32>
      %v = memref.load %in[%t] : memref<64xi32>
      memref.store %v, %dead[%t] : memref<64xi32, 3 : i32>
      memref.store %v, %live[%t] : memref<64xi32, 3 : i32>
      "gpu.barrier"() : () -> ()
      %c63 = arith.constant 63 : index
      %m = arith.subi %c63, %t : index
      %w = memref.load %live[%m] : memref<64xi32, 3 : i32>
      memref.store %w, %out[%t] : memref<64xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "write_only"} : () -> ()
  }) : () -> ()
}
"""


def _simulate(
    text: str, grid: tuple[int, ...], block: tuple[int, ...], scalars: tuple[float, ...]
) -> SimulationResult:
    return simulate(parse_module(text), grid=grid, block=block, seed=7, scalars=scalars)


def _check(
    text: str,
    passes: list[ModulePass],
    grid: tuple[int, ...],
    block: tuple[int, ...],
    scalars: tuple[float, ...] = (),
) -> str:
    """Simulates before and after `passes`; returns the transformed module's text."""
    before = _simulate(text, grid, block, scalars)
    module = parse_module(text)
    for p in passes:
        p.apply(Context(), module)
    module.verify()
    after_text = str(module)
    after = _simulate(after_text, grid, block, scalars)
    assert after.digests() == before.digests()
    assert after.race_count <= before.race_count
    return after_text


@pytest.mark.parametrize("n", [0, 1, 2, 3, 16])
def test_partition_1d_stencil_with_dynamic_bound(n: int):
    after = _check(STENCIL_1D, [PartitionLoopsPass()], (2,), (32,), (float(n),))
    # Split at 1 and n - 1, whose order is only known at run time: a prologue, a
    # middle part versioned on that order (two loops), and an epilogue.
    assert after.count("scf.for") == 4
    assert after.count("arith.cmpi") == 1  # only the version test is left


def test_partition_2d_stencil():
    after = _check(STENCIL_2D, [PartitionLoopsPass()], (1,), (8,))
    assert "arith.select" not in after


@pytest.mark.parametrize("n", [1, 3])
def test_partition_keeps_the_alias_offset_before_the_alias(n: int):
    after = _check(ALIAS_IN_LOOP, [PartitionLoopsPass()], (4,), (32,), (float(n),))
    module = parse_module(after)
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loops) == 2
    for loop in loops:
        names = [op.name for op in loop.body.block.ops]
        assert names.index("gpu_alloc.offset_pointer") < names.index("gpu_alloc.alias")
        assert "gpu_alloc.dealloc" in names


def test_stripe_lane_allocs_keeps_results():
    after = _check(LANE_STRIPED, [StripeLaneAllocsPass()], (1,), (128,))
    assert "memref<4xi32, 5 : i32>" in after


def test_remove_dead_allocs_keeps_results():
    after = _check(WRITE_ONLY_FUNC, [RemoveDeadAllocsPass()], (2,), (64,))
    assert '"dead"' not in after and '"live"' in after


@pytest.mark.parametrize(
    "example, block",
    [("stencil_chain.mlir", (16, 16)), ("mixed_types.mlir", (64,)), ("heap_scratch.mlir", (128,))],
)
def test_all_three_passes_on_the_examples(example: str, block: tuple[int, ...]):
    text = (EXAMPLES / example).read_text()
    passes: list[ModulePass] = [
        RemoveDeadAllocsPass(),
        PartitionLoopsPass(),
        StripeLaneAllocsPass(),
    ]
    after = _check(text, passes, (2,), block)
    # Every Func of the examples is read, nothing is private: nothing may change.
    assert after == str(parse_module(text))
