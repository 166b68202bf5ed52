"""lower-gpu-allocs' allocation patterns: each raises before any rewrite, and each
rewrites one allocation.

`lower_shared_and_private` is called directly (without the pass's rollback), so these
tests fail if a diagnostic ever came from inside a pattern after the walk began.
"""

from __future__ import annotations

import pytest
from gpu_alloc.dialect import AllocOp, DeallocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.alloc_patterns import kernel_site, lower_shared_and_private
from gpu_alloc.targets import DEFAULT_DEVICE
from lowering_support import parse
from xdsl.dialects import gpu, memref

KERNEL = """
builtin.module {
  gpu.module @m {
    gpu.func @k(%n: index, %out: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %p = gpu_alloc.alloc "p" : memref<4xf32, 5 : i32>
      %s = gpu_alloc.alloc "s" : memref<8xf32, 3 : i32>
      %d = gpu_alloc.alloc "d"(%n) : memref<?xf32, 3 : i32>
      %v = memref.load %s[%c0] : memref<8xf32, 3 : i32>
      memref.store %v, %p[%c0] : memref<4xf32, 5 : i32>
      %w = memref.load %d[%c0] : memref<?xf32, 3 : i32>
      memref.store %w, %out[%c0] : memref<4xf32>
      SECOND
      gpu_alloc.dealloc %p : memref<4xf32, 5 : i32>
      gpu.return
    }
  }
}
"""

SECOND = """%e = gpu_alloc.alloc "e"(%n) : memref<?xf32, 3 : i32>
      %x = memref.load %e[%c0] : memref<?xf32, 3 : i32>
      memref.store %x, %out[%c0] : memref<4xf32>"""


def _kernel(text: str):
    module = parse(text)
    gpu_module = next(op for op in module.walk() if isinstance(op, gpu.ModuleOp))
    func = next(op for op in module.walk() if isinstance(op, gpu.FuncOp))
    allocs = [op for op in func.walk() if isinstance(op, AllocOp)]
    return module, kernel_site(func, gpu_module, DEFAULT_DEVICE), allocs


def test_two_dynamic_shared_allocations_fail_before_any_rewrite():
    module, kernel, allocs = _kernel(KERNEL.replace("SECOND", SECOND))
    before = str(module)
    with pytest.raises(GpuAllocPassError, match="more than one dynamic shared allocation"):
        lower_shared_and_private(kernel, allocs)
    assert str(module) == before


def test_each_allocation_is_rewritten_by_its_pattern():
    module, kernel, allocs = _kernel(KERNEL.replace("SECOND", ""))
    lower_shared_and_private(kernel, allocs)
    module.verify()
    func = kernel.op
    assert not any(isinstance(op, AllocOp | DeallocOp) for op in func.walk())
    entry_first = func.body.blocks[0].first_op
    assert isinstance(entry_first, memref.AllocaOp)  # private, hoisted to the entry
    assert [
        g.sym_name.data for g in kernel.symbol_table.body.ops if isinstance(g, memref.GlobalOp)
    ] == ["k__s"]
    assert any(isinstance(op, memref.GetGlobalOp) for op in func.walk())
    assert kernel.dynamic_shared is not None and kernel.dynamic_shared.what == "'d'"
