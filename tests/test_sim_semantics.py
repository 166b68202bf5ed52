"""The simulator computes what the kernels say: results checked against numpy
references written from each kernel's comment, not from the simulator's output."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from gpu_alloc.sim.errors import MemoryAccessError, SimulationError
from gpu_alloc.sim.launch import SimulationResult, simulate
from gpu_alloc.tools.sim_loading import load_module, parse_module

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
KERNELS = Path(__file__).resolve().parent / "sim_kernels"


def arrays(result: SimulationResult) -> dict[str, np.ndarray]:
    return {a.name: a.array for a in result.arguments}


def test_stencil_chain_matches_numpy():
    result = simulate(
        load_module(str(EXAMPLES / "stencil_chain.mlir")), grid=(8, 8), block=(16, 16)
    )
    values = arrays(result)
    image, out = values["in"], values["out"]
    expected = np.zeros((64, 64), np.int32)
    for by in range(8):
        for bx in range(8):
            f1 = image[by * 8 : by * 8 + 11, bx * 8 : bx * 8 + 11]
            f2 = f1[:10, :10] + f1[1:, 1:]
            f3 = f2[:9, :9] + f2[1:, 1:]
            expected[by * 8 : by * 8 + 8, bx * 8 : bx * 8 + 8] = f3[:8, :8] + f3[1:, 1:]
    np.testing.assert_array_equal(out, expected)
    assert result.races == []


def test_mixed_types_matches_numpy():
    result = simulate(load_module(str(EXAMPLES / "mixed_types.mlir")), grid=(4,), block=(64,))
    values = arrays(result)
    in8, in16, out = values["in8"], values["in16"], values["out"]
    expected = np.zeros(68, np.int16)
    for b in range(4):
        a = in8[b * 37 : b * 37 + 37].astype(np.float32)
        bb = in16[b * 18 : b * 18 + 18]
        t = np.arange(20)
        w = a[t] + a[t + 17] + bb[t % 18].astype(np.float32)
        c = bb[:17] + w[:17].astype(np.int16)
        expected[b * 17 : b * 17 + 17] = c
    np.testing.assert_array_equal(out, expected)
    assert result.races == []


def test_heap_scratch_matches_numpy():
    result = simulate(load_module(str(EXAMPLES / "heap_scratch.mlir")), grid=(4,), block=(128,))
    values = arrays(result)
    h1 = (values["in"] * np.float32(2)).reshape(4, 128)
    h2 = h1 + h1[:, ::-1]
    squares = (np.arange(32) ** 2).astype(np.float32)
    expected = (h2 + squares[np.arange(128) % 32]).reshape(-1)
    np.testing.assert_array_equal(values["out"], expected)
    assert result.races == []


def test_loop_reuse_matches_numpy():
    result = simulate(load_module(str(KERNELS / "loop_reuse.mlir")), grid=(2,), block=(64,))
    values = arrays(result)
    p = values["in"].reshape(2, 64)
    q = s = p
    for r in range(3):
        q = p[:, ::-1] + r
        s = q[:, ::-1] * 2
    np.testing.assert_array_equal(values["out"], (s + q).reshape(-1))


def test_dynamic_size_private_memory_and_divergent_while():
    result = simulate(
        load_module(str(KERNELS / "dynamic_private.mlir")), grid=(3,), block=(32,), scalars=[48]
    )
    values = arrays(result)
    d = values["in"].reshape(3, 48)
    t = np.arange(32)
    # Each thread adds tmp[count-1] + ... + tmp[0] = (count-1) + ... + 0, in that order.
    expected = d[:, (t + 5) % 48].copy()
    for lane in range(32):
        for k in reversed(range(lane % 4)):
            expected[:, lane] += np.float32(k)
    np.testing.assert_array_equal(values["out"], expected.reshape(-1))
    assert result.races == []


def test_divergent_branches_reconverge_before_the_barrier():
    result = simulate(load_module(str(KERNELS / "branches.mlir")), grid=(2,), block=(32,))
    values = arrays(result)
    x = values["in"].reshape(2, 32)
    t = np.arange(32)
    v = np.where(t % 2 == 0, x * 3, x + 100)
    np.testing.assert_array_equal(values["out"], v[:, ::-1].reshape(-1))


def test_same_seed_same_digests_other_seed_other_inputs():
    module = load_module(str(EXAMPLES / "stencil_chain.mlir"))
    first = simulate(module, grid=(8, 8), block=(16, 16), seed=7).digests()
    again = simulate(module, grid=(8, 8), block=(16, 16), seed=7).digests()
    other = simulate(module, grid=(8, 8), block=(16, 16), seed=8).digests()
    assert first == again
    assert first["in"] != other["in"] and first["out"] != other["out"]


ARITH_KERNEL = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<12xi32>, memref<2xf32>) -> (), kernel}> ({
    ^bb0(%out: memref<12xi32>, %fout: memref<2xf32>):
      %m7 = arith.constant -7 : i32
      %c2 = arith.constant 2 : i32
      %big = arith.constant 2147483647 : i32
      %one = arith.constant 1 : i32
      %true = arith.constant true
      %q = arith.divsi %m7, %c2 : i32
      %r = arith.remsi %m7, %c2 : i32
      %fl = arith.floordivsi %m7, %c2 : i32
      %ce = arith.ceildivsi %m7, %c2 : i32
      %wrap = arith.addi %big, %one : i32
      %ult = arith.cmpi ult, %m7, %c2 : i32
      %ult32 = arith.extui %ult : i1 to i32
      %sext = arith.extsi %true : i1 to i32
      %shr = arith.shrui %m7, %c2 : i32
      %shrs = arith.shrsi %m7, %c2 : i32
      %du = arith.divui %m7, %c2 : i32
      %byte = arith.trunci %big : i32 to i8
      %byte32 = arith.extsi %byte : i8 to i32
      %f = arith.constant -2.5 : f32
      %fi = arith.fptosi %f : f32 to i32
      %zero = arith.constant 0.0 : f32
      %nan = arith.divf %zero, %zero : f32
      %uno = arith.cmpf uno, %nan, %f : f32
      %unof = arith.uitofp %uno : i1 to f32
      %maxn = arith.maxnumf %nan, %f : f32
      %i0 = arith.constant 0 : index
      %i1 = arith.constant 1 : index
      %i2 = arith.constant 2 : index
      %i3 = arith.constant 3 : index
      %i4 = arith.constant 4 : index
      %i5 = arith.constant 5 : index
      %i6 = arith.constant 6 : index
      %i7 = arith.constant 7 : index
      %i8 = arith.constant 8 : index
      %i9 = arith.constant 9 : index
      %i10 = arith.constant 10 : index
      %i11 = arith.constant 11 : index
      memref.store %q, %out[%i0] : memref<12xi32>
      memref.store %r, %out[%i1] : memref<12xi32>
      memref.store %fl, %out[%i2] : memref<12xi32>
      memref.store %ce, %out[%i3] : memref<12xi32>
      memref.store %wrap, %out[%i4] : memref<12xi32>
      memref.store %ult32, %out[%i5] : memref<12xi32>
      memref.store %sext, %out[%i6] : memref<12xi32>
      memref.store %shr, %out[%i7] : memref<12xi32>
      memref.store %shrs, %out[%i8] : memref<12xi32>
      memref.store %du, %out[%i9] : memref<12xi32>
      memref.store %byte32, %out[%i10] : memref<12xi32>
      memref.store %fi, %out[%i11] : memref<12xi32>
      memref.store %unof, %fout[%i0] : memref<2xf32>
      memref.store %maxn, %fout[%i1] : memref<2xf32>
      "gpu.return"() : () -> ()
    }) {sym_name = "arith_kernel"} : () -> ()
  }) : () -> ()
}
"""


