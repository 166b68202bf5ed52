"""Issue 27 items 1 and 5: one model of every spelling of workgroup memory, of kernels
and of block-level loops (`dialect.spellings`, `dialect.kernels`, `dialect.mappings`).

Each memory-space spelling of MLIR 22 fuses the same kernel to the same layout (two
64 x f32 Funcs separated by barriers share offset 0: 256 bytes, not 512), through
import, fuse, remove-dead-allocs, flatten, lower, every target and the simulator; each
kernel marker makes a `func.func` a kernel; each mapping attribute makes a parallel
loop uniform or thread-dependent, the refusal naming it; an unclassifiable spelling is
a located error.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gpu_alloc import api
from gpu_alloc.dialect import LAYOUT_ATTR, AllocOp
from gpu_alloc.dialect.kernels import is_kernel
from gpu_alloc.dialect.mappings import loop_mapping
from gpu_alloc.dialect.memory import space_of, unclassified_allocation
from gpu_alloc.dialect.ops import MemorySpace
from gpu_alloc.dialect.spellings import UNCLASSIFIED, contract_number
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.coverage_rows import COLUMNS
from gpu_alloc.sim import SimulationError
from gpu_alloc.transforms.block_level_code import block_level_code
from lowering_support import run_pipeline
from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import MemRefType, ModuleOp, StringAttr, UnitAttr
from xdsl.passes import PassPipeline

OPT = str(Path(sys.executable).parent / "gpu-alloc-opt")

WORKGROUP_SPELLINGS = [
    "#gpu.address_space<workgroup>",
    "3 : i32",
    "#spirv.storage_class<Workgroup>",
    "#nvvm.memory_space<shared>",
    "#xevm.addr_space<shared>",
    "#llvm.address_space<3>",
]

SPACES = {
    "1 : i32": 1,
    "4 : i32": 4,
    "5 : i32": 5,
    "#gpu.address_space<global>": 1,
    "#gpu.address_space<private>": 5,
    "#spirv.storage_class<CrossWorkgroup>": 1,
    "#spirv.storage_class<StorageBuffer>": 1,
    "#spirv.storage_class<Uniform>": 1,
    "#spirv.storage_class<Function>": 5,
    "#spirv.storage_class<Private>": 5,
    "#spirv.storage_class<Generic>": 0,
    "#nvvm.memory_space<global>": 1,
    "#nvvm.memory_space<local>": 5,
    "#nvvm.memory_space<constant>": 4,
    "#nvvm.memory_space<generic>": 0,
    "#xevm.addr_space<private>": 5,
    "#llvm.address_space<5>": 5,
    "#amdgpu.address_space<fat_raw_buffer>": None,
    "#ptr.generic_space": None,
    **dict.fromkeys(WORKGROUP_SPELLINGS, 3),
}

UNCLASSIFIED_SPELLINGS = [
    "#spirv.storage_class<Input>",
    "#nvvm.memory_space<shared_cluster>",
    "7 : i32",
    "#llvm.address_space<42>",
]


def _memref(space: str) -> MemRefType:
    module = api.parse(f'"test.op"() : () -> memref<4xf32, {space}>')
    type_ = module.body.block.first_op.results[0].type  # pyright: ignore[reportOptionalMemberAccess]
    assert isinstance(type_, MemRefType)
    return type_


@pytest.mark.parametrize("space", list(SPACES))
def test_every_spelling_has_its_number(space: str):
    assert contract_number(_memref(space).memory_space) == SPACES[space]


@pytest.mark.parametrize("space", WORKGROUP_SPELLINGS)
def test_workgroup_spellings_are_shared(space: str):
    assert space_of(_memref(space)) is MemorySpace.SHARED


@pytest.mark.parametrize("space", UNCLASSIFIED_SPELLINGS)
def test_unclassified_spellings(space: str):
    assert contract_number(_memref(space).memory_space) is UNCLASSIFIED


def _kernel(space: str) -> str:
    """Two Funcs on either side of barriers: `o[t] = (v + 1) * 2` with v = 1."""
    m = f"memref<64xf32, {space}>"
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @k(%o: memref<64xf32>) kernel {{
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %two = arith.constant 2.0 : f32
      %a = memref.alloc() : {m}
      memref.store %one, %a[%t] : {m}
      gpu.barrier
      %x = memref.load %a[%t] : {m}
      %x1 = arith.addf %x, %one : f32
      gpu.barrier
      %b = memref.alloc() : {m}
      memref.store %x1, %b[%t] : {m}
      gpu.barrier
      %y = memref.load %b[%t] : {m}
      %y2 = arith.mulf %y, %two : f32
      memref.store %y2, %o[%t] : memref<64xf32>
      gpu.return
    }}
  }}
}}
"""


