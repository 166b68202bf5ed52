"""`gpu-alloc-pack`: pack a MiniMalloc-format CSV with the packer `fuse-gpu-allocs` uses.

    gpu-alloc-pack FILE.csv [--budget UNITS] [--time-limit SECONDS] [--capacity BYTES]
                            [--output OUT.csv] [--svg OUT.svg] [--quiet]

The input has a header naming at least `id,lower,upper,size` (optional `alignment` and `offset`
columns: a non-empty `offset` pins the buffer there; other columns are ignored; either line
ending); each row is a buffer live during the half-open interval [lower, upper). The solution is
validated before anything is printed; the last line on stdout is

    peak=<bytes> lower_bound=<bytes> ratio=<peak / lower_bound> time=<seconds> work=<units>

followed by ` stopped_by=time-limit` when the wall-clock cap cut the search short, or
` stopped_by=interrupt` after Ctrl-C (the first one stops the search and keeps the best packing
so far; a second one ends the tool). Without `--time-limit` the packer stops on work units only
(`--budget`; by default `packing.DEFAULT_BUDGET`, `DEFAULT_FLAT_BUDGET` and
`DEFAULT_GREEDY_BUDGET`), so the same input gives the same output on any machine under any load;
`--time-limit` alone lifts the default budgets and lets the packer run for up to that many
seconds. `--capacity` asks only for a packing within that many bytes (or a proof that there is
none) instead of the smallest one. `--output` writes the input rows with an `offset` column added
(the best packing found, whatever stopped the search); `--svg` draws it with
`gpu-alloc-layout`'s renderer (`tools/layout_svg.py`). Progress goes to stderr once a search runs for a second (`--quiet`: none).
Bad input is reported as one line on stderr with exit status 1. `solve` is the same run as a
function (the CSV's rows, their `PackItem`s and the validated `Packing`), for tools that draw it.
"""

from __future__ import annotations

import argparse
import csv
import io
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from gpu_alloc.errors import one_line_usage_errors, run_tool
from gpu_alloc.packing import (
    DEFAULT_BUDGET,
    DEFAULT_FLAT_BUDGET,
    DEFAULT_GREEDY_BUDGET,
    MAX_TOTAL_BYTES,
    Meter,
    Packing,
    PackingError,
    PackItem,
    check_total,
    pack,
    validate,
)
from gpu_alloc.packing.flat import ready_search_loop
from gpu_alloc.packing.search import FLAT_MIN_ITEMS
from gpu_alloc.tools.files import read_input, write_output
from gpu_alloc.tools.layout_svg import packing_layout, render_svg
from gpu_alloc.tools.progress import ProgressPrinter
from gpu_alloc.version import add_version_option

REQUIRED_COLUMNS = ("id", "lower", "upper", "size")


class InputError(Exception):
    """A problem with the input file, already worded for the user."""


def read_instance(path: Path) -> tuple[list[str], list[dict[str, str]], list[PackItem]]:
    """The CSV's header, its rows and one `PackItem` per row (either line ending)."""
    text = read_input(path).decode("utf-8")  # file problems: a UserInputError, printed as is
    return parse_instance(path, text)


def parse_instance(path: Path, text: str) -> tuple[list[str], list[dict[str, str]], list[PackItem]]:
    """`read_instance` on the text of `path`."""
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
    try:
        check_total(items)
    except PackingError as error:
        raise InputError(f"{path}: {error}") from None
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

    pinned = None if str(row.get("offset") or "").strip() == "" else integer("offset")
    try:
        return PackItem(
            integer("lower"), integer("upper"), integer("size"), integer("alignment", 1), pinned
        )
    except PackingError as error:
        raise InputError(f"{path}:{line}: buffer {row.get('id')!r}: {error}") from None


def write_solution(
    path: Path,
    header: list[str],
    rows: list[dict[str, str]],
    offsets: Sequence[int],
    line_ending: str = "\n",
) -> None:
    """The input rows with their offsets (replacing an input `offset` column, in place)."""
    columns = header if "offset" in header else [*header, "offset"]
    stream = io.StringIO(newline="")
    writer = csv.DictWriter(stream, columns, extrasaction="ignore", lineterminator=line_ending)
    writer.writeheader()
    for row, offset in zip(rows, offsets, strict=True):
        writer.writerow({**row, "offset": offset})
    write_output(path, stream.getvalue())


def write_picture(
    path: Path, source: Path, rows: list[dict[str, str]], items: list[PackItem], packing: Packing
) -> None:
    """`--svg`: the packing drawn by `gpu-alloc-layout`'s renderer."""
    names = [row.get("id") or str(k) for k, row in enumerate(rows)]
    layout = packing_layout(
        source.name, names, items, packing.offsets, packing.optimal, packing.lower_bound
    )
    write_output(path, render_svg([layout], title=source.name, what="packing"))


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="gpu-alloc-pack",
        description="Assign byte offsets to buffers with lifetimes (MiniMalloc CSV format).",
    )
    parser.add_argument(
        "file",
        type=Path,
        help="CSV with columns id,lower,upper,size[,alignment][,offset] (a given offset pins "
        "the buffer)",
    )
    parser.add_argument(
        "--budget",
        type=int,
        metavar="UNITS",
        help=f"work units (search nodes) spent improving on the first greedy packing (default "
        f"{DEFAULT_BUDGET} on components of up to 64 buffers, {DEFAULT_FLAT_BUDGET} on larger "
        f"ones and {DEFAULT_GREEDY_BUDGET} for the quadratic greedy passes on components too "
        "large to search; unlimited with --time-limit); reproducible on any machine",
    )
    parser.add_argument(
        "--time-limit",
        type=float,
        metavar="SECONDS",
        help="wall-clock cap on the search (default none); the result then depends on the "
        "machine's speed and load, and the last line says stopped_by=time-limit when it fired",
    )
    parser.add_argument(
        "--capacity",
        type=int,
        metavar="BYTES",
        help="feasibility mode: stop at the first packing within BYTES, or prove there is none "
        "(default: minimise the peak)",
    )
    parser.add_argument("--output", type=Path, help="write the input with an offset column here")
    parser.add_argument(
        "--svg",
        type=Path,
        metavar="OUT.svg",
        help="draw the packing (x = time, y = offset), as gpu-alloc-layout draws a kernel",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress lines on stderr during long searches"
    )
    add_version_option(parser, "gpu-alloc-pack")
    args = one_line_usage_errors(parser).parse_args(argv)
    if args.time_limit is not None and not args.time_limit >= 0:
        parser.error("--time-limit must be a non-negative number of seconds")
    if args.budget is not None and args.budget < 0:
        parser.error("--budget must be a non-negative number of work units")
    if args.capacity is not None and not 0 <= args.capacity <= MAX_TOTAL_BYTES:
        parser.error("--capacity must be a number of bytes between 0 and 2^62")
    return args


