"""Race, barrier-divergence and out-of-bounds detection."""

from __future__ import annotations

import pytest
from gpu_alloc.sim.errors import BarrierDivergenceError, MemoryAccessError, SimulationError
from gpu_alloc.sim.launch import simulate
from gpu_alloc.tools.sim_loading import parse_module


def kernel(
    body: str,
    arguments: tuple[tuple[str, str], ...] = (("out", "memref<64xi32>"),),
    extra_attributes: str = "",
) -> str:
    types = ", ".join(t for _, t in arguments)
    block_arguments = ", ".join(f"%{n}: {t}" for n, t in arguments)
    return f"""
builtin.module {{
  "gpu.module"() <{{sym_name = "m"}}> ({{
    "gpu.func"() <{{function_type = ({types}) -> (), kernel}}> ({{
    ^bb0({block_arguments}):
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c32 = arith.constant 32 : index
      %c63 = arith.constant 63 : index
      %c64 = arith.constant 64 : index
      %t = "gpu.thread_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %bx = "gpu.block_id"() <{{dimension = #gpu<dim x>}}> : () -> index
      %ti = arith.index_cast %t : index to i32
{body}
      "gpu.return"() : () -> ()
    }}) {{sym_name = "k"{extra_attributes}}} : () -> ()
  }}) : () -> ()
}}
"""


def run(text: str, grid: int = 1, block: int = 64):
    return simulate(parse_module(text), grid=(grid,), block=(block,))


SHARED_NEIGHBOUR = """
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<64xi32, 3 : i32>
      memref.store %ti, %s[%t] : memref<64xi32, 3 : i32>
      {barrier}
      %r = arith.subi %c63, %t : index
      %v = memref.load %s[%r] : memref<64xi32, 3 : i32>
      memref.store %v, %out[%t] : memref<64xi32>
"""


def test_read_of_another_threads_write_without_barrier_is_a_race():
    result = run(kernel(SHARED_NEIGHBOUR.replace("{barrier}", "")))
    assert len(result.races) == 1
    race = result.races[0]
    assert race.funcs == ("s", "s")
    assert (race.earlier.is_write, race.later.is_write) == (True, False)
    assert race.space == 3 and not race.across_blocks
    assert "race on shared memory 's'" in race.describe()
    assert "writes 's'" in race.describe() and "reads 's'" in race.describe()


def test_a_barrier_orders_the_accesses():
    result = run(kernel(SHARED_NEIGHBOUR.replace("{barrier}", '"gpu.barrier"() : () -> ()')))
    assert result.races == []
    assert result.arguments[0].array.tolist() == list(range(63, -1, -1))


def test_each_thread_touching_its_own_bytes_is_no_race():
    body = """
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<64xi32, 3 : i32>
      memref.store %ti, %s[%t] : memref<64xi32, 3 : i32>
      %v = memref.load %s[%t] : memref<64xi32, 3 : i32>
      memref.store %v, %s[%t] : memref<64xi32, 3 : i32>
"""
    assert run(kernel(body)).races == []


def test_all_threads_writing_one_element_is_a_race():
    body = """
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<64xi32, 3 : i32>
      memref.store %ti, %s[%c0] : memref<64xi32, 3 : i32>
"""
    race = run(kernel(body)).races[0]
    assert race.earlier.is_write and race.later.is_write
    assert race.byte == 0


@pytest.mark.parametrize(
    ("writer", "other"),
    [("%c0", "thread (63, 0, 0)"), ("%c63", "another thread")],
)
def test_many_readers_then_one_writer_is_a_race(writer: str, other: str):
    """All threads read s[0], then one thread writes it: the log keeps the last
    reader, or says 'another thread' when the writer itself was that reader."""
    body = f"""
      %s = "gpu_alloc.alloc"() <{{name = "s"}}> : () -> memref<64xi32, 3 : i32>
      %v = memref.load %s[%c0] : memref<64xi32, 3 : i32>
      %first = arith.cmpi eq, %t, {writer} : index
      scf.if %first {{
        memref.store %ti, %s[%c0] : memref<64xi32, 3 : i32>
      }}
"""
    race = run(kernel(body)).races[0]
    assert (race.earlier.is_write, race.later.is_write) == (False, True)
    assert race.earlier_agent == other
    assert race.later_agent == ("thread (0, 0, 0)" if writer == "%c0" else "thread (63, 0, 0)")