def _fused(text: str) -> ModuleOp:
    module = api.parse(text)
    PassPipeline((api.ImportGpuAllocsPass(), api.FuseGpuAllocsPass())).apply(api.register(), module)
    return module


def _backings(module: ModuleOp) -> list[AllocOp]:
    return [op for op in module.walk() if isinstance(op, AllocOp) and LAYOUT_ATTR in op.attributes]


@pytest.mark.parametrize("space", WORKGROUP_SPELLINGS)
def test_each_workgroup_spelling_fuses_lowers_emits_and_simulates(space: str):
    module = _fused(_kernel(space))
    (backing,) = _backings(module)
    backing_type = backing.memref.type
    assert isinstance(backing_type, MemRefType)
    assert backing_type.get_shape() == (256,)  # a and b share offset 0
    assert backing_type.memory_space == _memref(space).memory_space  # the user's spelling
    ctx = api.register()
    PassPipeline((api.RemoveDeadAllocsPass(), api.FlattenAliasesPass())).apply(ctx, module)
    assert len(_backings(module)) == 1
    flattened = str(module)
    assert "gpu_alloc.alias" not in flattened
    assert api.parse(flattened) is not None  # read back
    expected = np.full(64, 4.0, dtype=np.float32)
    for kernel in (api.parse(_kernel(space)), module):
        result = api.simulate(kernel, grid=[2], block=[64])
        np.testing.assert_array_equal(result.arrays()["o"], expected)
    assert ".shared .align 16 .b8 k__shared_alloc[256];" in api.emit_ptx(api.parse(flattened))
    amd = api.emit_amdgcn(api.parse(flattened))
    assert ".amdhsa_group_segment_fixed_size 256" in amd
    spirv = api.emit_spirv_assembly(api.parse(flattened))
    assert "Workgroup" in spirv and '"k"' in spirv
    lowered = api.parse(flattened)
    PassPipeline((api.LowerGpuAllocsPass(),)).apply(ctx, lowered)
    assert api.parse(str(lowered)) is not None


def test_spirv_workgroup_func_fuses_like_gpu_address_space():
    """The issue's reproducer: a func.func allocating #spirv.storage_class<Workgroup>."""
    sizes = []
    for space in ("#spirv.storage_class<Workgroup>", "#gpu.address_space<workgroup>"):
        m = f"memref<64xf32, {space}>"
        text = f"""
func.func @f(%i: index, %v: f32) -> f32 {{
  %a = memref.alloc() : {m}
  memref.store %v, %a[%i] : {m}
  gpu.barrier
  %x = memref.load %a[%i] : {m}
  gpu.barrier
  %b = memref.alloc() : {m}
  memref.store %x, %b[%i] : {m}
  gpu.barrier
  %y = memref.load %b[%i] : {m}
  return %y : f32
}}
"""
        (backing,) = _backings(_fused(text))
        sizes.append(backing.memref.type.get_shape())  # pyright: ignore[reportAttributeAccessIssue]
    assert sizes == [(256,), (256,)]


def _func_kernel(marker: str) -> str:
    wg = "memref<64xf32, #gpu.address_space<workgroup>>"
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    memref.global "private" @s1 : {wg}
    memref.global "private" @s2 : {wg}
    func.func @k(%o: memref<64xf32>) attributes {{{marker}}} {{
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %a = memref.get_global @s1 : {wg}
      memref.store %one, %a[%t] : {wg}
      gpu.barrier
      %x = memref.load %a[%t] : {wg}
      gpu.barrier
      %b = memref.get_global @s2 : {wg}
      memref.store %x, %b[%t] : {wg}
      gpu.barrier
      %y = memref.load %b[%t] : {wg}
      memref.store %y, %o[%t] : memref<64xf32>
      return
    }}
  }}
}}
"""


@pytest.mark.parametrize("marker", ["gpu.kernel", "nvvm.kernel", "rocdl.kernel"])
def test_func_func_kernel_markers_fuse_and_emit_an_entry(marker: str):
    module = _fused(_func_kernel(marker))
    (kernel,) = block_level_code(module)
    assert isinstance(kernel, func.FuncOp) and is_kernel(kernel)
    (backing,) = _backings(module)
    assert backing.memref.type.get_shape() == (256,)  # pyright: ignore[reportAttributeAccessIssue]
    api.FlattenAliasesPass().apply(api.register(), module)
    ptx = api.emit_ptx(module)
    assert ".visible .entry k(" in ptx
    assert ".shared .align 16 .b8 k__shared_alloc[256];" in ptx
    result = api.simulate(module, grid=[1], block=[64])
    np.testing.assert_array_equal(result.arrays()["o"], np.ones(64, dtype=np.float32))


def test_llvm_func_calling_conventions_are_kernels():
    # xDSL 0.75's verifier lists no kernel convention: the attribute as a reader that
    # accepts MLIR's (the bridge's business) would make it
    for convention, kernel in (("ptx_kernelcc", True), ("amdgpu_kernelcc", True), ("ccc", False)):
        cconv = object.__new__(llvm.CallingConventionAttr)
        object.__setattr__(cconv, "convention", StringAttr(convention))
        function = llvm.FuncOp("k", llvm.LLVMFunctionType([]))
        function.properties["CConv"] = cconv
        assert is_kernel(function) is kernel
    marked = llvm.FuncOp("k", llvm.LLVMFunctionType([]))
    marked.attributes["nvvm.kernel"] = UnitAttr()
    assert is_kernel(marked)


def _loop_kernel(loop: str, close: str) -> str:
    wg = "memref<64xf32, #gpu.address_space<workgroup>>"
    return f"""
