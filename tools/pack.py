"""`gpu-alloc-pack`: pack a MiniMalloc-format CSV with the packer `fuse-gpu-allocs` uses.

    gpu-alloc-pack FILE.csv [--budget UNITS] [--time-limit SECONDS] [--output OUT.csv]
                   [--svg OUT.svg]

The input has a header naming at least `id,lower,upper,size` (an optional `alignment` column;
other columns are ignored); each row is a buffer live during the half-open interval
[lower, upper). The solution is validated before anything is printed; the last line on stdout is

    peak=<bytes> lower_bound=<bytes> ratio=<peak / lower_bound> time=<seconds> work=<units>

followed by ` stopped_by=time-limit` when the wall-clock cap cut the search short. Without
`--time-limit` the packer stops on work units only (`--budget`; by default
`packing.DEFAULT_BUDGET` and `packing.DEFAULT_GREEDY_BUDGET`), so the same input gives the
same output on any machine under any load; `--time-limit` alone lifts the default budgets and
lets the packer run for up to that many seconds.
`--output` writes the input rows with an `offset` column added; `--svg` draws the packing with
`gpu-alloc-layout`'s renderer (`tools/layout_svg.py`). Bad input is reported as one
line on stderr with exit status 1.
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from gpu_alloc.errors import one_line_usage_errors, run_tool
from gpu_alloc.tools.files import read_input, write_output
from gpu_alloc.tools.layout_svg import packing_layout, render_svg
from gpu_alloc.transforms.packing import (
    DEFAULT_BUDGET,
    DEFAULT_GREEDY_BUDGET,
    Packing,
    PackingError,
    PackItem,
    pack,
    validate,
)
from gpu_alloc.version import add_version_option

REQUIRED_COLUMNS = ("id", "lower", "upper", "size")


class InputError(Exception):
    """A problem with the input file, already worded for the user."""


MAX_TOTAL_BYTES = 2**62
"""Sizes, alignments and lifetimes above this would overflow the packer's 64-bit sums."""


def read_instance(path: Path) -> tuple[list[str], list[dict[str, str]], list[PackItem]]:
    """The CSV's header, its rows and one `PackItem` per row."""
    text = read_input(path).decode("utf-8")  # file problems: a UserInputError, printed as is
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = list(reader.fieldnames or [])
        missing = [column for column in REQUIRED_COLUMNS if column not in header]
        if missing:
            raise InputError(f"{path}: missing column(s) {', '.join(missing)} in the header")
        rows = list(reader)
    except csv.Error as error:
        raise InputError(f"{path}: not a CSV file: {error}") from None
    items = [_item(path, line, row) for line, row in enumerate(rows, start=2)]
    total = sum(item.size + item.alignment for item in items)
    if total > MAX_TOTAL_BYTES:
        raise InputError(f"{path}: the buffers' sizes add up to {total}, more than 2^62 bytes")
    return header, rows, items


def _item(path: Path, line: int, row: dict[str, str]) -> PackItem:
    def integer(column: str, default: int | None = None) -> int:
        text = row.get(column)
        if (text is None or text.strip() == "") and default is not None:
            return default
        try:
            value = int(str(text).strip())
        except ValueError:
            raise InputError(
                f"{path}:{line}: column '{column}' is {text!r}, not an integer"
            ) from None
        if abs(value) > MAX_TOTAL_BYTES:
            raise InputError(f"{path}:{line}: column '{column}' is {value}, above 2^62")
        return value

    try:
        return PackItem(
            integer("lower"), integer("upper"), integer("size"), integer("alignment", 1)
        )
    except PackingError as error:
        raise InputError(f"{path}:{line}: buffer {row.get('id')!r}: {error}") from None


def write_solution(
    path: Path, header: list[str], rows: list[dict[str, str]], offsets: Sequence[int]
) -> None:
    columns = [column for column in header if column != "offset"] + ["offset"]
    stream = io.StringIO(newline="")
    writer = csv.DictWriter(stream, columns, extrasaction="ignore")
    writer.writeheader()
    for row, offset in zip(rows, offsets, strict=True):
        writer.writerow({**row, "offset": offset})
    write_output(path, stream.getvalue())


def write_picture(
    path: Path, source: Path, rows: list[dict[str, str]], items: list[PackItem], packing: Packing
) -> None:
    """`--svg`: the packing drawn by `gpu-alloc-layout`'s renderer."""
    names = [row.get("id") or str(k) for k, row in enumerate(rows)]
    layout = packing_layout(source.name, names, items, packing.offsets, packing.optimal)
    write_output(path, render_svg([layout], title=source.name, what="packing"))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-pack",
        description="Assign byte offsets to buffers with lifetimes (MiniMalloc CSV format).",
    )
    parser.add_argument("file", type=Path, help="CSV with columns id,lower,upper,size[,alignment]")
    parser.add_argument(
        "--budget",
        type=int,
        metavar="UNITS",
        help=f"work units (search nodes) spent improving on the first greedy packing (default "
        f"{DEFAULT_BUDGET} for the search plus {DEFAULT_GREEDY_BUDGET} for the quadratic greedy "
        "passes on components too large to search; unlimited with --time-limit); reproducible "
        "on any machine",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="wall-clock cap on the search (default none); the result then depends on the "
        "machine's speed and load, and the last line says stopped_by=time-limit when it fired",
    )
    parser.add_argument("--output", type=Path, help="write the input with an offset column here")
    parser.add_argument(
        "--svg",
        type=Path,
        metavar="OUT.svg",
        help="draw the packing (x = time, y = offset), as gpu-alloc-layout draws a kernel",
    )
    add_version_option(parser, "gpu-alloc-pack")
    args = one_line_usage_errors(parser).parse_args(argv)
    if args.time_limit is not None and not args.time_limit >= 0:
        parser.error("--time-limit must be a non-negative number of seconds")
    if args.budget is not None and args.budget < 0:
        parser.error("--budget must be a non-negative number of work units")
    return args


def main(argv: Sequence[str] | None = None) -> None:
    run_tool("gpu-alloc-pack", lambda: run(parse_args(argv)))


def run(args: argparse.Namespace) -> None:
    try:
        header, rows, items = read_instance(args.file)
        started = time.perf_counter()
        packing = pack(items, args.time_limit, args.budget)
        elapsed = time.perf_counter() - started
        try:
            validate(items, packing.offsets)
        except PackingError as error:  # a packer bug: say so, naming the buffers
            names = ", ".join(repr(rows[i].get("id")) for i in error.indices)
            raise InputError(f"internal error: invalid packing ({names}): {error}") from None
        if args.output is not None:
            write_solution(args.output, header, rows, packing.offsets)
        if args.svg is not None:
            write_picture(args.svg, args.file, rows, items, packing)
    except InputError as error:
        print(f"gpu-alloc-pack: error: {error}", file=sys.stderr)
        sys.exit(1)
    ratio = packing.peak / packing.lower_bound if packing.lower_bound else 1.0
    proof = "optimal" if packing.optimal else "not proven optimal"
    print(f"buffers={len(items)} {proof}")
    print(
        f"peak={packing.peak} lower_bound={packing.lower_bound} ratio={ratio:.4f} "
        f"time={elapsed:.3f} work={packing.work}"
        + (" stopped_by=time-limit" if packing.time_limit_hit else "")
    )


if __name__ == "__main__":
    main()