def test_overlapping_aliases_race_under_their_own_names():
    body = """
      %b = "gpu_alloc.alloc"() <{name = "shared_alloc"}> : () -> memref<256xi8, 3 : i32>
      %p1 = "gpu_alloc.offset_pointer"(%b, %c0) : (memref<256xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %f1 = "gpu_alloc.alias"(%p1) <{name = "f1"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<64xi32, 3 : i32>
      %p2 = "gpu_alloc.offset_pointer"(%b, %c0) : (memref<256xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %f2 = "gpu_alloc.alias"(%p2) <{name = "f2"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<64xi32, 3 : i32>
      memref.store %ti, %f1[%t] : memref<64xi32, 3 : i32>
      %r = arith.subi %c63, %t : index
      %v = memref.load %f2[%r] : memref<64xi32, 3 : i32>
"""
    race = run(kernel(body)).races[0]
    assert race.funcs == ("f1", "f2")
    assert race.arena == "shared_alloc"


def test_private_memory_is_never_a_race():
    body = """
      %p = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<1xi32, 5 : i32>
      %a = memref.alloca() : memref<1xi32>
      memref.store %ti, %p[%c0] : memref<1xi32, 5 : i32>
      memref.store %ti, %a[%c0] : memref<1xi32>
      %v = memref.load %p[%c0] : memref<1xi32, 5 : i32>
      %w = memref.load %a[%c0] : memref<1xi32>
      %x = arith.addi %v, %w : i32
      memref.store %x, %out[%t] : memref<64xi32>
"""
    result = run(kernel(body))
    assert result.races == []
    assert result.arguments[0].array.tolist() == [2 * t for t in range(64)]


@pytest.mark.parametrize("backing", ["", ", backing"])
def test_heap_backing_is_per_block_storage(backing: str):
    """A space-1 backing (with the property, or legacy IR without it) is per-block
    storage like every space-1 allocation: two blocks writing the same offsets of it
    write different bytes, so they do not race."""
    body = f"""
      %n = arith.constant 256 : index
      %b = "gpu_alloc.alloc"(%n) <{{name = "global_alloc"{backing}}}> : (index) -> memref<?xi8, 1 : i32>
      %p = "gpu_alloc.offset_pointer"(%b, %c0) : (memref<?xi8, 1 : i32>, index) -> !gpu_alloc.ptr<1 : i32>
      %h = "gpu_alloc.alias"(%p) <{{name = "h"}}> : (!gpu_alloc.ptr<1 : i32>) -> memref<64xi32, 1 : i32>
      memref.store %ti, %h[%t] : memref<64xi32, 1 : i32>
"""
    assert run(kernel(body), grid=2).races == []


def test_per_block_heap_funcs_do_not_race_across_blocks():
    body = """
      %h = "gpu_alloc.alloc"() <{name = "h"}> : () -> memref<64xi32, 1 : i32>
      memref.store %ti, %h[%t] : memref<64xi32, 1 : i32>
"""
    assert run(kernel(body), grid=2).races == []


LOWERED_HEAP = """
      %per_block = arith.constant 256 : index
      %slice = arith.muli {block}, %per_block : index
      %h = memref.view %heap[%slice][] : memref<?xi8, 1 : i32> to memref<64xi32, 1 : i32>
      memref.store %ti, %h[%t] : memref<64xi32, 1 : i32>
      %size = memref.dim %heap, %c0 : memref<?xi8, 1 : i32>
      %sizei = arith.index_cast %size : index to i32
      memref.store %sizei, %out[%t] : memref<64xi32>
"""


def lowered_heap_kernel(block: str) -> str:
    arguments = (("out", "memref<64xi32>"), ("heap", "memref<?xi8, 1 : i32>"))
    attribute = ', "gpu_alloc.heap_bytes_per_block" = 256 : i64'
    return kernel(LOWERED_HEAP.replace("{block}", block), arguments, attribute)


def test_lowered_heap_argument_is_sized_per_block():
    result = run(lowered_heap_kernel("%bx"), grid=3)
    assert result.races == []
    assert [a.name for a in result.arguments] == ["out"]  # the heap is scratch, not a result
    assert result.arguments[0].array.tolist() == [3 * 256] * 64


def test_lowered_heap_argument_is_race_checked_across_blocks():
    result = run(lowered_heap_kernel("%c0"), grid=3)
    assert len(result.races) == 1 and result.races[0].across_blocks


