"""Issue 27: an `scf.forall` mapped to thread blocks runs, through every pass, target and
runtime (`transforms/pre_lowering._distribute_over_blocks`).

The kernel's forall over (2, 3) holds two workgroup Funcs; each iteration `(i, j)`
writes `out[i, j, t] = in[i, j, t] + in[i, j, 15 - t] + i * j` (through `a[15 - t]` and
`b[15 - t]`), which numpy computes independently of every part of the project. MLIR's
`transform.gpu.map_forall_to_blocks` gives each iteration to one block of a grid of the
forall's sizes; a smaller grid runs several iterations per block (reusing its workgroup
memory, so each iteration ends at a barrier) and a larger one leaves blocks idle: every
grid gives the same output.
"""

from __future__ import annotations

import numpy as np
import pytest
from differential import Launch
from gpu_alloc import api
from gpu_alloc.dialect import LAYOUT_ATTR, AllocOp
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.sim import SimulationError
from gpu_alloc.transforms.pre_lowering import pre_lower
from lowering_support import run_pipeline
from opencl_differential import compare
from xdsl.dialects import gpu, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

KERNEL = """
gpu.module @m {{
  gpu.func @k(%in: memref<2x3x16xf32>, %out: memref<2x3x16xf32>) kernel {{
    %t = gpu.thread_id x
    %c15 = arith.constant 15 : index
    scf.forall (%i, %j) in (2, 3) {{
      %a = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
      %b = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
      %x = memref.load %in[%i, %j, %t] : memref<2x3x16xf32>
      memref.store %x, %a[%t] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %r = arith.subi %c15, %t : index
      %y = memref.load %a[%r] : memref<16xf32, #gpu.address_space<workgroup>>
      %ij = arith.muli %i, %j : index
      %n = arith.index_cast %ij : index to i32
      %f = arith.sitofp %n : i32 to f32
      %z = arith.addf %y, %f : f32
      memref.store %z, %b[%t] : memref<16xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %w = memref.load %b[%r] : memref<16xf32, #gpu.address_space<workgroup>>
      %v = memref.load %a[%r] : memref<16xf32, #gpu.address_space<workgroup>>
      %o = arith.addf %w, %v : f32
      memref.store %o, %out[%i, %j, %t] : memref<2x3x16xf32>
    }} {{mapping = [{mapping}]}}
    gpu.return
  }}
}}
"""

MAPPINGS = {
    "xy": "#gpu.block<y>, #gpu.block<x>",
    "linear": "#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>",
}
GRIDS = {
    "xy": [(3, 2), (1, 1), (2, 1), (4, 3)],  # (x, y): x runs j, y runs i
    "linear": [(6,), (1,), (2, 2), (7,)],
}


def _fused(text: str) -> ModuleOp:
    return run_pipeline(api.parse(text), "import-gpu-allocs,fuse-gpu-allocs,flatten-aliases")


def _backings(module: ModuleOp) -> list[AllocOp]:
    return [op for op in module.walk() if isinstance(op, AllocOp) and LAYOUT_ATTR in op.attributes]


def _expected(inputs: np.ndarray) -> np.ndarray:
    i, j = np.meshgrid(np.arange(2), np.arange(3), indexing="ij")
    return inputs + inputs[:, :, ::-1] + (i * j).astype(np.float32)[:, :, None]


@pytest.mark.parametrize("kind", list(MAPPINGS))
@pytest.mark.parametrize("fused", [False, True])
def test_every_grid_runs_each_iteration_once(kind: str, fused: bool):
    text = KERNEL.format(mapping=MAPPINGS[kind])
    module = _fused(text) if fused else api.parse(text)
    if fused:
        assert len(_backings(module)) == 1 and "scf.forall" in str(module)
    inputs = np.random.default_rng(7).integers(-64, 64, (2, 3, 16)).astype(np.float32)  # exact
    for grid in GRIDS[kind]:
        result = api.simulate(module, grid=grid, block=[16], arrays={"in": inputs})
        assert not result.races, (grid, result.races)
        np.testing.assert_array_equal(result.arrays()["out"], _expected(inputs), str(grid))


