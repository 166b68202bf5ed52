"""`lower-gpu-allocs`: what each kind of allocation becomes, and the launch sites."""

from __future__ import annotations

import pytest
from gpu_alloc.dialect import HEAP_BYTES_PER_BLOCK
from gpu_alloc.errors import GpuAllocPassError
from lowering_support import EXAMPLES, LOWERING_INPUTS, load, lowered, parse, run_pipeline
from xdsl.dialects import arith, gpu, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Operation

ALLOWED_DIALECTS = {"builtin", "func", "gpu", "memref", "arith", "scf", "cf"}


def ops_of(module: Operation, kind: type[Operation]) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, kind)]


def globals_by_name(module: ModuleOp) -> dict[str, memref.GlobalOp]:
    return {op.sym_name.data: op for op in module.walk() if isinstance(op, memref.GlobalOp)}


def kernel(module: ModuleOp, name: str) -> gpu.FuncOp:
    return next(
        op for op in module.walk() if isinstance(op, gpu.FuncOp) and op.sym_name.data == name
    )


def shape_and_space(memref_type) -> tuple[tuple[int, ...], int]:
    assert isinstance(memref_type, MemRefType)
    space = memref_type.memory_space
    assert isinstance(space, IntegerAttr)
    return memref_type.get_shape(), space.value.data


def constant_value(value) -> int:
    owner = value.owner
    assert isinstance(owner, arith.ConstantOp), owner
    assert isinstance(owner.value, IntegerAttr)
    return owner.value.value.data


@pytest.mark.parametrize(
    "path",
    [
        *sorted(EXAMPLES.glob("*.mlir")),
        *sorted(p for p in LOWERING_INPUTS.glob("*.mlir") if p.name != "dynamic_shared.mlir"),
    ],
    ids=lambda p: p.name,
)
def test_output_holds_only_standard_dialects(path):
    module = lowered(load(path))
    dialects = {op.dialect_name() for op in module.walk()}
    assert dialects <= ALLOWED_DIALECTS, dialects
    for func in ops_of(module, gpu.FuncOp):
        assert "gpu.kernel" in func.attributes


def test_fused_stencil_backing_becomes_one_aligned_global():
    module = lowered(load(LOWERING_INPUTS / "stencil_chain_fused.mlir"))
    globals_ = globals_by_name(module)
    assert list(globals_) == ["stencil_chain__shared_alloc"]
    backing = globals_["stencil_chain__shared_alloc"]
    assert shape_and_space(backing.type) == ((884,), 3)
    assert backing.alignment is not None and backing.alignment.value.data == 16
    (get_global,) = ops_of(module, memref.GetGlobalOp)
    assert isinstance(get_global, memref.GetGlobalOp)
    views = ops_of(module, memref.ViewOp)
    assert len(views) == 3
    assert all(view.source is get_global.memref for view in views)


def test_unfused_stencil_gets_one_global_per_func():
    module = lowered(load(EXAMPLES / "stencil_chain.mlir"))
    globals_ = globals_by_name(module)
    assert {name: shape_and_space(g.type) for name, g in globals_.items()} == {
        "stencil_chain__f1": ((11, 11), 3),
        "stencil_chain__f2": ((10, 10), 3),
        "stencil_chain__f3": ((9, 9), 3),
    }
    assert all(g.alignment is not None and g.alignment.value.data == 16 for g in globals_.values())


def test_backing_alignment_above_16_is_kept():
    module = lowered(
        parse(
            """
            builtin.module {
              "gpu.module"() <{sym_name = "m"}> ({
                "gpu.func"() <{function_type = () -> (), kernel}> ({
                  %b = gpu_alloc.alloc "shared_alloc" backing align 128 : memref<64xi8, 3 : i32>
                  "gpu.return"() : () -> ()
                }) {sym_name = "k"} : () -> ()
              }) : () -> ()
            }
            """
        )
    )
    (global_op,) = globals_by_name(module).values()
    assert global_op.alignment is not None and global_op.alignment.value.data == 128


def test_global_names_never_collide_across_kernels():
    kernel_text = """
        "gpu.func"() <{{function_type = () -> (), kernel}} > ({{
          %b = gpu_alloc.alloc "shared_alloc" : memref<16xi8, 3 : i32>
          "gpu.return"() : () -> ()
        }}) {{sym_name = "{name}"}} : () -> ()
    """
    module = lowered(
        parse(
            'builtin.module { "gpu.module"() <{sym_name = "m"}> ({'
            + kernel_text.format(name="a")
            + kernel_text.format(name="a__shared")
            + '"memref.global"() <{sym_name = "a__shared_alloc", sym_visibility = "private", '
            "type = memref<4xi8, 3 : i32>, initial_value}> : () -> ()" + "}) : () -> () }"
        )
    )
    names = [op.sym_name.data for op in ops_of(module, memref.GlobalOp)]  # pyright: ignore
    assert len(names) == len(set(names)) == 3
    get_globals = [op.name_.root_reference.data for op in ops_of(module, memref.GetGlobalOp)]  # pyright: ignore
    assert len(set(get_globals)) == 2 and "a__shared_alloc" not in get_globals


