"""Sizes no backing can hold: each allocation fits in an index, but together they do not.
Fuse used to crash in the packer ("internal error: OverflowError: Python int too large to
convert to C long"); `pack` itself now refuses items adding up to more than
`MAX_TOTAL_BYTES` (the packer's 64-bit sums), and fuse says so at the largest allocation."""

from __future__ import annotations

from pathlib import Path

import pytest
from fuzz_cli import run_tool
from gpu_alloc.packing import MAX_TOTAL_BYTES, PackingError, PackItem, pack
from test_user_mistakes import assert_one_located_error

QUARTER = 2**62  # bytes: two add up to 2^63, past a signed 64-bit integer
ALIGNMENT = 16  # fuse's default: the packer counts it with each size
TWO_QUARTERS = f"""\
gpu.module @m {{
  gpu.func @k() kernel {{
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i8
    %h = "gpu_alloc.alloc"() <{{name = "h"}}> : () -> memref<{QUARTER}xi8, SPACE>
    %g = "gpu_alloc.alloc"() <{{name = "g"}}> : () -> memref<{QUARTER}xi8, SPACE>
    memref.store %one, %h[%c0] : memref<{QUARTER}xi8, SPACE>
    memref.store %one, %g[%c0] : memref<{QUARTER}xi8, SPACE>
    gpu.return
  }}
}}
"""


def test_pack_refuses_items_that_add_up_past_its_64_bit_sums():
    assert MAX_TOTAL_BYTES == 2**62
    with pytest.raises(PackingError, match="add up to 9223372036854775810, more than 2"):
        pack([PackItem(0, 1, QUARTER), PackItem(0, 1, QUARTER)])
    # at the limit (sizes plus alignments: 2^62), it packs; live at different times, the
    # two share offset 0
    eighth = 2**61 - 1
    packing = pack([PackItem(0, 1, eighth), PackItem(1, 2, eighth)])
    assert tuple(packing.offsets) == (0, 0) and packing.peak == eighth


@pytest.mark.parametrize(("space", "word"), [("1 : i32", "heap"), ("3 : i32", "shared")])
def test_fuse_refuses_allocations_that_add_up_past_the_packer(tmp_path: Path, space, word):
    path = tmp_path / "k.mlir"
    path.write_text(TWO_QUARTERS.replace("SPACE", space))
    for passes in ("fuse-gpu-allocs", "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs"):
        outcome = run_tool("opt", [str(path), "-p", passes])
        assert_one_located_error(
            outcome,
            f"{path}:5:5: error: ",
            f"the {word} allocations of this kernel cannot be laid out in one backing: the "
            f"buffers' sizes add up to {2 * (QUARTER + ALIGNMENT)}, more than 2^62 bytes; largest: 'h'",
        )


def test_lower_refuses_heap_slices_past_what_an_index_holds(tmp_path: Path):
    """`lower-gpu-allocs` alone on one heap allocation of 2^63 - 1 bytes: the block's slice is
    rounded up to 16 bytes, 2^63, one past what an index holds. It wrote
    `heap_bytes_per_block = -9223372036854775808` and a constant mlir-opt-22 refuses; now it
    is one located error and the module is left as it was. 2^63 - 16 bytes still lowers."""
    path = tmp_path / "k.mlir"
    largest = 2**63 - 1
    path.write_text(
        TWO_QUARTERS.replace(
            f'%g = "gpu_alloc.alloc"() <{{name = "g"}}> : () -> memref<{QUARTER}xi8, SPACE>\n', ""
        )
        .replace(f"memref.store %one, %g[%c0] : memref<{QUARTER}xi8, SPACE>\n", "")
        .replace(str(QUARTER), str(largest))
        .replace("SPACE", "1 : i32")
    )
    outcome = run_tool("opt", [str(path), "-p", "lower-gpu-allocs"])
    assert_one_located_error(
        outcome,
        f"{path}:5:5: error: ",
        f"the heap memory of kernel 'k' ('h') takes {2**63} bytes per block once its slices "
        "are aligned: more than 2^63 - 1, what an index holds",
    )
    path.write_text(path.read_text().replace(str(largest), str(2**63 - 16)))
    outcome = run_tool("opt", [str(path), "-p", "lower-gpu-allocs"])
    assert outcome.code == 0 and f"gpu_alloc.heap_bytes_per_block = {2**63 - 16}" in outcome.out
