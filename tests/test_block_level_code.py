"""Issue 19 §1: one definition of block-level code, asked by every pass and tool.

A module with a kernel, a workgroup `func.func` with a `gpu.launch` in it, a device
function and a device `gpu.func` that allocates nothing: fuse, flatten's record, the
fusion result and the layout tool all see the same units, in the same order.
"""

from __future__ import annotations

import corpus
from gpu_alloc import api
from gpu_alloc.dialect import LAYOUT_ATTR, AllocOp
from gpu_alloc.tools.layout import fused_layouts
from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass
from gpu_alloc.transforms.block_level_code import block_level_code, gpu_kernels, owned_by
from gpu_alloc.transforms.fuse.fuse_gpu_allocs import fuse_module
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from gpu_alloc.transforms.kernel_ir import kernel_name
from xdsl.context import Context
from xdsl.dialects import gpu

WG = "#gpu.address_space<workgroup>"


def _pair(prefix: str, index: str) -> str:
    """Two buffers used on either side of a barrier: one backing in every unit."""
    return f"""
    %{prefix}a = memref.alloc() : memref<16xf32, {WG}>
    %{prefix}b = memref.alloc() : memref<16xf32, {WG}>
    memref.store %v, %{prefix}a[{index}] : memref<16xf32, {WG}>
    %{prefix}x = memref.load %{prefix}a[{index}] : memref<16xf32, {WG}>
    gpu.barrier
    memref.store %{prefix}x, %{prefix}b[{index}] : memref<16xf32, {WG}>
    %{prefix}y = memref.load %{prefix}b[{index}] : memref<16xf32, {WG}>
    memref.store %{prefix}y, %out[{index}] : memref<16xf32>"""


MODULE = f"""
func.func @workgroup(%out: memref<16xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32{_pair("w", "%c0")}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1) threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {{{_pair("l", "%c0")}
    gpu.terminator
  }}
  return
}}
gpu.module @m {{
  func.func @device(%out: memref<16xf32>, %i: index) {{
    %v = arith.constant 1.0 : f32{_pair("d", "%i")}
    return
  }}
  gpu.func @plain(%out: memref<16xf32>) {{
    gpu.return
  }}
  gpu.func @k(%out: memref<16xf32>) kernel {{
    %t = gpu.thread_id x
    %v = arith.constant 1.0 : f32{_pair("k", "%t")}
    func.call @device(%out, %t) : (memref<16xf32>, index) -> ()
    gpu.return
  }}
}}
"""
UNITS = ["workgroup", "gpu.launch in workgroup", "device", "k"]


def _imported():
    module = corpus.parse(MODULE)
    import_gpu_allocs(module)
    return module


def test_the_units_and_what_each_owns():
    module = _imported()
    units = block_level_code(module)
    assert [kernel_name(u) for u in units] == UNITS
    assert [k.sym_name.data for k in gpu_kernels(module)] == ["k"]
    function, launch = units[0], units[1]
    assert isinstance(launch, gpu.LaunchOp)
    inner = [o for o in launch.walk() if isinstance(o, AllocOp)]
    assert inner and all(owned_by(o, launch) and not owned_by(o, function) for o in inner)


def test_every_pass_and_tool_sees_the_same_units():
    module = _imported()
    reports = fuse_module(module, FuseGpuAllocsPass())
    assert [r.kernel for r in reports] == UNITS
    assert [k.kernel for k in api.fusion_result(module).kernels] == UNITS
    recorded = [
        kernel_name(u)
        for u in block_level_code(module)
        if any(
            isinstance(o, AllocOp) and LAYOUT_ATTR in o.attributes and owned_by(o, u)
            for o in u.walk()
        )
    ]
    assert recorded == UNITS  # fuse recorded a backing in each
    FlattenAliasesPass().apply(Context(), module)
    assert [k.kernel for k in api.fusion_result(module).kernels] == UNITS
    drawn = fused_layouts(_imported(), alignment=16, max_shared_bytes=49152)
    assert [layout.kernel for layout in drawn] == UNITS
