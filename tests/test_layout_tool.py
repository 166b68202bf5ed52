"""`gpu-alloc-layout`: a valid SVG naming every Func, co-live Funcs never overlapping."""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gpu_alloc.sim import simulate
from gpu_alloc.tools.layout import main
from gpu_alloc.tools.sim_loading import load_module
from gpu_alloc.tools.sim_loading import parse_module as load_module_text
from many_funcs import many_funcs_kernel

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
BANKS = ROOT / "tests" / "sim_kernels" / "bank_patterns.mlir"
SVG = "{http://www.w3.org/2000/svg}"


def _draw(path: Path, out: Path, *extra: str) -> ET.Element:
    main([str(path), "--svg", str(out), *extra])  # returns on success
    return ET.parse(out).getroot()  # raises on invalid XML


MLIR_FORM_FUNCS = {"mlir_transpose.mlir": {"tile", "flipped", "result"}}
"""The shared buffers of the examples written in MLIR's form (from their header)."""


def _expected_funcs(path: Path) -> set[str]:
    if path.name in MLIR_FORM_FUNCS:
        return MLIR_FORM_FUNCS[path.name]
    module = load_module(str(path))
    return {
        op.alloc_name.data
        for op in module.walk()
        if op.name == "gpu_alloc.alloc" and op.space in (1, 3)  # type: ignore[attr-defined]
    }


def _panels(root: ET.Element) -> list[list[dict[str, float | str]]]:
    panels = []
    for group in root.iter(f"{SVG}g"):
        rects = []
        for rect in group.iter(f"{SVG}rect"):
            if "data-func" in rect.attrib:
                a = rect.attrib
                rects.append(
                    {
                        "func": a["data-func"],
                        "first": int(a["data-first"]),
                        "last": int(a["data-last"]),
                        "x": float(a["x"]),
                        "y": float(a["y"]),
                        "w": float(a["width"]),
                        "h": float(a["height"]),
                    }
                )
        panels.append(rects)
    return panels


def _check_picture(root: ET.Element, funcs: set[str]) -> None:
    assert root.tag == f"{SVG}svg"
    panels = _panels(root)
    drawn = {r["func"] for panel in panels for r in panel}
    assert drawn == funcs
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert funcs <= texts  # every Func is named (in the table beside the plot)
    for panel in panels:
        for a, b in itertools.combinations(panel, 2):
            if a["first"] <= b["last"] and b["first"] <= a["last"]:  # live together
                x_overlap = min(a["x"] + a["w"], b["x"] + b["w"]) - max(a["x"], b["x"])
                y_overlap = min(a["y"] + a["h"], b["y"] + b["h"]) - max(a["y"], b["y"])
                assert x_overlap <= 0 or y_overlap <= 1e-6, (a["func"], b["func"])


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_examples(path: Path, tmp_path: Path):
    root = _draw(path, tmp_path / "out.svg")
    funcs = _expected_funcs(path)
    assert funcs, f"{path.name} has Funcs to draw"
    _check_picture(root, funcs)


def test_mlir_form_is_imported_and_drawn(tmp_path: Path):
    """MLIR's own form (an attribution and two workgroup memref.allocs) is drawn as the
    fused layout: `result` reuses `tile`'s bytes, 8192 B for three 4096 B tiles."""
    root = _draw(ROOT / "examples" / "mlir_transpose.mlir", tmp_path / "out.svg")
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "kernel 'transpose' - shared backing 'shared_alloc': 3 Funcs" in texts
    assert any(t.startswith("unfused 12288 B -> fused 8192 B") for t in texts), texts


