"""Issue 27, items 2 and 3: one reader (tools/reader.py) for every tool and the API, the
same MLIR-bridge fallback and diagnostics everywhere; the bridge reads what mlir-opt-22
prints (calling conventions, MLIR 22 properties) and keeps the user's value names;
backend=mlir gets only IR mlir-opt-22 verifies, with --allow-unregistered-dialect on
every target."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gpu_alloc.api as ga
import pytest
from gpu_alloc.errors import UserInputError
from gpu_alloc.lowering.llvm.mlir_backend import holds_unregistered
from gpu_alloc.lowering.toolchain import find_mlir_opt, have_mlir_opt
from gpu_alloc.syntax.mlir_llvm import MLIR_CALLING_CONVENTIONS
from gpu_alloc.tools.reader import read
from gpu_alloc.tools.sim_loading import make_context, parse_module
from gpu_alloc.transforms.pre_lowering import pre_lower
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects import llvm, memref, vector

needs_mlir = pytest.mark.skipif(not have_mlir_opt(), reason="mlir-opt-22 is not installed")

PTX_KERNELCC = """\
module {
  llvm.func ptx_kernelcc @k(%buffer: !llvm.ptr) attributes {nvvm.kernel} {
    %one = llvm.mlir.constant(1 : i32) : i32
    llvm.store %one, %buffer : i32, !llvm.ptr
    llvm.return
  }
  llvm.func amdgpu_kernelcc @a() attributes {rocdl.kernel} {
    llvm.return
  }
}
"""

# Only MLIR reads line 4 (nvvm's custom form): the file goes through the bridge.
NEEDS_BRIDGE = PTX_KERNELCC.replace(
    "    llvm.store %one, %buffer : i32, !llvm.ptr\n",
    "    %tid = nvvm.read.ptx.sreg.tid.x : i32\n"
    "    %sum = llvm.add %one, %tid : i32\n"
    "    llvm.store %sum, %buffer : i32, !llvm.ptr\n",
)

# What mlir-opt-22 prints for flatten-aliases' `{alignment = 8}` (and `nontemporal`):
# MLIR 22 properties that xDSL's memref.load/store lack.
WITH_PROPERTIES = """\
"builtin.module"() ({
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (memref<16xf32>) -> ()}> ({
    ^bb0(%arg0: memref<16xf32>):
      %0 = "arith.constant"() <{value = 0 : index}> : () -> index
      %1 = "memref.load"(%arg0, %0) <{alignment = 8 : i64}> : (memref<16xf32>, index) -> f32
      "memref.store"(%1, %arg0, %0) <{nontemporal = true}> : (f32, memref<16xf32>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "k"} : () -> ()
  }) : () -> ()
}) {gpu.container_module} : () -> ()
"""


def _ctx() -> Context:
    ctx = Context()
    register_dialects(ctx)
    return ctx


def _run(tool: list[str], path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*tool, str(path), *args], capture_output=True, text=True, check=False, timeout=300
    )


OPT = [sys.executable, "-m", "gpu_alloc.tools.opt"]
XDSL_OPT = Path(sys.executable).parent / "xdsl-opt"


@needs_mlir
def test_gpu_calling_conventions_are_read_and_print_back():
    module, _ = read(_ctx(), NEEDS_BRIDGE, "cc.mlir")
    conventions = [op.CConv.cconv_name for op in module.walk() if isinstance(op, llvm.FuncOp)]
    assert conventions == ["ptx_kernelcc", "amdgpu_kernelcc"]
    again, _ = read(_ctx(), str(module), "again.mlir")  # what the tools print
    assert str(again) == str(module)


def test_the_custom_form_of_a_gpu_kernel_function_reads_without_mlir():
    """`llvm.func ptx_kernelcc @k`, as the tools print it, reads back with the embedded
    parser alone."""
    module, _ = read(_ctx(), PTX_KERNELCC, "cc.mlir", bridge="never")
    assert "llvm.func ptx_kernelcc @k(%buffer: !llvm.ptr)" in str(module)
    assert str(read(_ctx(), str(module), "again.mlir", bridge="never")[0]) == str(module)


@needs_mlir
def test_every_mlir_22_calling_convention_reads_as_mlir_prints_it():
    functions = "".join(
        f"llvm.func {name} @f{i}() {{\n  llvm.return\n}}\n"
        for i, name in enumerate(sorted(MLIR_CALLING_CONVENTIONS))
    )
    module, _ = read(_ctx(), functions, "all.mlir")
    read_back = {op.CConv.cconv_name for op in module.walk() if isinstance(op, llvm.FuncOp)}
    assert read_back == MLIR_CALLING_CONVENTIONS


def test_an_unknown_calling_convention_is_a_located_error():
    text = (
        '"llvm.func"() <{CConv = #llvm.cconv<bogus_cc>, function_type = !llvm.func<void ()>,'
        ' sym_name = "k"}> ({\n  "llvm.return"() : () -> ()\n}) : () -> ()\n'
    )
    with pytest.raises(UserInputError) as info:
        read(_ctx(), text, "bad.mlir", bridge="never")
    assert str(info.value).startswith(
        "bad.mlir:1:37: error: unknown LLVM calling convention 'bogus_cc'"
    )


@needs_mlir
def test_mlir_22_properties_xdsl_lacks_become_the_attributes_the_custom_form_gives():
    module, _ = read(_ctx(), WITH_PROPERTIES, "props.mlir")
    load = next(op for op in module.walk() if isinstance(op, memref.LoadOp))
    store = next(op for op in module.walk() if isinstance(op, memref.StoreOp))
    assert "alignment" not in load.properties
    assert str(load.attributes["alignment"]) == "8 : i64"
    assert str(store.properties["nontemporal"]) == "true"  # xDSL defines this one
    again, _ = read(_ctx(), str(module), "again.mlir", bridge="never")  # no bridge needed
    assert str(again) == str(module)


def test_without_the_bridge_an_undefined_property_is_a_located_error():
    with pytest.raises(UserInputError) as info:
        read(_ctx(), WITH_PROPERTIES, "props.mlir", bridge="never")
    assert str(info.value).startswith(
        "props.mlir:6:7: error: property 'alignment' is not defined by xDSL's 'memref.load'"
    )


@needs_mlir
def test_flatten_aliases_output_reads_back_through_mlir(tmp_path: Path):
    """The issue's case: flatten-aliases writes {alignment = 8} (lowering keeps it); mlir-opt-22 prints it as
    a property; every reader reads that back."""
    kernel = (Path(__file__).parent.parent / "examples" / "stencil_chain.mlir").read_text()
    flat = tmp_path / "flat.mlir"
    (tmp_path / "in.mlir").write_text(kernel)
    done = _run(
        OPT,
        tmp_path / "in.mlir",
        "-p",
        "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
        "-o",
        str(flat),
    )
    assert done.returncode == 0, done.stderr
    assert "alignment" in flat.read_text()
    generic = subprocess.run(
        [find_mlir_opt(), "--mlir-print-op-generic", "--allow-unregistered-dialect", str(flat)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "<{alignment" in generic
    module, _ = read(_ctx(), generic, "generic.mlir")
    assert any("alignment" in op.attributes for op in module.walk())
    assert parse_module(generic) is not None  # the simulator's reader
    assert ga.parse(generic) is not None  # the API's


@needs_mlir
def test_bridged_values_keep_the_users_names(capsys):
    module, _ = read(_ctx(), NEEDS_BRIDGE, "cc.mlir")
    assert "cc.mlir:4:12: the embedded parser stops here" in capsys.readouterr().err
    text = str(module)
    assert "%buffer: !llvm.ptr" in text and "%one = llvm.mlir.constant" in text
    assert "%tid = " in text and "%sum = llvm.add %one, %tid" in text
    assert "%arg0" not in text and "%0" not in text


@needs_mlir
@pytest.mark.parametrize(
    "tool",
    [
        pytest.param(OPT, id="gpu-alloc-opt"),
        pytest.param([str(XDSL_OPT), "-f", "mlir-gpu"], id="xdsl-opt-mlir-gpu"),
        pytest.param(
            [sys.executable, "-m", "gpu_alloc.tools.layout", "--svg", "/dev/null"],
            id="gpu-alloc-layout",
        ),
    ],
)
def test_every_tool_reads_through_the_bridge_with_the_same_remark(tool, tmp_path: Path):
    path = tmp_path / "cc.mlir"
    path.write_text(NEEDS_BRIDGE)
    done = _run(tool, path)
    assert done.returncode == 0, done.stderr
    assert f"{path}:4:12: the embedded parser stops here" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_stock_mlir_frontend_is_xdsls_own_and_refuses_at_the_convention(tmp_path: Path):
    """The plugin patches nothing (issue 31): stock `-f mlir` is xDSL's frontend with xDSL's
    llvm dialect, so it stops at `ptx_kernelcc` with one located line; `-f mlir-gpu` is the
    plugin's frontend, which reads through the bridge (above)."""
    path = tmp_path / "cc.mlir"
    path.write_text(NEEDS_BRIDGE)
    done = _run([str(XDSL_OPT), "-f", "mlir"], path)
    assert done.returncode == 1
    assert f"{path}:2:13: error: expect symbol name" in done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


