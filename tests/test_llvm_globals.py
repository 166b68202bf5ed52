"""Issue 27: an LLVM-dialect workgroup global (`llvm.mlir.global` with `addr_space = 3`,
read with `llvm.mlir.addressof`) is workgroup memory that every limit counts: fuse's, and
the targets' static-shared check on either backend (`transforms/shared_globals.py`,
`lowering/static_shared.py`).

The byte sizes below are worked out by hand from LLVM's data layout rules (a field at the
next multiple of its alignment, a struct padded to its largest alignment).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gpu_alloc import api
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.memref_sizes import llvm_type_bytes
from gpu_alloc.transforms.shared_globals import shared_global_bytes, shared_global_bytes_read
from xdsl.dialects import gpu
from xdsl.passes import PassPipeline

OPT = str(Path(sys.executable).parent / "gpu-alloc-opt")


@pytest.mark.parametrize(
    ("type_", "size"),
    [
        ("!llvm.array<16384 x f32>", 65536),
        ("!llvm.array<3 x i8>", 3),
        ("!llvm.struct<(i8, f32, i16)>", 12),  # offsets 0, 4, 8; 10 padded to 12
        ("!llvm.array<4 x !llvm.struct<(i8, f32, i16)>>", 48),
        ("!llvm.array<2 x vector<4xf16>>", 16),
        ("!llvm.array<5 x !llvm.ptr<3>>", 40),
        ("!llvm.struct<(i8, f64)>", 16),
    ],
)
def test_llvm_types_are_sized_by_the_data_layout(type_: str, size: int):
    module = api.parse(f"llvm.mlir.global internal @g() {{addr_space = 3 : i32}} : {type_}")
    op = module.body.block.first_op
    assert llvm_type_bytes(op.global_type) == size  # pyright: ignore[reportAttributeAccessIssue, reportOptionalMemberAccess]


LLVM_KERNEL = """
gpu.module @m {{
  llvm.mlir.global weak @buf() {{addr_space = {space} : i32, alignment = 16 : i64}} : !llvm.array<{n} x f32>
  llvm.mlir.global internal @small() {{addr_space = 3 : i32}} : !llvm.array<3 x i8>
  llvm.func @helper() {{
    %a = llvm.mlir.addressof @buf : !llvm.ptr<{space}>
    %c = llvm.mlir.constant(1.0 : f32) : f32
    llvm.store %c, %a : f32, !llvm.ptr<{space}>
    llvm.return
  }}
  llvm.func @k(%p: !llvm.ptr) attributes {{{marker}}} {{
    llvm.call @helper() : () -> ()
    %s = llvm.mlir.addressof @small : !llvm.ptr<3>
    %c = llvm.mlir.constant(1 : i8) : i8
    llvm.store %c, %s : i8, !llvm.ptr<3>
    llvm.return
  }}
}}
"""


def test_a_global_in_address_space_3_counts_through_the_calls_that_read_it():
    module = api.parse(LLVM_KERNEL.format(space=3, n=100, marker="nvvm.kernel"))
    gpu_module = module.body.block.first_op
    assert isinstance(gpu_module, gpu.ModuleOp)
    assert shared_global_bytes(gpu_module) == {"buf": 400, "small": 3}
    kernel = next(
        op
        for op in gpu_module.body.ops
        if getattr(op, "sym_name", None) and op.sym_name.data == "k"
    )  # pyright: ignore[reportAttributeAccessIssue]
    assert shared_global_bytes_read(kernel) == 403


def test_a_global_in_another_address_space_is_not_workgroup_memory():
    module = api.parse(LLVM_KERNEL.format(space=1, n=100, marker="nvvm.kernel"))
    assert shared_global_bytes(module.body.block.first_op) == {"small": 3}  # pyright: ignore[reportArgumentType]


def _emit(text: str, target: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "k.mlir"
    source.write_text(text)
    return subprocess.run(
        [OPT, "-t", target, str(source)], capture_output=True, text=True, check=False, timeout=300
    )


@pytest.mark.parametrize(
    ("target", "marker", "n", "message"),
    [
        # 16384 x f32 read by the callee + 3 bytes: over the 49152 a PTX kernel declares
        ("ptx{backend=mlir}", "nvvm.kernel", 16384, "65539 bytes of static shared memory"),
        # 16640 x f32 = 66560 B + 3: over the 65536 one AMD block may use
        ("amdgcn{backend=mlir}", "rocdl.kernel", 16640, "66563 bytes of static"),
    ],
)
def test_an_llvm_kernel_over_the_limit_is_refused_at_its_line(
    tmp_path: Path, target: str, marker: str, n: int, message: str
):
    done = _emit(LLVM_KERNEL.format(space=3, n=n, marker=marker), target, tmp_path)
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()[:1]
    assert line.startswith(f"{tmp_path / 'k.mlir'}:11:3: error: kernel 'k' uses ")
    assert message in line
    assert not done.stdout


def test_an_llvm_kernel_within_the_limit_is_emitted(tmp_path: Path):
    done = _emit(
        LLVM_KERNEL.format(space=3, n=1024, marker="nvvm.kernel"), "ptx{backend=mlir}", tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert ".weak .shared .align 16 .b8 buf[4096];" in done.stdout  # weak: kept


GPU_KERNEL = """
gpu.module @m {
  llvm.mlir.global internal @table() {addr_space = 3 : i32, alignment = 4 : i64} : !llvm.array<8192 x f32>
  gpu.func @k(%o: memref<4096xf32>) kernel {
    %t = gpu.thread_id x
    %a = memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
    %b = memref.alloc() : memref<4096xf32, #gpu.address_space<workgroup>>
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
    memref.store %one, %b[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
    %x = memref.load %a[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
    %y = memref.load %b[%t] : memref<4096xf32, #gpu.address_space<workgroup>>
    %z = arith.addf %x, %y : f32
    %p = llvm.mlir.addressof @table : !llvm.ptr<3>
    llvm.store %z, %p : f32, !llvm.ptr<3>
    memref.store %z, %o[%t] : memref<4096xf32>
    gpu.return
  }
}
"""


def test_fuse_counts_an_llvm_global_the_kernel_reads():
    """a and b (16384 B each) are live together: 32768 B fused, plus the table's 32768 B
    is over NVIDIA's 49152."""
    module = api.parse(GPU_KERNEL)
    ctx = api.register()
    PassPipeline((api.ImportGpuAllocsPass(),)).apply(ctx, module)
    before = str(module)
    with pytest.raises(GpuAllocPassError, match="49152") as error:
        PassPipeline((api.FuseGpuAllocsPass(),)).apply(ctx, module)
    assert "65536" in error.value.message, error.value.message
    assert str(module) == before  # a failed pass leaves the module as it was
    small = api.parse(GPU_KERNEL.replace("8192 x f32", "1024 x f32"))
    PassPipeline((api.ImportGpuAllocsPass(), api.FuseGpuAllocsPass())).apply(api.register(), small)
    assert "shared_alloc" in str(small)


def test_fuse_says_it_leaves_an_llvm_kernels_globals_alone(tmp_path: Path):
    """An llvm.func kernel is a kernel (not "no kernel"): fuse names it and the bytes of
    workgroup globals it reads (400 + 3), and leaves the module as it was."""
    source = tmp_path / "k.mlir"
    source.write_text(LLVM_KERNEL.format(space=3, n=100, marker="nvvm.kernel"))
    done = subprocess.run(
        [OPT, "-p", "fuse-gpu-allocs", str(source)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "no kernel" not in done.stderr
    assert "'k' is an llvm.func kernel" in done.stderr
    assert "its 403 B of workgroup globals stay as they are" in done.stderr
    assert "shared_alloc" not in done.stdout and "@buf" in done.stdout
