"""What the AMD and SPIR-V backends make of the ids, the barrier and private memory, read
in the LLVM IR the embedded backend builds and in the assembly both backends print."""

from __future__ import annotations

import re

import pytest
from gpu_alloc.lowering.coverage import BACKENDS
from gpu_alloc.lowering.emit import device_for, emit_modules, prepared
from gpu_alloc.lowering.llvm.llvmlite_translate import translate_to_llvmlite
from gpu_alloc.lowering.llvm.to_llvm import lower_gpu_module_to_llvm
from gpu_alloc.targets import TARGETS
from lowering_support import parse
from xdsl.dialects import gpu

IDS = """
builtin.module {
  gpu.module @m {
    gpu.func @k(%out: memref<64xindex, 1>) kernel {
      %t = gpu.thread_id x
      %l = gpu.lane_id
      %n = gpu.block_dim y
      %g = gpu.grid_dim z
      %a = arith.addi %l, %n : index
      %b = arith.addi %a, %g : index
      %p = memref.alloca() : memref<64xindex, 5 : i32>
      memref.store %b, %p[%t] : memref<64xindex, 5 : i32>
      gpu.barrier
      %v = memref.load %p[%l] : memref<64xindex, 5 : i32>
      memref.store %v, %out[%t] : memref<64xindex, 1>
      gpu.return
    }
  }
}
"""


def _llvm_ir(target: str, chip: str = "") -> str:
    module, device = prepared(
        parse(IDS), target, chip, "llvmlite", TARGETS[target].default_isa_version
    )
    (gpu_module,) = [op for op in module.walk() if isinstance(op, gpu.ModuleOp)]
    lowered = lower_gpu_module_to_llvm(gpu_module, device)
    return str(
        translate_to_llvmlite(
            lowered, device.target.triple.format(isa_version_dotted="1.4"), device.target.abi
        )
    )


def test_amd_ids_barrier_and_private_memory_in_llvm_ir():
    ir = _llvm_ir("amdgcn", "gfx942")
    assert 'define amdgpu_kernel void @"k"' in ir
    assert '@"llvm.amdgcn.workitem.id.x"()' in ir
    # wave64: the lane is counted over both halves of the exec mask
    assert re.search(r'llvm\.amdgcn\.mbcnt\.lo"\(i32 -1, i32 0\)', ir)
    assert '@"llvm.amdgcn.mbcnt.hi"(i32 -1' in ir
    # block size y: code object v5's hidden_group_size_y, 14 bytes into the implicit arguments
    assert re.search(r"getelementptr inbounds i8, ptr addrspace\(4\) %\S+, i32 14", ir)
    assert "load i16, ptr addrspace(4)" in ir
    # grid size z: hidden_block_count_z, 8 bytes in
    assert re.search(r"getelementptr inbounds i8, ptr addrspace\(4\) %\S+, i32 8", ir)
    assert re.search(r"alloca i64, i64 64, align 8, addrspace\(5\)", ir)
    barrier = 'fence syncscope("workgroup") release\n  call void @"llvm.amdgcn.s.barrier"()\n  fence syncscope("workgroup") acquire'
    assert barrier in ir


def test_rdna_counts_lanes_over_one_half():
    ir = _llvm_ir("amdgcn", "gfx1100")
    assert "llvm.amdgcn.mbcnt.lo" in ir and "llvm.amdgcn.mbcnt.hi" not in ir


def test_spirv_ids_barrier_and_private_memory_in_llvm_ir():
    ir = _llvm_ir("spirv")
    assert 'define spir_kernel void @"k"(ptr addrspace(1)' in ir  # a CrossWorkgroup buffer
    assert 'call spir_func i64 @"_Z12get_local_idj"(i32 0)' in ir
    assert 'call spir_func i32 @"_Z22get_sub_group_local_idv"()' in ir
    assert 'call spir_func i64 @"_Z14get_local_sizej"(i32 1)' in ir
    assert 'call spir_func i64 @"_Z14get_num_groupsj"(i32 2)' in ir
    assert 'call spir_func void @"_Z7barrierj"(i32 3)' in ir
    assert re.search(r"alloca i64, i64 64, align 8\n", ir)  # Function storage: address space 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_spirv_builtins_and_storage_classes_in_the_assembly(backend: str):
    (text,) = emit_modules(parse(IDS), "spirv", "", backend, 14).values()
    for builtin in (
        "LocalInvocationId",
        "SubgroupLocalInvocationId",
        "WorkgroupSize",
        "NumWorkgroups",
    ):
        assert f"BuiltIn {builtin}" in text, builtin
    assert "OpControlBarrier" in text
    assert "OpTypePointer CrossWorkgroup" in text and "OpTypePointer Function" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_amd_private_memory_is_scratch_and_the_barrier_waits(backend: str):
    """64 x i64 per thread is 512 bytes of the private segment; the barrier is an
    s_barrier after an s_waitcnt (the fences make the stores visible first)."""
    (text,) = emit_modules(parse(IDS), "amdgcn", "gfx942", backend, 0).values()
    private = re.search(r"\.amdhsa_private_segment_fixed_size (\d+)", text)
    assert private is not None and int(private.group(1)) >= 512
    assert re.search(r"scratch_store|buffer_store", text)
    assert re.search(r"s_waitcnt[^\n]*\n(\s*[^\n]*\n){0,3}\s*s_barrier", text)
    assert device_for("amdgcn", "gfx942", backend, 0).wave_size == 64
    assert ".amdhsa_wavefront_size32" not in text


def test_a_variable_of_the_wrong_storage_class_is_rejected():
    """What MLIR made of private memory before it was numbered (a Function variable of a
    CrossWorkgroup pointer): spirv-val 2023.1 accepts it, the check does not."""
    from gpu_alloc.lowering.spirv.spirv_tools import check_variables
    from gpu_alloc.lowering.tool_runs import ToolRejected

    text = (
        "%1 = OpTypeInt 64 0\n%2 = OpTypePointer CrossWorkgroup %1\n"
        "%3 = OpTypePointer Function %1\n%4 = OpVariable %3 Function\n"
    )
    check_variables(text)
    with pytest.raises(ToolRejected, match="Function storage of a CrossWorkgroup pointer"):
        check_variables(text + "%5 = OpVariable %2 Function\n")


DYNAMIC_WORKGROUP = """
gpu.module @m {
  gpu.func @k(%out: memref<64xf32>, %n: index) kernel {
    %t = gpu.thread_id x
    %z = arith.constant 1.0 : f32
    %d = memref.alloc(%n) : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %z, %d[%t] : memref<?xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %d[%t] : memref<?xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%t] : memref<64xf32>
    gpu.return
  }
}
"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_amd_dynamic_workgroup_buffer_is_dynamic_lds(backend: str):
    """Issue 30: on a dynamically sized `#gpu.address_space<workgroup>` buffer the MLIR
    backend handed mlir-opt-22 a memref.view whose base (gpu.dynamic_shared_memory,
    spelled) and view (numbered) memory spaces differ, which it rejected. Both backends:
    no static LDS, the buffer written and read in LDS."""
    from gpu_alloc.api import ImportGpuAllocsPass, register

    module = parse(DYNAMIC_WORKGROUP)
    ImportGpuAllocsPass().apply(register(), module)
    (text,) = emit_modules(module, "amdgcn", "gfx942", backend, 0).values()
    assert re.search(r"\.amdhsa_group_segment_fixed_size 0\b", text)
    assert re.search(r"ds_write_b32", text) and re.search(r"ds_read_b32", text)