@dataclass(frozen=True)
class Solution:
    """One run of the tool: the CSV's header and rows, their `PackItem`s and the validated
    packing (what `--output` writes, and what a picture of the layout draws)."""

    header: list[str]
    rows: list[dict[str, str]]
    items: list[PackItem]
    packing: Packing
    seconds: float
    line_ending: str
    """The input's ("\r\n" or "\n"): the output keeps it."""


def solve(args: argparse.Namespace, meter: Meter | None = None) -> Solution:
    """Read `args.file` and pack it with `args`' limits; raises `InputError` (worded for the
    user) on bad input and `gpu_alloc.errors.UserInputError` on file problems."""
    text = read_input(args.file).decode("utf-8")
    header, rows, items = parse_instance(args.file, text)
    line_ending = "\r\n" if "\r\n" in text else "\n"
    if len(items) >= FLAT_MIN_ITEMS:  # large enough for the exact search's inner loop
        if meter is not None and meter.listener is not None:
            meter.notify("engine")
        ready_search_loop(meter)  # compiled before the clock starts: no search time for numba
        if meter is not None:
            meter.notify("start")
    started = time.perf_counter()
    try:
        packing = pack(items, args.time_limit, args.budget, capacity=args.capacity, meter=meter)
    except PackingError as error:  # pinned buffers that collide
        first, second = error.indices
        raise InputError(
            f"{args.file}:{second + 2}: buffer {rows[second].get('id')!r} pinned at offset "
            f"{items[second].offset} overlaps buffer {rows[first].get('id')!r} (line "
            f"{first + 2}, pinned at {items[first].offset}) while both are live"
        ) from None
    elapsed = time.perf_counter() - started
    try:
        validate(items, packing.offsets)
    except PackingError as error:  # a packer bug: say so, naming the buffers
        names = ", ".join(repr(rows[i].get("id")) for i in error.indices)
        raise InputError(f"internal error: invalid packing ({names}): {error}") from None
    return Solution(header, rows, items, packing, elapsed, line_ending)


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    meter = Meter()
    if not args.quiet:
        meter.listener = ProgressPrinter("gpu-alloc-pack")
    with _interrupt_stops(meter.interrupt):
        run_tool("gpu-alloc-pack", lambda: run(args, meter))


@contextmanager
def _interrupt_stops(stop: Callable[[], None]) -> Iterator[None]:
    """While inside, the first Ctrl-C calls `stop` (the search winds down and the best packing
    so far is kept); the next one interrupts as usual. Only the main thread may set it."""
    try:
        previous = signal.getsignal(signal.SIGINT)

        def first_interrupt(number: int, frame: FrameType | None) -> None:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            stop()

        signal.signal(signal.SIGINT, first_interrupt)
    except ValueError:  # not the main thread: leave Ctrl-C alone
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def run(args: argparse.Namespace, meter: Meter | None = None) -> None:
    try:
        solution = solve(args, meter)
        if args.output is not None:
            write_solution(
                args.output,
                solution.header,
                solution.rows,
                solution.packing.offsets,
                solution.line_ending,
            )
        if args.svg is not None:
            write_picture(args.svg, args.file, solution.rows, solution.items, solution.packing)
    except InputError as error:
        print(f"gpu-alloc-pack: error: {error}", file=sys.stderr)
        sys.exit(1)
    print(summary(solution, args.capacity))


def summary(solution: Solution, capacity: int | None) -> str:
    """The two lines on stdout: the verdict, then the figures."""
    packing = solution.packing
    ratio = packing.peak / packing.lower_bound if packing.lower_bound else 1.0
    if capacity is None:
        verdict = "optimal" if packing.optimal else "not proven optimal"
    elif packing.feasible:
        verdict = f"fits in capacity {capacity}"
    elif packing.feasible is False:
        verdict = f"no packing fits in capacity {capacity} (proven)"
    else:
        verdict = f"no packing within capacity {capacity} found (none proven impossible)"
    stopped = ""
    if packing.interrupted:
        stopped = " stopped_by=interrupt"
    elif packing.time_limit_hit:
        stopped = " stopped_by=time-limit"
    return (
        f"buffers={len(solution.items)} {verdict}\n"
        f"peak={packing.peak} lower_bound={packing.lower_bound} ratio={ratio:.4f} "
        f"time={solution.seconds:.3f} work={packing.work}{stopped}"
    )


if __name__ == "__main__":
    main()