def test_heap_backing_is_allocated_around_each_launch():
    module = lowered(load(LOWERING_INPUTS / "heap_scratch_fused.mlir"))
    func = kernel(module, "heap_scratch")
    heap_type = func.function_type.inputs.data[-1]
    assert shape_and_space(heap_type) == ((DYNAMIC_INDEX,), 1)
    (launch,) = ops_of(module, gpu.LaunchFuncOp)
    assert isinstance(launch, gpu.LaunchFuncOp)
    cast = launch.kernelOperands[-1].owner
    assert isinstance(cast, memref.MemorySpaceCastOp)
    alloc = cast.source.owner
    assert isinstance(alloc, gpu.AllocOp)
    assert alloc.asyncToken is not None and alloc.asyncDependencies
    (dealloc,) = ops_of(module, gpu.DeallocOp)
    assert isinstance(dealloc, gpu.DeallocOp) and dealloc.buffer is alloc.result
    block = launch.parent_block()
    assert block is not None
    order = list(block.ops)
    assert order.index(alloc) < order.index(launch) < order.index(dealloc)
    # total = ((1024 * gx) * gy) * gz, with the grid taken from the launch: 4 x 1 x 1
    total = alloc.dynamicSizes[0].owner
    assert isinstance(total, arith.MuliOp) and total.rhs is launch.gridSizeZ
    times_gy = total.lhs.owner
    assert isinstance(times_gy, arith.MuliOp) and times_gy.rhs is launch.gridSizeY
    times_gx = times_gy.lhs.owner
    assert isinstance(times_gx, arith.MuliOp) and times_gx.rhs is launch.gridSizeX
    assert constant_value(times_gx.lhs) == 1024