module attributes {{gpu.container_module}} {{
  gpu.module @m {{
    gpu.func @k(%o: memref<64xf32>) kernel {{
      %t = gpu.thread_id x
      %one = arith.constant 1.0 : f32
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c4 = arith.constant 4 : index
      {loop}
        %a = memref.alloc() : {wg}
        memref.store %one, %a[%t] : {wg}
        gpu.barrier
        %x = memref.load %a[%t] : {wg}
        memref.store %x, %o[%t] : memref<64xf32>
        {close}
      gpu.return
    }}
  }}
}}
"""


FORALL = "scf.forall (%i, %j) in (4, 2) {"
PARALLEL = "scf.parallel (%i) = (%c0) to (%c4) step (%c1) {"
AFFINE_PARALLEL = (  # its generic form: xDSL 0.75 reads no custom one
    '"affine.parallel"() <{lowerBoundsGroups = dense<1> : tensor<1xi32>, '
    "lowerBoundsMap = affine_map<() -> (0)>, reductions = [], steps = [1], "
    "upperBoundsGroups = dense<1> : tensor<1xi32>, upperBoundsMap = affine_map<() -> (4)>}> "
    "({\n      ^bb0(%i: index):"
)
DIM_MAP = "#gpu.loop_dim_map<processor = {}, map = (d0) -> (d0), bound = (d0) -> (d0)>"

UNIFORM_LOOPS = [
    (FORALL, "} {mapping = [#gpu.block<y>, #gpu.block<x>]}"),
    (FORALL, "} {mapping = [#gpu.block<linear_dim_1>, #gpu.block<linear_dim_0>]}"),
    (PARALLEL, "scf.reduce } {mapping = [" + DIM_MAP.format("block_x") + "]}"),
    (PARALLEL, "scf.reduce } {mapping = [" + DIM_MAP.format("sequential") + "]}"),
    # without a mapping every thread runs every iteration (MLIR's scf-to-cf)
    (FORALL, "}"),
    (PARALLEL, "scf.reduce }"),
    (AFFINE_PARALLEL, '"affine.yield"() : () -> ()\n      }) : () -> ()'),
]

DEPENDENT_LOOPS = [
    (FORALL, "} {mapping = [#gpu.thread<y>, #gpu.thread<x>]}", "mapped to #gpu.thread<y>"),
    (FORALL, "} {mapping = [#gpu.warp<y>, #gpu.warp<x>]}", "mapped to #gpu.warp<y>"),
    (FORALL, "} {mapping = [#gpu.warpgroup<x>, #gpu.warpgroup<y>]}", "#gpu.warpgroup<x>"),
    (FORALL, "} {mapping = [#gpu.lane<x>, #gpu.lane<y>]}", "mapped to #gpu.lane<x>"),
    (FORALL, "} {mapping = [#gpu.thread<linear_dim_1>, #gpu.thread<linear_dim_0>]}", "linear"),
    (PARALLEL, "scf.reduce } {mapping = [" + DIM_MAP.format("thread_x") + "]}", "thread_x"),
]


@pytest.mark.parametrize(("loop", "close"), UNIFORM_LOOPS)
def test_block_uniform_loops_fuse(loop: str, close: str):
    module = _fused(_loop_kernel(loop, close))
    loops = [op for op in module.walk() if loop_mapping(op) is not None]
    assert loops and all(loop_mapping(op).uniform for op in loops)  # pyright: ignore[reportOptionalMemberAccess]
    allocs = [op for op in module.walk() if isinstance(op, AllocOp)]
    assert len(allocs) == 1 and allocs[0].parent_op() is not loops[0]  # hoisted out


@pytest.mark.parametrize(("loop", "close", "reason"), DEPENDENT_LOOPS)
def test_thread_dependent_loops_are_refused_with_their_mapping(loop: str, close: str, reason: str):
    module = api.parse(_loop_kernel(loop, close))
    with pytest.raises(GpuAllocPassError) as error:
        PassPipeline((api.ImportGpuAllocsPass(), api.FuseGpuAllocsPass())).apply(
            api.register(), module
        )
    assert "thread-dependent control flow" in error.value.message
    assert reason in error.value.message
    assert error.value.op is not None


def test_a_block_mapped_loop_with_thread_dependent_bounds_is_refused():
    text = _loop_kernel("scf.forall (%i) in (%t) {", "} {mapping = [#gpu.block<x>]}")
    with pytest.raises(GpuAllocPassError, match="thread-dependent control flow \\('scf.forall'\\)"):
        PassPipeline((api.ImportGpuAllocsPass(), api.FuseGpuAllocsPass())).apply(
            api.register(), api.parse(text)
        )


@pytest.mark.parametrize("space", UNCLASSIFIED_SPELLINGS)
def test_an_unclassified_allocation_is_a_located_error_everywhere(space: str):
    text = _kernel(space)
    found = unclassified_allocation(api.parse(text))
    assert found is not None and found.op.name == "memref.alloc"
    for make in (api.ImportGpuAllocsPass, api.FuseGpuAllocsPass, api.LowerGpuAllocsPass):
        module = api.parse(text)
        before = str(module)
        with pytest.raises(GpuAllocPassError) as error:
            make().apply(api.register(), module)
        assert space.split("<")[0] in error.value.message
        assert error.value.op is not None and error.value.op.name == "memref.alloc"
        assert str(module) == before
    with pytest.raises(SimulationError) as sim_error:
        api.simulate(api.parse(text), grid=[1], block=[64])
    assert sim_error.value.op is not None


PRIVATE_DEFAULT = """
gpu.module @m {
  gpu.func @k(%o: memref<64xf32>) workgroup(%w: memref<64xf32, #gpu.address_space<workgroup>>, %v: memref<64xf32, #gpu.address_space<workgroup>>) private(%p: memref<4xf32>) kernel {
    %c0 = arith.constant 0 : index
    %t = gpu.thread_id x
    %ti = arith.index_cast %t : index to i32
    %tf = arith.sitofp %ti : i32 to f32
    memref.store %tf, %p[%c0] : memref<4xf32>
    %x = memref.load %p[%c0] : memref<4xf32>
    memref.store %x, %w[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %c63 = arith.constant 63 : index
    %r = arith.subi %c63, %t : index
    %y = memref.load %w[%r] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %y, %v[%t] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %z = memref.load %v[%r] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %z, %o[%t] : memref<64xf32>
    gpu.return
  }
}
"""
"""A private attribution in the default memory space (MLIR's own default for one) beside
two workgroup ones: `o[t] = t`, through `p`, `w[63 - t]` and `v[63 - t]`."""

_FUSED = "import-gpu-allocs,fuse-gpu-allocs,remove-dead-allocs,flatten-aliases"
PRIVATE_FORMS = {"original": "", "fused": _FUSED, "lowered": f"{_FUSED},lower-gpu-allocs"}


def _private_form(form: str) -> str:
    module = api.parse(PRIVATE_DEFAULT)
    return str(run_pipeline(module, PRIVATE_FORMS[form]) if PRIVATE_FORMS[form] else module)


@pytest.mark.parametrize("form", list(PRIVATE_FORMS))
def test_private_attribution_in_the_default_space_runs_in_every_form(form: str):
    text = _private_form(form)
    assert "%p: memref<4xf32>" in text or "memref.alloca" in text  # kept, or lowered
    result = api.simulate(api.parse(text), grid=[2], block=[64])
    np.testing.assert_array_equal(result.arrays()["o"], np.arange(64, dtype=np.float32))


@pytest.mark.parametrize("column", COLUMNS)
def test_private_attribution_in_the_default_space_is_emitted_by_every_column(
    column: str, tmp_path: Path
):
    target, backend = column.split("/")
    option = f"{{backend={backend}}}" if len(api.TARGETS[target].backends) > 1 else ""
    for form in PRIVATE_FORMS:
        source = tmp_path / f"{form}.mlir"
        source.write_text(_private_form(form))
        done = subprocess.run(
            [OPT, "-t", target + option, str(source)],
            capture_output=True,
            text=True,
            check=False,
            timeout=300,
        )
        assert done.returncode == 0, (form, done.stderr)
        assert done.stdout and not done.stderr, (form, done.stderr)