@needs_mlir
def test_the_simulator_reads_through_the_bridge(tmp_path: Path):
    path = tmp_path / "props.mlir"
    path.write_text(WITH_PROPERTIES)
    done = _run(
        [sys.executable, "-m", "gpu_alloc.tools.sim_cli"], path, "--grid", "1", "--block", "1"
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"gpu-alloc-sim: remark: {path}:6:7: the embedded parser")


def test_every_reader_gives_the_same_one_line_error():
    text = "func.func @f() {\n  %x = arith.addi : i32\n}\n"
    with pytest.raises(UserInputError) as api_error:
        ga.parse(text, file_name="bad.mlir")
    with pytest.raises(UserInputError) as reader_error:
        read(make_context(), text, "bad.mlir", bridge="never")
    assert str(api_error.value).splitlines()[0].startswith("bad.mlir:2:")
    assert (
        str(api_error.value).splitlines()[0].split(" (")[0]
        == str(reader_error.value).splitlines()[0].split(" (")[0]
    )


AFFINE_VECTOR = """\
gpu.module @m {
  gpu.func @k(%a: memref<64xf32>) kernel {
    affine.for %i = 0 to 16 {
      %v = affine.vector_load %a[%i * 4] {alignment = 16 : i64} : memref<64xf32>, vector<4xf32>
      affine.vector_store %v, %a[%i * 4 + 1] : memref<64xf32>, vector<4xf32>
    }
    gpu.return
  }
}
"""


