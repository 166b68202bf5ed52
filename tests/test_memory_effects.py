"""The one table of memory effects: what each op does with a memref operand."""

from __future__ import annotations

from gpu_alloc.tools.sim_loading import parse_module
from gpu_alloc.transforms.memory_effects import UseKind, takes_alignment, use_kind
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects import memref

KERNEL = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<64xi32>, i1) -> (), kernel}> ({
    ^bb0(%out: memref<64xi32>, %p: i1):
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i32
      %A = "gpu_alloc.alloc"() <{name = "A"}> : () -> memref<64xi32, 3 : i32>
      %B = "gpu_alloc.alloc"() <{name = "B"}> : () -> memref<64xi32, 3 : i32>
      memref.store %v, %A[%c0] : memref<64xi32, 3 : i32>
      %s = arith.select %p, %A, %B : memref<64xi32, 3 : i32>
      %sub = memref.subview %s[0] [16] [1] : memref<64xi32, 3 : i32> to memref<16xi32, strided<[1]>, 3 : i32>
      %x = memref.load %sub[%c0] : memref<16xi32, strided<[1]>, 3 : i32>
      %d = memref.dim %A, %c0 : memref<64xi32, 3 : i32>
      %w = vector.load %B[%c0] : memref<64xi32, 3 : i32>, vector<4xi32>
      "test.unknown"(%A) : (memref<64xi32, 3 : i32>) -> ()
      "memref.copy"(%A, %out) : (memref<64xi32, 3 : i32>, memref<64xi32>) -> ()
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


def _kinds(name: str) -> list[tuple[str, UseKind]]:
    module = parse_module(KERNEL)
    value = next(
        op.results[0] for op in module.walk() if op.results and op.results[0].name_hint == name
    )
    return [(a.op.name, a.kind) for a in memref_accesses(value)]


def test_uses_of_a_buffer_through_select_and_subview():
    kinds = _kinds("A")
    assert ("memref.store", UseKind.WRITE) in kinds
    assert ("arith.select", UseKind.VIEW) in kinds
    assert ("memref.subview", UseKind.VIEW) in kinds
    assert ("memref.load", UseKind.READ) in kinds  # through the select and the subview
    assert ("memref.dim", UseKind.META) in kinds
    assert ("builtin.unregistered", UseKind.ESCAPE) in kinds  # unregistered ops escape
    assert ("memref.copy", UseKind.READ) in kinds


def test_both_candidates_of_a_select_are_read_where_its_result_is():
    kinds = _kinds("B")
    assert ("memref.load", UseKind.READ) in kinds
    assert ("vector.load", UseKind.READ) in kinds


def test_copy_target_is_written_and_stored_values_escape():
    module = parse_module(KERNEL)
    copy = next(op for op in module.walk() if isinstance(op, memref.CopyOp))
    assert [use_kind(u) for u in copy.destination.uses if u.operation is copy] == [UseKind.WRITE]
    load = next(op for op in module.walk() if isinstance(op, memref.LoadOp))
    store = next(op for op in module.walk() if isinstance(op, memref.StoreOp))
    assert takes_alignment(load) and takes_alignment(store) and not takes_alignment(copy)