def test_barrier_in_divergent_code_is_reported():
    body = """
      %low = arith.cmpi ult, %t, %c32 : index
      scf.if %low {
        "gpu.barrier"() : () -> ()
      }
"""
    with pytest.raises(
        BarrierDivergenceError, match=r"reached by 32 of 64 threads of block \(0, 0, 0\)"
    ):
        run(kernel(body))


def test_barrier_in_a_loop_with_thread_dependent_trip_count_is_reported():
    body = """
      scf.for %i = %t to %c64 step %c32 {
        "gpu.barrier"() : () -> ()
      }
"""
    with pytest.raises(BarrierDivergenceError, match="thread \\(32, 0, 0\\) does not reach it"):
        run(kernel(body))


def test_barrier_in_uniform_control_flow_is_fine():
    body = """
      %yes = arith.cmpi ult, %bx, %c32 : index
      scf.if %yes {
        scf.for %i = %c0 to %c32 step %c1 {
          "gpu.barrier"() : () -> ()
        }
      }
"""
    assert run(kernel(body)).races == []


def test_out_of_bounds_access_names_func_index_and_thread():
    body = """
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<32xi32, 3 : i32>
      memref.store %ti, %s[%t] : memref<32xi32, 3 : i32>
"""
    with pytest.raises(
        MemoryAccessError,
        match=r"out-of-bounds store to 's' \(32xi32\) at index \(32,\) by thread \(32, 0, 0\)",
    ):
        run(kernel(body))


def test_masked_off_threads_do_not_access_memory():
    body = """
      %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<32xi32, 3 : i32>
      %low = arith.cmpi ult, %t, %c32 : index
      scf.if %low {
        memref.store %ti, %s[%t] : memref<32xi32, 3 : i32>
      }
"""
    assert run(kernel(body)).races == []


def test_dynamic_shared_memory_is_per_block_and_race_checked():
    """lower-gpu-allocs' dynamic shared form: gpu.dynamic_shared_memory (unregistered
    in xDSL), cast to space 3, then views of it."""
    body = """
      %base = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %dyn = "memref.memory_space_cast"(%base) : (memref<?xi8, #gpu.address_space<workgroup>>) -> memref<?xi8, 3 : i32>
      %n = arith.constant 256 : index
      %s = memref.view %dyn[%c0][] : memref<?xi8, 3 : i32> to memref<64xi32, 3 : i32>
      %again = "gpu.dynamic_shared_memory"() : () -> memref<?xi8, #gpu.address_space<workgroup>>
      %dyn2 = "memref.memory_space_cast"(%again) : (memref<?xi8, #gpu.address_space<workgroup>>) -> memref<?xi8, 3 : i32>
      %s2 = memref.view %dyn2[%c0][] : memref<?xi8, 3 : i32> to memref<64xi32, 3 : i32>
      %bxi = arith.index_cast %bx : index to i32
      memref.store %bxi, %s[%t] : memref<64xi32, 3 : i32>
      {barrier}
      %r = arith.subi %c63, %t : index
      %v = memref.load %s2[%r] : memref<64xi32, 3 : i32>
      memref.store %v, %out[%t] : memref<64xi32>
"""
    ordered = run(kernel(body.replace("{barrier}", '"gpu.barrier"() : () -> ()')), grid=2)
    assert ordered.races == []
    assert ordered.arguments[0].array.tolist() == [1] * 64  # the last block's values
    racy = run(kernel(body.replace("{barrier}", "")), grid=2)
    assert [r.funcs for r in racy.races] == [("s", "s2")]


def test_lowered_heap_argument_without_its_size_grows_to_its_views():
    arguments = (("out", "memref<64xi32>"), ("heap", "memref<?xi8, 1 : i32>"))
    for block, races in (("%bx", 0), ("%c0", 1)):
        text = kernel(LOWERED_HEAP.replace("{block}", block), arguments)
        result = run(text, grid=3)
        assert len(result.races) == races
    # memref.dim sees the size when the attribute gives it, not when the buffer grows.
    assert run(lowered_heap_kernel("%bx"), grid=3).arguments[0].array[0] == 768


def test_malformed_heap_contract_is_a_one_line_error():
    """The simulator reads the heap contract through the dialect, which verifies it."""
    arguments = (("out", "memref<64xi32>"), ("heap", "memref<?xi8, 1 : i32>"))
    attribute = ', "gpu_alloc.heap_bytes_per_block" = -4 : i64'
    text = kernel(LOWERED_HEAP.replace("{block}", "%bx"), arguments, attribute)
    with pytest.raises(SimulationError, match="heap_bytes_per_block must be a positive i64"):
        run(text, grid=3)