def test_launch_bodies_and_workgroup_functions_are_drawn(tmp_path: Path):
    """The kernels fuse fuses, all of them: a gpu.launch body and a workgroup func.func
    (and not the launch's buffers twice, although the launch is inside a function)."""
    kernel = tmp_path / "launch.mlir"
    kernel.write_text(LAUNCH_AND_WORKGROUP_FUNC)
    root = _draw(kernel, tmp_path / "out.svg")
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert sorted(t for t in texts if "backing" in t) == [
        "kernel 'gpu.launch in host' - shared backing 'shared_alloc': 2 Funcs",
        "kernel 'workgroup' - shared backing 'shared_alloc_1': 2 Funcs",
    ]
    fused = sorted(t.split(";")[0] for t in texts if t.startswith("unfused"))
    assert fused == [
        "unfused 128 B -> fused 64 B (saves 64 B, 50%)",
        "unfused 512 B -> fused 256 B (saves 256 B, 50%)",
    ]
    _check_picture(root, {"a", "b", "c", "d"})


LAUNCH_AND_WORKGROUP_FUNC = """
func.func @host(%n: index, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %n, %sy = %c1, %sz = %c1) {
    %cst = arith.constant 1.0 : f32
    %a = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %cst, %a[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %v = memref.load %a[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %b = memref.alloc() : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %v, %b[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    %w = memref.load %b[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    memref.store %w, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}
func.func @workgroup(%out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %c = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %c[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
  gpu.barrier
  %d = memref.alloc() : memref<16xf32, #gpu.address_space<workgroup>>
  memref.store %cst, %d[%c0] : memref<16xf32, #gpu.address_space<workgroup>>
  return
}
"""


def test_sixty_funcs_and_the_lower_bound(tmp_path: Path):
    kernel = tmp_path / "many.mlir"
    kernel.write_text(many_funcs_kernel(60))
    root = _draw(kernel, tmp_path / "many.svg")
    _check_picture(root, {f"f{i}" for i in range(60)})
    title = next(t.text or "" for t in root.iter(f"{SVG}text") if "backing" in (t.text or ""))
    assert "60 Funcs" in title
    # Same input, same bytes.
    first = (tmp_path / "many.svg").read_bytes()
    _draw(kernel, tmp_path / "many.svg")
    assert (tmp_path / "many.svg").read_bytes() == first


def test_profile_shades_and_numbers_conflicts(tmp_path: Path):
    result = simulate(load_module(str(BANKS)), grid=[2], block=[32], profile=True)
    assert result.profile is not None
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps(result.profile.as_json()))
    root = _draw(BANKS, tmp_path / "out.svg", "--profile-json", str(profile))
    _check_picture(root, {"col", "row", "bcast", "h"})
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "col (62 conflicts)" in texts
    fills = {
        r.attrib["data-func"]: r.attrib["fill"]
        for r in root.iter(f"{SVG}rect")
        if "data-func" in r.attrib
    }
    assert fills["col"] == "rgb(220,40,40)"  # the worst Func: full red
    assert fills["row"] == "rgb(255,255,255)"  # no conflict: white, as docs/tools.md says
    assert fills["bcast"] == "rgb(255,255,255)"
    assert fills["h"] == "rgb(215,215,215)"  # a heap Func: no bank model, grey
    assert "no bank conflicts" in texts
    assert "the most bank conflicts (62); lighter red: fewer" in texts
    assert "no bank figures (heap or private memory, or not profiled)" in texts
    unprofiled = _draw(BANKS, tmp_path / "plain.svg")
    plain = [r.attrib["fill"] for r in unprofiled.iter(f"{SVG}rect") if "data-func" in r.attrib]
    hues = [int(f[4:].split(",")[0]) for f in plain]
    assert all(60 <= h < 300 for h in hues)  # no pastel is a red: red means conflicts