def test_arith_follows_mlir_integer_and_float_semantics():
    result = simulate(parse_module(ARITH_KERNEL), grid=(1,), block=(1,))
    out = arrays(result)["out"]
    assert out.tolist() == [
        -3,  # divsi rounds toward zero
        -1,  # remsi takes the dividend's sign
        -4,  # floordivsi
        -3,  # ceildivsi
        -(2**31),  # i32 addition wraps
        0,  # -7 is a huge unsigned number: not ult 2
        -1,  # extsi of i1 true
        (2**32 - 7) >> 2,  # shrui shifts in zeros
        -2,  # shrsi shifts in the sign
        (2**32 - 7) // 2,  # divui
        -1,  # trunci keeps the low byte 0xff
        -2,  # fptosi truncates toward zero
    ]
    fout = arrays(result)["fout"]
    assert fout.tolist() == [1.0, -2.5]  # NaN is unordered; maxnum ignores a NaN


def test_unknown_op_is_a_clear_error():
    text = ARITH_KERNEL.replace("%q = arith.divsi %m7, %c2 : i32", '%q = "test.op"() : () -> i32')
    with pytest.raises(SimulationError, match="op 'test.op' is not supported"):
        simulate(parse_module(text), grid=(1,), block=(1,))


def test_view_past_its_backing_is_an_error():
    text = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<4xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<4xi32>):
      %c8 = arith.constant 8 : index
      %b = "gpu_alloc.alloc"() <{name = "backing"}> : () -> memref<20xi8, 3 : i32>
      %p = "gpu_alloc.offset_pointer"(%b, %c8) : (memref<20xi8, 3 : i32>, index) -> !gpu_alloc.ptr<3 : i32>
      %f = "gpu_alloc.alias"(%p) <{name = "f"}> : (!gpu_alloc.ptr<3 : i32>) -> memref<4xi32, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
    with pytest.raises(
        MemoryAccessError,
        match=r"'f' \(4xi32\) covers bytes \[8, 24\) of 'backing', which has 20 bytes",
    ):
        simulate(parse_module(text), grid=(1,), block=(1,))