def test_the_loop_is_block_strided_and_ends_each_iteration_at_a_barrier():
    module = api.parse(KERNEL.format(mapping=MAPPINGS["xy"]))
    pre_lower(module)
    loops = [op for op in module.walk() if isinstance(op, scf.ForOp)]
    assert len(loops) == 2
    for loop, dimension in zip(loops, ("y", "x"), strict=True):
        first, stride = loop.lb.owner, loop.step.owner
        assert isinstance(first, gpu.BlockIdOp) and isinstance(stride, gpu.GridDimOp)
        assert first.dimension.data.value == stride.dimension.data.value == dimension
    body = loops[1].body.block
    assert isinstance(body.ops.last.prev_op, gpu.BarrierOp)  # pyright: ignore[reportOptionalMemberAccess]


def test_without_the_iteration_barrier_a_block_that_runs_two_iterations_races():
    """The barrier that ends each iteration is what makes a small grid correct once the
    Funcs' bytes are fused into one backing outside the loop."""
    module = _fused(KERNEL.format(mapping=MAPPINGS["xy"]))
    pre_lower(module)
    inner = [op for op in module.walk() if isinstance(op, scf.ForOp)][1]
    barrier = inner.body.block.ops.last.prev_op  # pyright: ignore[reportOptionalMemberAccess]
    assert isinstance(barrier, gpu.BarrierOp)
    barrier.detach()
    barrier.erase()
    assert not api.simulate(module, grid=[3, 2], block=[16]).races  # one iteration a block
    assert api.simulate(module, grid=[1, 1], block=[16]).races


@pytest.mark.parametrize("kind", list(MAPPINGS))
def test_fused_flattened_and_lowered_agree_on_the_simulator_pocl_and_oclgrind(kind: str):
    launch = Launch(grid=GRIDS[kind][2], block=(16,))  # two iterations in some blocks
    imported = api.parse(KERNEL.format(mapping=MAPPINGS[kind]))
    PassPipeline((api.ImportGpuAllocsPass(),)).apply(api.register(), imported)
    cases = compare(kind, str(imported), launch)  # the variants start at fuse-gpu-allocs
    assert len(cases) == 9
    wrong = [c for c in cases if not c.same_results or c.race or c.other_error]
    assert not wrong, wrong


@pytest.mark.parametrize("kind", list(MAPPINGS))
def test_every_target_emits_the_fused_kernel(kind: str):
    text = str(_fused(KERNEL.format(mapping=MAPPINGS[kind])))
    ptx = api.emit_ptx(api.parse(text))
    assert "%ctaid" in ptx and "%nctaid" in ptx and ".entry k(" in ptx
    assert ".amdhsa_group_segment_fixed_size" in api.emit_amdgcn(api.parse(text))
    assert "Workgroup" in api.emit_spirv_assembly(api.parse(text))


HOST_LOOP = """
func.func @host(%out: memref<4xf32>) {
  %c = arith.constant 1.0 : f32
  scf.forall (%i) in (4) {
    memref.store %c, %out[%i] : memref<4xf32>
  } {mapping = [#gpu.block<x>]}
  return
}
"""


@pytest.mark.parametrize(
    ("mapping", "reason"),
    [
        ("#gpu.block<x>, #gpu.block<x>", "its own block dimension"),
        ("#gpu.block<x>, #gpu.block<linear_dim_0>", "its own block dimension"),
        ("#gpu.block<x>", "its own block dimension"),  # one mapping for two loops
        ("#gpu.thread<y>, #gpu.thread<x>", "transform.gpu.map_nested_forall_to_threads"),
    ],
)
def test_mappings_it_cannot_run_are_located_errors(mapping: str, reason: str):
    text = KERNEL.format(mapping=mapping).replace("memref.alloc", "memref.alloca")
    with pytest.raises(GpuAllocPassError, match=reason) as error:
        pre_lower(api.parse(text))
    assert error.value.op is not None and error.value.op.name == "scf.forall"
    with pytest.raises(SimulationError, match=reason) as sim_error:
        api.simulate(api.parse(text), grid=[1], block=[16])
    assert sim_error.value.op is not None


def test_a_block_mapped_loop_in_host_code_is_a_located_error():
    with pytest.raises(GpuAllocPassError, match="outside a kernel .* block size") as error:
        pre_lower(api.parse(HOST_LOOP))
    assert error.value.op is not None and error.value.op.name == "scf.forall"
