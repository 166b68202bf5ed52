"""`gpu-alloc-pack --svg`: the packing drawn by gpu-alloc-layout's renderer (issue 22 item 4)."""

from __future__ import annotations

import csv
import itertools
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from gpu_alloc.tools.pack import main

ROOT = Path(__file__).resolve().parent.parent
SMALL = ROOT / "bench" / "data" / "examples" / "input.12.csv"
SVG = "{http://www.w3.org/2000/svg}"


def _buffers(root: ET.Element) -> dict[str, dict[str, int]]:
    return {
        r.attrib["data-func"]: {
            k: int(r.attrib[f"data-{k}"]) for k in ("offset", "bytes", "first", "last")
        }
        for r in root.iter(f"{SVG}rect")
        if "data-func" in r.attrib
    }


def test_the_picture_is_the_packing(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    main([str(SMALL), "--svg", str(tmp_path / "p.svg"), "--output", str(tmp_path / "p.csv")])
    assert "peak=12 lower_bound=12" in capsys.readouterr().out
    root = ET.parse(tmp_path / "p.svg").getroot()
    drawn = _buffers(root)
    with open(tmp_path / "p.csv", newline="") as stream:
        rows = {row["id"]: row for row in csv.DictReader(stream)}
    assert set(drawn) == set(rows) == {"b1", "b2", "b3", "b4", "b5"}
    for name, row in rows.items():  # each rectangle: the buffer's offset, size and interval
        assert drawn[name] == {
            "offset": int(row["offset"]),
            "bytes": int(row["size"]),
            "first": int(row["lower"]),
            "last": int(row["upper"]) - 1,
        }
    for a, b in itertools.combinations(drawn.values(), 2):  # co-live buffers never overlap
        if a["first"] <= b["last"] and b["first"] <= a["last"]:
            assert (
                a["offset"] + a["bytes"] <= b["offset"] or b["offset"] + b["bytes"] <= a["offset"]
            )
    texts = [t.text for t in root.iter(f"{SVG}text")]
    # By hand: b5 [0,21), b3 [0,9) and one of b1/b2/b4 (4 B each) are live together: 12 B.
    assert "input.12.csv: 5 buffers" in texts
    assert "12 B; lower bound 12 B (proven optimal)" in texts
    assert "input.12.csv: packing (x = time, y = byte)" in texts
    group = next(root.iter(f"{SVG}g"))
    assert group.attrib["data-space"] == "buffers"  # the layout tool's panel, reused


def test_a_large_instance_lists_the_first_rows_and_renders(tmp_path: Path):
    big = tmp_path / "big.csv"
    big.write_text(
        "id,lower,upper,size\n" + "".join(f"x{i},{i},{i + 3},{8 + i % 5}\n" for i in range(150))
    )
    main([str(big), "--svg", str(tmp_path / "big.svg"), "--budget", "100"])
    root = ET.parse(tmp_path / "big.svg").getroot()
    assert len(_buffers(root)) == 150  # every buffer drawn
    texts = [t.text or "" for t in root.iter(f"{SVG}text")]
    assert "... and 90 more (each rectangle's tooltip names it)" in texts
    rsvg = shutil.which("rsvg-convert")
    assert rsvg is not None, "install librsvg2-bin (see .ci/run)"
    subprocess.run([rsvg, str(tmp_path / "big.svg"), "-o", str(tmp_path / "big.png")], check=True)
    assert (tmp_path / "big.png").read_bytes()[:4] == b"\x89PNG"


def test_an_unwritable_picture_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_info:
        main([str(SMALL), "--svg", str(tmp_path)])  # a directory
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "error" in err


def test_the_picture_states_the_bound_the_packer_proved(tmp_path: Path):
    """Three 1-byte buffers, all live at once, each 2-aligned: the max load is 3 B, but the
    highest one starts at an even offset above the other two bytes, so no packing is below
    2 + 2 + 1 = 5 B (offsets 0, 2, 4), which the packer proves. The heading and the dashed
    line say 5, not the max load."""
    source = tmp_path / "aligned.csv"
    source.write_text(
        "id,lower,upper,size,alignment\n" + "".join(f"b{i},0,1,1,2\n" for i in range(3))
    )
    main([str(source), "--svg", str(tmp_path / "p.svg"), "--quiet"])
    texts = [t.text for t in ET.parse(tmp_path / "p.svg").getroot().iter(f"{SVG}text")]
    assert "5 B; lower bound 5 B (proven optimal)" in texts
    assert "lower bound 5 B" in texts