def test_subview_aliases_its_source():
    """out[i] = 10 * i, written through a strided, rank-reducing subview: column 1 of
    a 4x3 shared array (elements 1, 4, 7, 10 of its storage)."""
    text = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<12xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<12xi32>):
      %c0 = arith.constant 0 : index
      %c3 = arith.constant 3 : index
      %ten = arith.constant 10 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ti = arith.index_cast %t : index to i32
      %v = arith.muli %ti, %ten : i32
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<4x3xi32, 3 : i32>
      %column = memref.subview %a[0, 1] [4, 1] [1, 1] : memref<4x3xi32, 3 : i32> to memref<4xi32, strided<[3], offset: 1>, 3 : i32>
      %four = arith.constant 4 : index
      %in4 = arith.cmpi ult, %t, %four : index
      scf.if %in4 {
        memref.store %v, %column[%t] : memref<4xi32, strided<[3], offset: 1>, 3 : i32>
      }
      "gpu.barrier"() : () -> ()
      %row = arith.divui %t, %c3 : index
      %col = arith.remui %t, %c3 : index
      %x = memref.load %a[%row, %col] : memref<4x3xi32, 3 : i32>
      memref.store %x, %out[%t] : memref<12xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
    result = simulate(parse_module(text), grid=(1,), block=(12,))
    assert arrays(result)["out"].tolist() == [0, 0, 0, 0, 10, 0, 0, 20, 0, 0, 30, 0]
    assert result.races == []


def test_divergent_cf_switch_groups_threads_by_case():
    """out[t] = t * 2 when t % 3 == 0, t + 100 when t % 3 == 1, else 7."""
    text = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<16xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<16xi32>):
      %c3 = arith.constant 3 : index
      %two = arith.constant 2 : i32
      %hundred = arith.constant 100 : i32
      %seven = arith.constant 7 : i32
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %ti = arith.index_cast %t : index to i32
      %m = arith.remui %t, %c3 : index
      %flag = arith.index_cast %m : index to i32
      cf.switch %flag : i32, [
        default: ^join(%seven : i32),
        0: ^double(%ti : i32),
        1: ^shift(%ti : i32)
      ]
    ^double(%d: i32):
      %d2 = arith.muli %d, %two : i32
      cf.br ^join(%d2 : i32)
    ^shift(%s: i32):
      %s2 = arith.addi %s, %hundred : i32
      cf.br ^join(%s2 : i32)
    ^join(%v: i32):
      "gpu.barrier"() : () -> ()
      memref.store %v, %out[%t] : memref<16xi32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
    result = simulate(parse_module(text), grid=(1,), block=(16,))
    expected = [t * 2 if t % 3 == 0 else t + 100 if t % 3 == 1 else 7 for t in range(16)]
    assert arrays(result)["out"].tolist() == expected
