"""Simulator throughput: a 4-block x 256-thread, 6-stage stencil chain.

    python bench/sim_bench.py [--repeat N] [--blocks-x X --blocks-y Y]

Builds a chain of six shared Funcs f1 (16x16) .. f6 (11x11), i32, each read by the next
at (y, x) and (y+1, x+1), then out = f6(y, x) + f6(y+1, x+1) (10x10 per block),
runs it over 2x2 blocks of 16x16 threads with race detection on, checks the result
against numpy, and prints the wall time and thread-steps per second (a thread-step is
one op executed by one active thread). The issue's bar: under 10 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from gpu_alloc.sim.launch import simulate
from gpu_alloc.tools.sim_loading import parse_module

TILE = 16
STAGES = 6
OUT_TILE = TILE - STAGES


def stencil_chain(blocks_x: int, blocks_y: int) -> str:
    size_in_y = blocks_y * OUT_TILE + STAGES
    size_in_x = blocks_x * OUT_TILE + STAGES
    out_y, out_x = blocks_y * OUT_TILE, blocks_x * OUT_TILE
    in_type = f"memref<{size_in_y}x{size_in_x}xi32>"
    out_type = f"memref<{out_y}x{out_x}xi32>"
    lines = [
        "builtin.module {",
        '  "gpu.module"() <{sym_name = "bench"}> ({',
        f'    "gpu.func"() <{{function_type = ({in_type}, {out_type}) -> (), kernel}}> ({{',
        f"    ^bb0(%in: {in_type}, %out: {out_type}):",
        "      %c1 = arith.constant 1 : index",
        f"      %tile = arith.constant {OUT_TILE} : index",
        '      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        '      %ty = "gpu.thread_id"() <{dimension = #gpu<dim y>}> : () -> index',
        '      %bx = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index',
        '      %by = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index',
        "      %x0 = arith.muli %bx, %tile : index",
        "      %y0 = arith.muli %by, %tile : index",
        "      %gx = arith.addi %x0, %tx : index",
        "      %gy = arith.addi %y0, %ty : index",
        "      %tx1 = arith.addi %tx, %c1 : index",
        "      %ty1 = arith.addi %ty, %c1 : index",
    ]
    for k in range(1, STAGES + 1):
        n = TILE + 1 - k
        lines.append(
            f'      %f{k} = "gpu_alloc.alloc"() <{{name = "f{k}"}}> : () -> memref<{n}x{n}xi32, 3 : i32>'
        )
    for k in range(1, STAGES + 2):
        n = TILE + 1 - k  # the extent written in this stage (out: OUT_TILE)
        lines += [
            f"      %n{k} = arith.constant {n} : index",
            f"      %inx{k} = arith.cmpi ult, %tx, %n{k} : index",
            f"      %iny{k} = arith.cmpi ult, %ty, %n{k} : index",
            f"      %in{k} = arith.andi %inx{k}, %iny{k} : i1",
            f"      scf.if %in{k} {{",
        ]
        if k == 1:
            lines += [
                f"        %v = memref.load %in[%gy, %gx] : {in_type}",
                f"        memref.store %v, %f1[%ty, %tx] : memref<{n}x{n}xi32, 3 : i32>",
            ]
        else:
            src = f"memref<{n + 1}x{n + 1}xi32, 3 : i32>"
            lines += [
                f"        %a = memref.load %f{k - 1}[%ty, %tx] : {src}",
                f"        %b = memref.load %f{k - 1}[%ty1, %tx1] : {src}",
                "        %s = arith.addi %a, %b : i32",
            ]
            if k <= STAGES:
                lines.append(
                    f"        memref.store %s, %f{k}[%ty, %tx] : memref<{n}x{n}xi32, 3 : i32>"
                )
            else:
                lines.append(f"        memref.store %s, %out[%gy, %gx] : {out_type}")
        lines.append("      }")
        if k <= STAGES:
            lines.append('      "gpu.barrier"() : () -> ()')
    lines += [
        '      "gpu.return"() : () -> ()',
        '    }) {sym_name = "stencil6"} : () -> ()',
        "  }) : () -> ()",
        "}",
    ]
    return "\n".join(lines) + "\n"


def reference(image: np.ndarray, blocks_x: int, blocks_y: int) -> np.ndarray:
    out = np.zeros((blocks_y * OUT_TILE, blocks_x * OUT_TILE), np.int32)
    for by in range(blocks_y):
        for bx in range(blocks_x):
            f = image[by * OUT_TILE : by * OUT_TILE + TILE, bx * OUT_TILE : bx * OUT_TILE + TILE]
            for _ in range(STAGES):
                f = f[:-1, :-1] + f[1:, 1:]
            out[by * OUT_TILE : (by + 1) * OUT_TILE, bx * OUT_TILE : (bx + 1) * OUT_TILE] = f
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Simulator throughput on a stencil chain.")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--blocks-x", type=int, default=2)
    parser.add_argument("--blocks-y", type=int, default=2)
    options = parser.parse_args()
    module = parse_module(stencil_chain(options.blocks_x, options.blocks_y), "stencil6.mlir")
    grid = (options.blocks_x, options.blocks_y)
    times: list[float] = []
    result = None
    for _ in range(options.repeat):
        start = time.perf_counter()
        result = simulate(module, grid=grid, block=(TILE, TILE))
        times.append(time.perf_counter() - start)
    assert result is not None
    arrays = {a.name: a.array for a in result.arguments}
    correct = np.array_equal(arrays["out"], reference(arrays["in"], *grid))
    best = min(times)
    blocks = options.blocks_x * options.blocks_y
    print(
        f"stencil chain: {STAGES} stages, {blocks} blocks x {TILE * TILE} threads, race checking on"
    )
    print(f"  result matches numpy: {correct}; races: {len(result.races)}")
    print(f"  thread-steps: {result.thread_steps}")
    print(
        f"  best of {options.repeat}: {best:.3f} s  ({result.thread_steps / best:,.0f} thread-steps/s)"
    )
    if not correct or result.races:
        raise SystemExit(1)


if __name__ == "__main__":
    from gpu_alloc import xdsl_fixes

    xdsl_fixes.apply()  # a program of this project: reads what its tools read
    main()