UNFUSED_HEAP = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = () -> (), kernel}> ({
      %h1 = gpu_alloc.alloc "h1" : memref<100xf32, 1 : i32>
      %h2 = gpu_alloc.alloc "h2" align 64 : memref<8xi8, 1 : i32>
      %c0 = arith.constant 0 : index
      %v = memref.load %h1[%c0] : memref<100xf32, 1 : i32>
      %w = memref.load %h2[%c0] : memref<8xi8, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


def test_kernel_records_heap_bytes_per_block():
    module = lowered(parse(UNFUSED_HEAP))
    func = kernel(module, "k")
    # h1: 400 bytes at 0; h2 at the next multiple of 64 (448), 8 bytes; the stride is
    # rounded up to the largest alignment (64), so h2 is 64-aligned in every block.
    attribute = func.attributes[HEAP_BYTES_PER_BLOCK]
    assert isinstance(attribute, IntegerAttr) and attribute.value.data == 512
    views = ops_of(module, memref.ViewOp)
    assert [shape_and_space(v.result.type) for v in views] == [((100,), 1), ((8,), 1)]  # pyright: ignore
    slice_base = views[0].byte_shift  # pyright: ignore
    assert isinstance(slice_base.owner, arith.MuliOp)
    assert constant_value(slice_base.owner.rhs) == 512
    second = views[1].byte_shift.owner  # pyright: ignore
    assert isinstance(second, arith.AddiOp) and constant_value(second.rhs) == 448


def test_dynamic_shared_size_is_computed_at_the_launch():
    module = lowered(load(LOWERING_INPUTS / "dynamic_shared.mlir"))
    (launch,) = ops_of(module, gpu.LaunchFuncOp)
    assert isinstance(launch, gpu.LaunchFuncOp)
    size = launch.dynamicSharedMemorySize
    assert size is not None
    cast = size.owner
    assert isinstance(cast, arith.IndexCastOp)
    bytes_op = cast.input.owner
    assert isinstance(bytes_op, arith.MuliOp)
    # n * 4, with the kernel argument n replaced by the launch's operand
    assert bytes_op.lhs is launch.kernelOperands[0]
    assert constant_value(bytes_op.rhs) == 4


def test_private_allocation_becomes_alloca_at_entry():
    module = lowered(load(LOWERING_INPUTS / "dynamic_shared.mlir"))
    func = kernel(module, "reverse")
    first = func.body.blocks[0].first_op
    assert isinstance(first, memref.AllocaOp)
    assert shape_and_space(first.memref.type) == ((4,), 5)
    assert first.alignment is not None and first.alignment.value.data == 8


def test_size_the_host_cannot_compute_is_a_diagnostic():
    text = (LOWERING_INPUTS / "dynamic_shared.mlir").read_text()
    text = text.replace(
        "%bytes = arith.muli %n, %c4 : index",
        '%tid = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index\n'
        "      %bytes = arith.muli %tid, %c4 : index",
    )
    # Refused before any launch is looked at, by the rule fuse-gpu-allocs applies.
    with pytest.raises(
        GpuAllocPassError,
        match=r"size of allocation 'shared_alloc' depends on the thread id \('gpu.thread_id'\)",
    ):
        lowered(parse(text))


def test_lone_dynamic_shared_allocation_views_dynamic_shared_memory():
    # fuse-gpu-allocs keeps a kernel's only shared Func as it is, dynamic or not.
    text = """
    builtin.module {
      "gpu.module"() <{sym_name = "m"}> ({
        "gpu.func"() <{function_type = (index) -> (), kernel}> ({
        ^bb0(%n: index):
          %f = gpu_alloc.alloc "f"(%n) : memref<?x4xf32, 3 : i32>
          "gpu.return"() : () -> ()
        }) {sym_name = "k"} : () -> ()
      }) : () -> ()
    }
    """
    module = lowered(parse(text))
    assert {op.dialect_name() for op in module.walk()} <= ALLOWED_DIALECTS
    (view,) = ops_of(module, memref.ViewOp)
    assert str(view.result.type) == "memref<?x4xf32, 3 : i32>"
    (size,) = [op for op in ops_of(module, arith.MuliOp) if op.rhs is view.sizes[0]]
    assert isinstance(size.lhs.owner, arith.ConstantOp)
    assert size.lhs.owner.value.value.data == 16  # 4 x f32 bytes per row


def test_two_dynamic_shared_allocations_are_a_diagnostic():
    text = """
    builtin.module {
      "gpu.module"() <{sym_name = "m"}> ({
        "gpu.func"() <{function_type = (index) -> (), kernel}> ({
        ^bb0(%n: index):
          %f = gpu_alloc.alloc "f"(%n) : memref<?xf32, 3 : i32>
          %g = gpu_alloc.alloc "g"(%n) : memref<?xf32, 3 : i32>
          "gpu.return"() : () -> ()
        }) {sym_name = "k"} : () -> ()
      }) : () -> ()
    }
    """
    with pytest.raises(GpuAllocPassError, match="more than one dynamic shared allocation"):
        lowered(parse(text))


def test_leftover_aliases_are_flattened_first():
    text = (LOWERING_INPUTS / "stencil_chain_fused.mlir").read_text()
    text = text.replace(
        "%f2 = memref.view %shared_alloc[%c0][] : memref<884xi8, 3 : i32> to memref<10x10xi32, 3 : i32>",
        "%p = gpu_alloc.offset_pointer %shared_alloc[%c0] : memref<884xi8, 3 : i32> -> !gpu_alloc.ptr<3 : i32>\n"
        '      %f2 = gpu_alloc.alias "f2" %p : !gpu_alloc.ptr<3 : i32> -> memref<10x10xi32, 3 : i32>',
    )
    module = lowered(parse(text))
    assert {op.dialect_name() for op in module.walk()} <= ALLOWED_DIALECTS
    assert len(ops_of(module, memref.ViewOp)) == 3


DYNAMIC_HEAP = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %g = gpu_alloc.alloc "global_alloc"(%n) backing align 16 : memref<?xi8, 1 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
  func.func @host(%size: index) {
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    "gpu.launch_func"(%c3, %c1, %c1, %c1, %c1, %c1, %size) <{kernel = @m::@k, operandSegmentSizes = array<i32: 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1, 0>}> : (index, index, index, index, index, index, index) -> ()
    func.return
  }
}
"""


def test_dynamic_heap_backing_gets_a_per_block_stride_computed_at_each_launch():
    """A dynamically sized heap backing: each block's slice starts at
    linear_block_id * round_up(n, 16), and the launch allocates that times the grid;
    there is no static heap contract to record."""
    module = lowered(parse(DYNAMIC_HEAP))
    func = kernel(module, "k")
    assert HEAP_BYTES_PER_BLOCK not in func.attributes
    (view,) = ops_of(module, memref.ViewOp)
    assert isinstance(view, memref.ViewOp)
    assert view.sizes[0] is func.body.blocks[0].args[0]  # the view keeps the size n
    base = view.byte_shift.owner
    assert isinstance(base, arith.MuliOp)
    stride = base.rhs.owner  # round_up(n, 16) = (n + 15) / 16 * 16
    assert isinstance(stride, arith.MuliOp) and constant_value(stride.rhs) == 16
    quotient = stride.lhs.owner
    assert isinstance(quotient, arith.DivUIOp) and constant_value(quotient.rhs) == 16
    bumped = quotient.lhs.owner
    assert isinstance(bumped, arith.AddiOp) and constant_value(bumped.rhs) == 15
    assert bumped.lhs is func.body.blocks[0].args[0]
    (alloc,) = ops_of(module, gpu.AllocOp)
    assert isinstance(alloc, gpu.AllocOp)
    (launch,) = ops_of(module, gpu.LaunchFuncOp)
    assert isinstance(launch, gpu.LaunchFuncOp)
    total = alloc.dynamicSizes[0].owner  # ((stride * gx) * gy) * gz at the launch
    assert isinstance(total, arith.MuliOp) and total.rhs is launch.gridSizeZ
    host_bumped = [op for op in ops_of(module, arith.AddiOp) if op.parent_op() is not func]
    assert [op.lhs for op in host_bumped] == [launch.kernelOperands[0]]  # type: ignore


# Issue 30 item 11: d (n x f32, n a kernel argument) and s (64 x f32) fuse into one
# dynamically sized backing; with n = 15000 it is 60256 B, above 48 KiB.
DYNAMIC_ABOVE_48_KIB = """
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {
    %t = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %two = arith.constant 2.0 : f32
    %d = "gpu_alloc.alloc"(%n) <{name = "d"}> : (index) -> memref<?xf32, 3 : i32>
    %s = "gpu_alloc.alloc"() <{name = "s"}> : () -> memref<64xf32, 3 : i32>
    memref.store %two, %s[%t] : memref<64xf32, 3 : i32>
    memref.store %one, %d[%t] : memref<?xf32, 3 : i32>
    gpu.barrier
    %v = memref.load %d[%t] : memref<?xf32, 3 : i32>
    %w = memref.load %s[%t] : memref<64xf32, 3 : i32>
    %x = arith.addf %v, %w : f32
    memref.store %x, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


def test_a_dynamic_backing_above_48_kib_can_be_simulated_after_lowering():
    """The lowered kernel had no size record, so `gpu-alloc-sim --chip sm_90` gave its
    dynamic shared memory 48 KiB and refused the run (exit 5). It now records that the
    kernel computes the size itself: the launch gives what its view needs, up to what the
    chip gives a block (sm_90: 227 KiB), and a view beyond that is still refused."""
    from gpu_alloc.dialect import DYNAMIC_SHARED_COMPUTED
    from gpu_alloc.sim import simulate
    from gpu_alloc.sim.errors import MemoryAccessError

    module = run_pipeline(parse(DYNAMIC_ABOVE_48_KIB), "fuse-gpu-allocs,lower-gpu-allocs")
    (kernel,) = [op for op in module.walk() if isinstance(op, gpu.FuncOp)]
    assert DYNAMIC_SHARED_COMPUTED in kernel.attributes
    run = simulate(module, grid=[1], block=[64], scalars=[15000], chip="sm_90")
    assert run.arrays()["out"].tolist() == [3.0] * 64 and not run.races
    with pytest.raises(MemoryAccessError, match="which has 232448 bytes"):
        simulate(module, grid=[1], block=[64], scalars=[60000], chip="sm_90")


PRIVATE_ONLY_DEVICE_FUNCTION = """
gpu.module @m {
  func.func @helper(%t: index) -> f32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %p = "gpu_alloc.alloc"() <{name = "p"}> : () -> memref<4xf32, 5 : i32>
    %tf = arith.index_cast %t : index to i32
    %f = arith.sitofp %tf : i32 to f32
    memref.store %f, %p[%c1] : memref<4xf32, 5 : i32>
    %v = memref.load %p[%c1] : memref<4xf32, 5 : i32>
    return %v : f32
  }
  gpu.func @k(%out: memref<64xf32>) kernel {
    %t = gpu.thread_id x
    %v = func.call @helper(%t) : (index) -> f32
    memref.store %v, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize("pipeline", ["lower-gpu-allocs", "fuse-gpu-allocs,lower-gpu-allocs"])
def test_a_device_function_whose_only_allocation_is_private_is_lowered(pipeline: str):
    """Issue 30: it was refused ("'gpu_alloc.alloc' outside a gpu.func, a gpu.launch or a
    workgroup func.func cannot be lowered"), contrary to docs/block-level.md: a private
    allocation of a `func.func` in a gpu.module is a `memref.alloca` (one per call)."""
    from gpu_alloc.sim import simulate

    module = run_pipeline(parse(PRIVATE_ONLY_DEVICE_FUNCTION), pipeline)
    assert not [op for op in module.walk() if op.name.startswith("gpu_alloc.")]
    (helper,) = [op for op in module.walk() if op.name == "func.func"]
    allocas = [op for op in helper.walk() if isinstance(op, memref.AllocaOp)]
    assert [str(op.memref.type) for op in allocas] == ["memref<4xf32, 5 : i32>"]
    run = simulate(module, grid=[1], block=[64])
    assert run.arrays()["out"].tolist() == [float(t) for t in range(64)]