def test_heading_shows_the_saving_and_each_barrier_with_its_line(tmp_path: Path):
    """The stencil chain by hand (its header comment): unfused 484 + 400 + 324 = 1208 B,
    fused 884 B = the lower bound, so 324 B (27%) saved; stages 1-3 begin at the file's
    three `gpu.barrier` lines."""
    path = ROOT / "examples" / "stencil_chain.mlir"
    root = _draw(path, tmp_path / "out.svg")
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "kernel 'stencil_chain' - shared backing 'shared_alloc': 3 Funcs" in texts
    assert (
        "unfused 1208 B -> fused 884 B (saves 324 B, 27%); lower bound 884 B (proven optimal)"
    ) in texts
    lines = [n for n, text in enumerate(path.read_text().splitlines(), 1) if "gpu.barrier" in text]
    assert len(lines) == 3
    drawn = [
        e.attrib["data-barrier"] for e in root.iter(f"{SVG}line") if "data-barrier" in e.attrib
    ]
    assert drawn == [f"gpu.barrier @ line {n}" for n in lines]
    assert all(f"barrier @ line {n}" in texts for n in lines)  # written above the plot


def test_an_inserted_barrier_is_labelled_as_such():
    from gpu_alloc.tools.layout import fused_layouts

    source = (ROOT / "tests" / "filecheck" / "import" / "insert-barriers.mlir").read_text()
    module = load_module_text(source)
    from gpu_alloc.api import ImportGpuAllocsPass, register

    ImportGpuAllocsPass().apply(register(), module)
    # The kernel fits the limit of 1600 B only with the barrier fuse inserts after the loop.
    (layout,) = fused_layouts(module, max_shared_bytes=1600)
    assert layout.barriers == {1: "inserted gpu.barrier"}
    assert (layout.unfused, layout.size) == (1664, 1536)


def test_renders_with_rsvg_convert(tmp_path: Path):
    rsvg = shutil.which("rsvg-convert")
    assert rsvg is not None, "install librsvg2-bin (see .ci/run)"
    _draw(ROOT / "examples" / "stencil_chain.mlir", tmp_path / "out.svg")
    subprocess.run([rsvg, str(tmp_path / "out.svg"), "-o", str(tmp_path / "out.png")], check=True)
    png = (tmp_path / "out.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 1000


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.mlir"], "missing.mlir: error: cannot read"),
        ([str(BANKS), "--profile-json", "missing.json"], "missing.json: error: cannot read"),
        ([str(BANKS), "--profile-json", str(BANKS)], "not JSON"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path, capsys, args, message):
    out = tmp_path / "out.svg"
    with pytest.raises(SystemExit) as exit_info:
        main([*args, "--svg", str(out)])
    err = capsys.readouterr().err
    assert exit_info.value.code == 1
    assert len(err.strip().splitlines()) == 1 and message in err
    assert not out.exists()


def test_a_pass_error_is_located_at_its_op(tmp_path: Path, capsys):
    """As in gpu-alloc-opt: the line and column of the op, then the source line and a
    caret (it was `gpu-alloc-layout: error: ...` with no location)."""
    out = tmp_path / "out.svg"
    path = ROOT / "examples" / "stencil_chain.mlir"
    with pytest.raises(SystemExit) as exit_info:
        main([str(path), "--max-shared-bytes", "100", "--svg", str(out)])
    first, source_line, caret = capsys.readouterr().err.strip("\n").splitlines()
    assert exit_info.value.code == 1 and not out.exists()
    assert first.startswith(f"{path}:9:5: error: kernel 'stencil_chain' needs 884 bytes of ")
    assert "over the limit of 100" in first
    assert source_line.strip().startswith('"gpu.func"()') and caret.strip().startswith("^")


def test_the_heading_states_the_bound_fuse_proved(tmp_path: Path):
    """examples/mixed_types.mlir by hand (tests/filecheck/transforms/fuse-gpu-allocs-mixed.mlir):
    the max load is 153 B, but with 16-byte aligned offsets the three Funcs live at stage 1
    need 80 + 48 + 36 = 164 B, which fuse proves optimal: the picture says 164, never the
    153 that no layout reaches."""
    root = _draw(ROOT / "examples" / "mixed_types.mlir", tmp_path / "out.svg")
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert (
        "unfused 187 B -> fused 164 B (saves 23 B, 12%); lower bound 164 B (proven optimal)"
        in texts
    )
    assert not any("153" in text for text in texts)
