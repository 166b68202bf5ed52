"""One rule for the names the package makes up (`gpu_alloc.names.unique_name`), and the
passes that name things through it."""

from __future__ import annotations

import corpus
from gpu_alloc.dialect import AllocOp
from gpu_alloc.names import unique_name
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs


def test_a_free_name_is_kept_and_a_taken_one_numbered_from_one():
    assert unique_name("tile", set()) == "tile"
    assert unique_name("tile", {"tile"}) == "tile_1"
    assert unique_name("tile", {"tile", "tile_1", "tile_3"}) == "tile_2"
    # a name that only looks numbered is not renumbered: `tile_1` taken gives `tile_1_1`
    assert unique_name("tile_1", {"tile_1"}) == "tile_1_1"


def test_import_numbers_a_hint_that_clashes_with_an_allocation_already_there():
    # `%tile` (a memref.alloc) meets a gpu_alloc.alloc already named "tile" and one
    # named "tile_1": by the rule it becomes "tile_2".
    module = corpus.parse(
        """
gpu.module @m {
  gpu.func @k() kernel {
    %a = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<4xf32, 3>
    %b = "gpu_alloc.alloc"() <{name = "tile_1"}> : () -> memref<4xf32, 3>
    %tile = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
    gpu.return
  }
}
"""
    )
    import_gpu_allocs(module)
    names = [op.alloc_name.data for op in module.walk() if isinstance(op, AllocOp)]
    assert sorted(names) == ["tile", "tile_1", "tile_2"]
