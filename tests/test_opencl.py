"""`-t opencl` and `gpu-alloc-run` (issue 29): OpenCL C executed on PoCL and Oclgrind.

The differential here is a fixed sample (CI time): the examples, 6 of the 24 Halide-style
kernels (tests/halide_style.py) and the planted faults. `make differential` runs all 24
and prints the agreement table (scripts/opencl_differential.py).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyopencl")

from differential import Launch  # noqa: E402
from gpu_alloc.errors import GpuAllocPassError  # noqa: E402
from gpu_alloc.lowering.opencl.target import emit_opencl_modules, emit_opencl_source  # noqa: E402
from gpu_alloc.tools.opencl_run import oclgrind_reports  # noqa: E402
from gpu_alloc.tools.sim_loading import parse_module  # noqa: E402
from halide_style import LAUNCH, halide_kernels  # noqa: E402
from opencl_differential import (  # noqa: E402
    STENCIL,
    agreement_table,
    check_faulty,
    compare,
    planted_faults,
)

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent

EXAMPLE_LAUNCHES = {
    "stencil_chain.mlir": Launch(grid=(2, 1), block=(16, 16)),
    "mixed_types.mlir": Launch(grid=(2,), block=(64,)),
    "heap_scratch.mlir": Launch(grid=(2,), block=(128,)),
}
HALIDE_SAMPLE = (
    "chain3_i32",
    "chain4_f32",
    "mixed_i8_f32",
    "camera_f32",
    "unsharp_i16",
    "heap_chain3_f64",
)


def test_fused_backing_is_one_local_array_with_views_at_their_offsets():
    """stencil_chain fused: 884 bytes, f2 at 0, f1 and f3 at 400 (as PROMISED), the
    barrier with both fences, ids as OpenCL builtins."""
    from gpu_alloc.tools.sim_loading import make_context
    from gpu_alloc.transforms import FuseGpuAllocsPass

    module = parse_module(STENCIL)
    FuseGpuAllocsPass().apply(make_context(), module)
    source = emit_opencl_source(module)
    assert (
        "__local char shared_stencil_chain__shared_alloc[884] __attribute__((aligned(16)));"
        in source
    )
    assert source.count("(__local int*)((__local uchar*)shared_stencil_chain__shared_alloc + ") == 3
    assert "barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);" in source
    assert "(long)get_local_id(1)" in source and "(long)get_group_id(0)" in source
    (built,) = emit_opencl_modules(module).values()
    assert built.kernels["stencil_chain"].parameters[0].kind == "buffer"


def test_pocl_reports_the_fused_bytes():
    from gpu_alloc.lowering.opencl.opencl_tools import local_bytes
    from gpu_alloc.tools.sim_loading import make_context
    from gpu_alloc.transforms import FuseGpuAllocsPass

    module = parse_module(STENCIL)
    FuseGpuAllocsPass().apply(make_context(), module)
    assert local_bytes(emit_opencl_source(module)) == {"stencil_chain": 884}
    assert local_bytes(emit_opencl_source(parse_module(STENCIL))) == {"stencil_chain": 1208}


def test_an_op_without_opencl_c_is_refused_at_the_op():
    text = STENCIL.replace(
        '%tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        '%tx = "gpu.lane_id"() : () -> index',
    )
    with pytest.raises(GpuAllocPassError, match="no sub-groups") as error:
        emit_opencl_source(parse_module(text))
    assert error.value.op is not None and "\n" not in error.value.message


def test_a_reserved_kernel_name_is_renamed_in_c_only():
    text = STENCIL.replace('sym_name = "stencil_chain"', 'sym_name = "kernel"')
    source = emit_opencl_source(parse_module(text))
    assert "__kernel void gpu_alloc_kernel(" in source


@pytest.mark.parametrize("example", sorted(EXAMPLE_LAUNCHES))
def test_example_variants_agree_on_every_runtime(example: str):
    cases = compare(example, (EXAMPLES / example).read_text(), EXAMPLE_LAUNCHES[example])
    assert len(cases) == 9
    assert all(c.same_results and not c.race and not c.other_error for c in cases), cases


@pytest.mark.parametrize("name", HALIDE_SAMPLE)
def test_halide_style_kernel_agrees_on_every_runtime(name: str):
    text = dict(halide_kernels())[name]
    cases = compare(name, text, LAUNCH)
    assert all(c.same_results and not c.race and not c.other_error for c in cases), cases


def test_planted_faults_are_races_for_both_oracles():
    cases = [c for fault in planted_faults() for c in check_faulty(*fault)]
    assert len(cases) == 6
    assert all(c.race for c in cases), cases
    table = agreement_table(cases)
    assert "| races agree | 3 |" in table and "| races differ | 0 |" in table


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "gpu-alloc-run"), *args], capture_output=True, text=True, check=False
    )


def test_gpu_alloc_run_prints_what_gpu_alloc_sim_prints():
    arguments = [str(EXAMPLES / "stencil_chain.mlir"), "--grid", "2,1", "--block", "16,16"]
    simulated = subprocess.run(
        [str(BIN / "gpu-alloc-sim"), *arguments], capture_output=True, text=True, check=True
    )
    for runtime in ("pocl", "oclgrind", "sim"):
        ran = _run(*arguments, "--runtime", runtime)
        assert ran.returncode == 0, ran.stderr
        assert ran.stdout == simulated.stdout, runtime
    assert len(simulated.stdout.splitlines()) == 2


def test_a_removed_barrier_is_a_race_at_the_mlir_line(tmp_path: Path):
    """The fused chain without its barriers: Oclgrind's race, exit 3, located twice."""
    from gpu_alloc.tools.sim_loading import make_context
    from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass

    module = parse_module(STENCIL)
    FuseGpuAllocsPass().apply(make_context(), module)
    FlattenAliasesPass().apply(make_context(), module)
    text = "".join(
        line for line in str(module).splitlines(keepends=True) if '"gpu.barrier"' not in line
    )
    path = tmp_path / "no_barriers.mlir"
    path.write_text(text)
    ran = _run(str(path), "--runtime", "oclgrind", "--grid", "1", "--block", "16,16")
    assert ran.returncode == 3, ran.stderr
    first = ran.stderr.splitlines()[0]
    assert "data race" in first and "OpenCL C line" in first and f"{path}:" in first