def test_affine_vector_memory_is_lowered_with_its_loops():
    module = parse_module(AFFINE_VECTOR)
    pre_lower(module)
    names = {op.name for op in module.walk()}
    assert not {n for n in names if n.startswith("affine.")}
    load = next(op for op in module.walk() if isinstance(op, vector.LoadOp))
    assert str(load.attributes["alignment"]) == "16 : i64"
    assert any(isinstance(op, vector.StoreOp) for op in module.walk())


@needs_mlir
def test_backend_mlir_accepts_affine_vector_memory():
    module = ga.parse(AFFINE_VECTOR)
    ptx = ga.emit_ptx(module, chip="sm_90", backend="mlir")
    assert "ld.global" in ptx and "st.global" in ptx


def test_unregistered_ops_and_attributes_ask_for_the_flag():
    ctx = make_context()
    plain = read(ctx, AFFINE_VECTOR, "k.mlir")[0]
    assert not holds_unregistered(plain)
    marked = read(
        ctx, AFFINE_VECTOR.replace("kernel {", "kernel attributes {foo.x = #foo.y<1>} {"), "k.mlir"
    )[0]
    assert holds_unregistered(marked)
    with_op = read(
        ctx, AFFINE_VECTOR.replace("gpu.return", '"foo.op"() : () -> ()\n    gpu.return'), "k.mlir"
    )[0]
    assert holds_unregistered(with_op)


UNREGISTERED_HINT = """\
gpu.module @m {
  gpu.func @k(%a: memref<64xf32>) kernel {
    %c0 = arith.constant 0 : index
    %v = memref.load %a[%c0] {foo.hint = #foo.thing<1>} : memref<64xf32>
    memref.store %v, %a[%c0] : memref<64xf32>
    gpu.return
  }
}
"""


@needs_mlir
@pytest.mark.parametrize("target", ["ptx", "amdgcn", "spirv"])
def test_allow_unregistered_dialect_reaches_mlir_on_every_target(target: str, tmp_path: Path):
    path = tmp_path / "k.mlir"
    path.write_text(UNREGISTERED_HINT)
    options = ["-p", "lower-gpu-allocs", "-t", f"{target}{{backend=mlir}}"]
    done = _run(OPT, path, "--allow-unregistered-dialect", *options)
    assert done.returncode == 0, done.stderr
    assert "rejected" not in done.stderr


@needs_mlir
def test_restored_names_never_print_as_another_values():
    """The IMEX GEMM's `%a_val`, `%a_val_1`, `%a_val_1_0`: xDSL's printer would print the
    third (hint `a_val_1`) as the second; such a name is left to the printer."""
    text = NEEDS_BRIDGE.replace(
        "    %sum = llvm.add %one, %tid : i32\n",
        "    %s = llvm.add %one, %tid : i32\n"
        "    %s_1 = llvm.add %s, %tid : i32\n"
        "    %s_1_0 = llvm.add %s_1, %s : i32\n"
        "    %sum = llvm.add %s_1_0, %s_1 : i32\n",
    )
    module, _ = read(_ctx(), text, "names.mlir")
    printed = str(module)
    assert "%s = llvm.add" in printed and "%s_1 = llvm.add %s," in printed
    again, _ = read(_ctx(), printed, "again.mlir")
    assert str(again) == printed
