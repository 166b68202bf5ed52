"""Unknown ops never break correctness (transforms/memory_effects.py): a buffer an op
nobody models uses is imported and lives for the whole kernel, the other buffers are
still fused; async copies complete where their token is waited for; the new dialects'
ops have one effects entry each."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import corpus
import pytest
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from gpu_alloc.transforms.memory_effects import UseKind
from gpu_alloc.transforms.memref_uses import memref_accesses
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import SSAValue

WG = "memref<64xf32, #gpu.address_space<workgroup>>"

# %A is used where marked; %B and %C have disjoint lifetimes (256 bytes each).
KERNEL = f"""
gpu.module @m {{
  gpu.func @k(%out: memref<64xf32>, %g: memref<64xf32>) kernel {{
    %tid = gpu.thread_id x
    %one = arith.constant 1.0 : f32
    %A = memref.alloc() : {WG}
    %B = memref.alloc() : {WG}
    %C = memref.alloc() : {WG}
    USE_OF_A
    gpu.barrier
    memref.store %one, %B[%tid] : {WG}
    gpu.barrier
    %b = memref.load %B[%tid] : {WG}
    gpu.barrier
    memref.store %b, %C[%tid] : {WG}
    gpu.barrier
    %c = memref.load %C[%tid] : {WG}
    memref.store %c, %out[%tid] : memref<64xf32>
    gpu.return
  }}
}}
"""
KNOWN = f"memref.store %one, %A[%tid] : {WG}"
UNKNOWN_OP = f'"test.opaque"(%A) : ({WG}) -> ()'
UNKNOWN_REGION = f"""\"test.region"() ({{
      memref.store %one, %A[%tid] : {WG}
      "test.end"() : () -> ()
    }}) : () -> ()"""
CALL = f"func.call @helper(%A) : ({WG}) -> ()"
ALIGNED_POINTER = f"%p = memref.extract_aligned_pointer_as_index %A : {WG} -> index"


def fused_bytes(use: str) -> tuple[int, int] | None:
    result = corpus.run_chunk("<test>", 0, KERNEL.replace("USE_OF_A", use), bridge=False)
    assert result.output is not None, result.error
    return result.shared_bytes


def test_known_use_shares_with_the_others():
    assert fused_bytes(KNOWN) == (768, 256)  # %A dies before %B is born


@pytest.mark.parametrize(
    ("use", "reason"),
    [
        (UNKNOWN_OP, "passed to an unregistered op ('test.opaque')"),
        (UNKNOWN_REGION, "used inside an op whose regions are not modelled ('test.region')"),
        (ALIGNED_POINTER, "passed to an op whose memory effects are not modelled"),
    ],
    ids=["unknown-op", "unknown-region", "pointer-as-index"],
)
def test_escaping_buffer_lives_for_the_whole_kernel_and_the_rest_is_fused(use: str, reason: str):
    assert fused_bytes(use) == (768, 512)  # %A alone, %B and %C together
    module = corpus.parse(KERNEL.replace("USE_OF_A", use))
    remarks = import_gpu_allocs(module)
    (remark,) = [r for r in remarks if "lives for the whole kernel" in r.message]
    assert f"memref.alloc %A is {reason}" in remark.message
    assert remark.op is not None and remark.op.name == "memref.alloc"  # located at %A


def test_buffer_passed_to_a_call_is_imported_for_the_whole_kernel():
    text = KERNEL.replace("USE_OF_A", CALL).replace(
        "gpu.module @m {", f"gpu.module @m {{\n  func.func private @helper(%x: {WG})"
    )
    result = corpus.run_chunk("<test>", 0, text, bridge=False)
    assert result.shared_bytes == (768, 512), result.error


def test_buffer_whose_storage_leaves_is_not_imported():
    text = f"""
