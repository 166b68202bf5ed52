"""GPU kernels from ML compilers (tests/external-ml/SOURCES.md), kept as found.

Each file goes through `gpu-alloc-opt --split-input-file -p
import-gpu-allocs,fuse-gpu-allocs,flatten-aliases` (with --allow-unregistered-dialect,
as the files' own RUN lines read them) and lands in one class: fused (a backing
`shared_alloc` of the bytes computed by hand below), nothing to fuse (exit 0, no
backing), refused (exit 1, one diagnostic located at the file's line), or not read
(mlir-opt-22 rejects the file too).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).parent / "external-ml"
OPT = str(Path(sys.executable).parent / "gpu-alloc-opt")
PASSES = "import-gpu-allocs,fuse-gpu-allocs,flatten-aliases"

# file -> (class, detail): backing bytes for "fused", (line, key words) otherwise.
EXPECTED: dict[str, tuple[str, object]] = {
    # 128x128xf16 accumulator (32768 B, written before the k loop, read after it),
    # 32x128xf16 and 128x32xf16 tiles (8192 B each, written and read in every
    # iteration): all three live at once, so no two share bytes: 32768 + 2 * 8192.
    "byteir/gpu-tensorcore-vectorization.mlir": ("fused", 32768 + 8192 + 8192),
    "byteir/gpu-distribute-shared-memory-copy.mlir": ("fused", 32768 + 8192 + 8192),
    # memref<64x64xf32, 2> on line 10: space 2 is none of global/workgroup/private.
    "byteir/funcToGPU.mlir": ("refused", (10, "memory space 2")),
    # vector.insertelement is gone from MLIR 22.
    "byteir/moveForallRegionIntoWarpOp.mlir": ("not read", (27, "vector.insertelement")),
    # line 33: the typed pointer !llvm.ptr<i8>, which MLIR 22 no longer has.
    "bladedisc/gpu-only-unroll-interleave.mlir": ("not read", (33, "expected integer value")),
    # only workgroup-memory arguments, no allocation
    "bladedisc/gmem-to-smem.mlir": ("nothing", None),
    "bladedisc/vector-to-mma-conversion.mlir": ("nothing", None),
    # 16x32xf32 and 32x16xf32 (2048 B each), both live until the deallocs at the end.
    "buddy-mlir/legalize-shmem-outlining.mlir": ("fused", 2048 + 2048),
    # one 256xf32 / 16x16xf32 attribution per kernel: fewer than two to fuse
    "llvm/workgroup-memory.mlir": ("nothing", None),
}


def _run(file: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            OPT,
            "--allow-unregistered-dialect",
            "--split-input-file",
            "-p",
            PASSES,
            str(CORPUS / file),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


def test_every_file_has_an_expectation():
    assert sorted(EXPECTED) == sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.mlir"))


@pytest.mark.parametrize("file", sorted(EXPECTED))
def test_file_lands_in_its_class(file: str):
    kind, detail = EXPECTED[file]
    done = _run(file)
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    if kind in ("fused", "nothing"):
        assert done.returncode == 0, done.stderr
        sizes = [
            int(m) for m in re.findall(r'"shared_alloc" backing .*: memref<(\d+)xi8', done.stdout)
        ]
        assert sizes == ([detail] if kind == "fused" else [])
        return
    assert done.returncode == 1
    line, words = detail  # type: ignore[misc]
    first = done.stderr.splitlines()[0]
    assert first.startswith(f"{CORPUS / file}:{line}:"), first
    assert words in first
    assert ("cannot read it either" in first) == (kind == "not read")