def test_cuda_without_a_gpu_is_one_line():
    ran = _run(
        str(EXAMPLES / "stencil_chain.mlir"), "--runtime", "cuda", "--grid", "1", "--block", "1"
    )
    if ran.returncode == 0:
        pytest.skip("a GPU is here: the run itself is scripts/gpu_check.py's")
    assert ran.returncode == 2 and len(ran.stderr.splitlines()) == 1, ran.stderr
    assert ran.stderr.startswith("gpu-alloc-run: error: --runtime cuda: ")
    hip = _run(
        str(EXAMPLES / "stencil_chain.mlir"), "--runtime", "hip", "--grid", "1", "--block", "1"
    )
    assert hip.returncode == 2 and len(hip.stderr.splitlines()) == 1, hip.stderr


OCLGRIND_OUTPUT = """
Work-group divergence detected (barrier):
\tKernel: k
\tWork-group: (0,0,0)

\tOnly 5 out of 32 work-items executed barrier
\tAt line 12 (column 5) of input.cl:
\t  (source not available)

Invalid write of size 4 at global memory address 0x20000000000a0
\tKernel: k
\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)
\t  store i32 %1, i32 addrspace(1)* %2, align 4
\tAt line 17 (column 3) of input.cl:
\t  (source not available)
"""


def test_oclgrind_reports_are_read_with_their_lines():
    reports = oclgrind_reports(OCLGRIND_OUTPUT)
    assert [(r.kind, r.line) for r in reports] == [("divergence", 12), ("bounds", 17)]


SCALARS = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, f32, i32, i1) -> (), kernel}> ({
    ^bb0(%a: memref<?xf32>, %s: f32, %n: i32, %flag: i1):
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c0 = arith.constant 0 : index
      %d = memref.dim %a, %c0 : memref<?xf32>
      %in = arith.cmpi ult, %t, %d : index
      scf.if %in {
        %v = memref.load %a[%t] : memref<?xf32>
        %nf = arith.sitofp %n : i32 to f32
        %m = arith.mulf %v, %s : f32
        %r = arith.addf %m, %nf : f32
        %q = arith.select %flag, %r, %v : f32
        memref.store %q, %a[%t] : memref<?xf32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


def test_scalars_and_dynamic_extents_match_the_simulator(tmp_path: Path):
    """f32, i32 and i1 scalars, a memref<?xf32> sized by --dynamic-extent (an extra `long`
    argument), memref.dim: the same digest on every runtime."""
    path = tmp_path / "scalars.mlir"
    path.write_text(SCALARS)
    options = ["--grid", "1", "--block", "32", "--dynamic-extent", "20", "--scalars", "1.5,-3,1"]
    lines = {r: _run(str(path), "--runtime", r, *options) for r in ("sim", "pocl", "oclgrind")}
    assert all(ran.returncode == 0 for ran in lines.values()), lines
    assert len({ran.stdout for ran in lines.values()}) == 1
    assert lines["sim"].stdout.startswith("a 20xf32 sha256=")


DIVERGENT = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<32xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<32xi32>):
      %c5 = arith.constant 5 : index
      %c40 = arith.constant 40 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<32xi32, 3 : i32>
      %lo = arith.cmpi ult, %t, %c5 : index
      scf.if %lo {
        "gpu.barrier"() : () -> ()
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""
OUT_OF_BOUNDS = """\
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<32xi32>) -> (), kernel}> ({
    ^bb0(%out: memref<32xi32>):
      %c5 = arith.constant 5 : index
      %c40 = arith.constant 40 : index
      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %x = "gpu_alloc.alloc"() <{name = "tile"}> : () -> memref<32xi32, 3 : i32>
      %lo = arith.cmpi ult, %t, %c5 : index
      %ti = arith.index_cast %t : index to i32
      %u = arith.addi %t, %c40 : index
      memref.store %ti, %out[%u] : memref<32xi32>
      scf.if %lo {
        memref.store %ti, %out[%t] : memref<32xi32>
      }
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


@pytest.mark.parametrize(
    ("text", "code", "kind", "line"),
    [(DIVERGENT, 4, "divergence", 11), (OUT_OF_BOUNDS, 5, "Invalid write", 12)],
    ids=["divergent-barrier", "out-of-bounds"],
)
def test_oclgrind_errors_are_the_simulators_exit_codes_at_its_line(
    tmp_path: Path, text: str, code: int, kind: str, line: int
):
    path = tmp_path / "k.mlir"
    path.write_text(text)
    simulated = subprocess.run(
        [str(BIN / "gpu-alloc-sim"), str(path), "--grid", "1", "--block", "32"],
        capture_output=True,
        text=True,
        check=False,
    )
    ran = _run(str(path), "--runtime", "oclgrind", "--grid", "1", "--block", "32")
    assert simulated.returncode == ran.returncode == code, (simulated.stderr, ran.stderr)
    assert ran.stdout == ""  # as the simulator: no digests after such an error
    assert kind in ran.stderr and f"{path}:{line}:" in ran.stderr
    assert f"{path}:{line}:" in simulated.stderr