gpu.module @m {{
  func.func @f(%into: memref<1xmemref<64xf32, #gpu.address_space<workgroup>>>) -> {WG} {{
    %c0 = arith.constant 0 : index
    %x = memref.alloc() : {WG}
    %y = memref.alloc() : {WG}
    memref.store %y, %into[%c0] : memref<1x{WG}>
    return %x : {WG}
  }}
}}
"""
    module = corpus.parse(text)
    remarks = import_gpu_allocs(module)
    messages = [r.message for r in remarks]
    assert any("its storage is returned or yielded ('func.return')" in m for m in messages)
    assert any("its storage is stored to memory ('memref.store')" in m for m in messages)
    assert sum(op.name == "memref.alloc" for op in module.walk()) == 2


def value_named(module: ModuleOp, name: str) -> SSAValue:
    return next(r for op in module.walk() for r in op.results if r.name_hint == name)


ASYNC = f"""
gpu.module @m {{
  gpu.func @k(%src: memref<64xf32>, %out: memref<64xf32>) kernel {{
    %tid = gpu.thread_id x
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    %S = memref.alloc() : {WG}
    %T = memref.alloc() : {WG}
    %tok = nvgpu.device_async_copy %src[%tid], %S[%tid], 1 : memref<64xf32> to {WG}
    %grp = nvgpu.device_async_create_group %tok
    gpu.barrier
    memref.store %one, %T[%tid] : {WG}
    gpu.barrier
    %t = memref.load %T[%tid] : {WG}
    memref.store %t, %out[%tid] : memref<64xf32>
    gpu.barrier
    WAIT
    gpu.return
  }}
}}
"""


def test_async_copy_writes_its_destination_until_the_wait():
    module = corpus.parse(ASYNC.replace("WAIT", "nvgpu.device_async_wait %grp"))
    kinds = [(a.op.name, a.kind) for a in memref_accesses(value_named(module, "S"))]
    assert ("nvgpu.device_async_copy", UseKind.WRITE) in kinds
    assert ("nvgpu.device_async_wait", UseKind.WRITE) in kinds
    kernel = next(op for op in module.walk() if op.name == "gpu.func")
    src = kernel.regions[0].blocks[0].args[0]
    reads = [(a.op.name, a.kind) for a in memref_accesses(src)]
    assert reads == [("nvgpu.device_async_copy", UseKind.READ)]
    # %T's whole life is between the copy and the wait: the copy may still be writing %S
    result = corpus.run_chunk("<test>", 0, ASYNC.replace("WAIT", "nvgpu.device_async_wait %grp"))
    assert result.shared_bytes == (512, 512), result.error


def test_a_token_going_anywhere_but_a_wait_is_an_escape():
    text = ASYNC.replace("WAIT", '"test.later"(%grp) : (!nvgpu.device.async.token) -> ()')
    module = corpus.parse(text)
    kinds = [(a.op.name, a.kind) for a in memref_accesses(value_named(module, "S"))]
    assert ("builtin.unregistered", UseKind.ESCAPE) in kinds


def test_linalg_reads_ins_and_reads_and_writes_outs():
    text = """
func.func @f(%a: memref<64xf32, 3>, %b: memref<64xf32, 3>, %c: memref<64xf32, 3>) {
  linalg.copy ins(%a : memref<64xf32, 3>) outs(%b : memref<64xf32, 3>)
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%b : memref<64xf32, 3>) outs(%c : memref<64xf32, 3>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  }
  return
}
"""
    module = corpus.parse(text)
    func = next(op for op in module.walk() if op.name == "func.func")
    a, b, c = func.regions[0].blocks[0].args
    assert [(x.op.name, x.kind) for x in memref_accesses(a)] == [("linalg.copy", UseKind.READ)]
    assert sorted((x.op.name, x.kind.name) for x in memref_accesses(b)) == [
        ("linalg.copy", "READ_WRITE"),
        ("linalg.generic", "READ"),
    ]
    assert [(x.op.name, x.kind) for x in memref_accesses(c)] == [
        ("linalg.generic", UseKind.READ_WRITE)
    ]


def test_generic_unknown_ops_from_stock_tools_go_through_import_and_fuse():
    """What `xdsl-opt --allow-unregistered-dialect` or `mlir-opt --mlir-print-op-generic`
    prints for an op nobody here defines is an unregistered op, and it only pins %A."""
    text = KERNEL.replace(
        "USE_OF_A",
        f'%d = "xegpu.create_nd_tdesc"(%A) <{{const_offsets = array<i64: 0>}}> : ({WG}) '
        "-> !xegpu.tensor_desc<64xf32>",
    )
    module = corpus.parse(text)
    assert any(isinstance(op, UnregisteredOp) for op in module.walk())
    result = corpus.run_chunk("<test>", 0, text, bridge=False)
    assert result.shared_bytes == (768, 512), result.error


def test_stock_xdsl_opt_fuses_around_a_generic_unknown_op(tmp_path: Path):
    """The stock driver (`xdsl-opt --allow-unregistered-dialect`, this package's plugin)
    reads generic unknown ops too: %A is pinned, %B and %C share."""
    use = (
        f'%d = "xegpu.create_nd_tdesc"(%A) <{{const_offsets = array<i64: 0>}}> : ({WG}) '
        "-> !xegpu.tensor_desc<64xf32>"
    )
    text = KERNEL.replace("USE_OF_A", use).replace("#gpu.address_space<workgroup>", "3 : i32")
    module = corpus.parse(text)
    path = tmp_path / "kernel.mlir"
    path.write_text(corpus.print_module(module))  # the generic form xdsl-opt reads
    xdsl_opt = Path(sys.executable).parent / "xdsl-opt"
    command = [str(xdsl_opt), "--allow-unregistered-dialect", str(path)]
    done = subprocess.run(
        [*command, "-p", "import-gpu-allocs,fuse-gpu-allocs"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "so it lives for the whole kernel" in done.stderr
    assert '"xegpu.create_nd_tdesc"' in done.stdout
    backing = [line for line in done.stdout.splitlines() if " backing " in line]
    assert len(backing) == 1 and "memref<512xi8, 3 : i32>" in backing[0]  # not 768
