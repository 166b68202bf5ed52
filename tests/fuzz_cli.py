"""A mutation fuzzer of the three command-line tools: `gpu-alloc-opt` (every pass, and the
PTX target), `gpu-alloc-sim` and `gpu-alloc-pack`.

Seeds are the examples, the simulator's test kernels, the MLIR-form kernels, every lit
input and every file of the third-party corpus `tests/external` (split at `// -----`), and a
few MiniMalloc-format CSVs. `gpu-alloc-opt` runs every pass alone, short pipelines, the
seed's full order (import -> pad -> fuse -> remove-dead-allocs -> partition-loops ->
stripe-lane-allocs -> flatten -> lower) and `-t ptx` on both backends. Each case applies one to three seeded
mutations (delete, duplicate or swap lines, truncate, extreme numbers, flipped types,
renamed values, random bytes, non-ASCII names) and sometimes a bad option, runs the tool
in-process (the PTX target in a child process) and fails when:

* the output (stdout or stderr) says "internal error" or holds a Python traceback;
* the exit code is not 0 or 1 (`gpu-alloc-sim`: also 3, 4 or 5);
* `gpu-alloc-opt` succeeded with MLIR output that `gpu-alloc-opt` cannot read back.

Everything is a function of `--seed` and `--cases` (no time limits), so a failure is
reproduced by its case number:

    python tests/fuzz_cli.py --cases 2000 [--seed 0] [--show-failures]

prints one line per failure and a summary line `fuzz: N cases, F failures`.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc.tools.opt import main as opt_main
from gpu_alloc.tools.pack import main as pack_main
from gpu_alloc.tools.sim_cli import main as sim_main

REPO = Path(__file__).resolve().parent.parent

PASS_LISTS = (
    "fuse-gpu-allocs",
    "flatten-aliases",
    "remove-dead-allocs",
    "partition-loops",
    "stripe-lane-allocs",
    "lower-gpu-allocs",
    "fuse-gpu-allocs,flatten-aliases",
    "fuse-gpu-allocs,remove-dead-allocs,partition-loops,flatten-aliases",
    "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs",
    "import-gpu-allocs",
    "pad-shared-allocs",
    "import-gpu-allocs,fuse-gpu-allocs{insert-barriers=always},remove-dead-allocs",
    SEED_ORDER := (
        "import-gpu-allocs,pad-shared-allocs,fuse-gpu-allocs,remove-dead-allocs,"
        "partition-loops,stripe-lane-allocs,flatten-aliases,lower-gpu-allocs"
    ),
)
PTX_PIPELINE = "fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs"
PTX_RUNS = (
    ("-p", PTX_PIPELINE, "-t", "ptx"),
    ("-p", SEED_ORDER, "-t", "ptx"),
    ("-p", SEED_ORDER, "-t", "ptx{backend=mlir}"),
)
"""Both PTX backends, after the short pipeline and the seed's full order."""

BAD_OPT_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("-p", "fuse-gpu-allocs{time-limit=2}"),
    ("-p", "fuse-gpu-allocs{report=maybe}"),
    ("-p", "fuse-gpu-allocs{report=true}"),
    ("-p", "fuse-gpu-allocs{alignment=0}"),
    ("-p", "fuse-gpu-allocs{alignment=99999999999999999999}"),
    ("-p", "fuse-gpu-allocs{max-shared-bytes=-1}"),
    ("-p", "fuse-gpu-allocs{time-limit=-1.0}"),
    ("-p", "fuse-gpu-allocs{nope=1}"),
    ("-p", "stripe-lane-allocs{warp_size=0}"),
    ("-p", "no-such-pass"),
    ("-p", "fuse-gpu-allocs{"),
    ("-p", "fuse-gpu-allocs,,flatten-aliases"),
    ("-t", "nope"),
    ("-t", "ptx{backend=nope}"),
    ("-t", "ptx{chip=sm_1 ptx_version=1}"),
    ("-o", "/nonexistent-directory/out.mlir"),
    ("--split-input-file",),
    ("--verify-each", "-p", "fuse-gpu-allocs,flatten-aliases"),
    ("--print-op-generic",),
)
BAD_SIM_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("--grid", "0"),
    ("--grid", "x"),
    ("--block", "1,1,1,1"),
    ("--block", "2048"),
    ("--seed", "-1"),
    ("--seed", "99999999999999999999999"),
    ("--scalars", "1e400"),
    ("--scalars", "nan,nan,nan"),
    ("--scalars", "3000000000,3000000000"),
    ("--kernel", "nope"),
    ("--out", "/proc/nope"),
    ("--max-steps", "-5"),
)
BAD_PACK_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("--time-limit", "-1"),
    ("--time-limit", "nan"),
    ("--time-limit", "x"),
    ("--output", "/nonexistent-directory/out.csv"),
    ("--nope",),
)

SEED_CSVS = (
    "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n",
    "id,lower,upper,size,alignment\n0,0,2,10,8\n1,1,3,20,16\n2,2,5,7,1\n3,0,5,1,4\n",
    "lower,upper,size,id,extra\n0,10,100,a,x\n5,15,50,b,y\n10,20,25,c,z\n",
)

EXTREMES = (
    "0",
    "-1",
    "1",
    "255",
    "2147483648",
    "4294967296",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551616",
    "99999999999999999999",
    "1.5",
    "1e308",
    "-0",
)
TYPES = ("i1", "i8", "i16", "i32", "i64", "index", "f16", "f32", "f64", "i7", "bf16")
NUMBER = re.compile(r"(?<![%\w#^@])-?\d+(\.\d+)?")
TYPE = re.compile(r"\b(i1|i8|i16|i32|i64|index|f16|f32|f64)\b")
VALUE = re.compile(r"%[\w$.-]+")
SPACE = re.compile(r"\b([135]) : i32>")
STEP_LIMIT = "200000"
UNREADABLE_YET = ("gpu.dynamic_shared_memory",)
"""Ops whose printed form this xDSL cannot read back yet (MLIR's gpu syntax support lands
separately); outputs holding them skip the read-back check."""


@dataclass(frozen=True)
class Case:
    number: int
    tool: str
    seed_name: str
    mutations: tuple[str, ...]
    text: str
    options: tuple[str, ...]

    def describe(self) -> str:
        return (
            f"case {self.number}: {self.tool} {' '.join(self.options)} on {self.seed_name} "
            f"mutated by {', '.join(self.mutations) or 'nothing'}"
        )


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str


# ---- seeds ------------------------------------------------------------------------------


def mlir_seeds() -> list[tuple[str, str]]:
    """(name, text) of every MLIR seed, split at `// -----`, in a fixed order."""
    paths = sorted(
        [
            *(REPO / "examples").glob("*.mlir"),
            *(REPO / "tests" / "sim_kernels").glob("*.mlir"),
            *(REPO / "tests" / "filecheck").rglob("*.mlir"),
            *(REPO / "tests" / "mlir_kernels").glob("*.mlir"),
            *(REPO / "tests" / "external").rglob("*.mlir"),
        ]
    )
    seeds: list[tuple[str, str]] = []
    for path in paths:
        chunks = path.read_text().split("// -----")
        for i, chunk in enumerate(chunks):
            if "builtin.module" in chunk or "gpu.module" in chunk or "func.func" in chunk:
                seeds.append((f"{path.relative_to(REPO)}#{i}", chunk))
    return seeds


def _scalar_count(text: str) -> int:
    """How many scalar arguments the (first) kernel of `text` takes."""
    match = re.search(r"function_type = \(([^)]*)\) ->", text)
    if not match or not match.group(1).strip():
        return 0
    depth, parts, current = 0, [], ""
    for char in match.group(1):
        depth += char in "<(["
        depth -= char in ">)]"
        if char == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += char
    parts.append(current)
    return sum(1 for part in parts if "memref" not in part)


# ---- mutations --------------------------------------------------------------------------


def _lines(text: str) -> list[str]:
    return text.split("\n")


def delete_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    del lines[rng.randrange(len(lines))]
    return "\n".join(lines)


def duplicate_line(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i = rng.randrange(len(lines))
    lines.insert(i, lines[i])
    return "\n".join(lines)


def swap_lines(rng: random.Random, text: str) -> str:
    lines = _lines(text)
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines)


def truncate(rng: random.Random, text: str) -> str:
    return text[: rng.randrange(len(text) + 1)]


def _replace_one(rng: random.Random, text: str, pattern: re.Pattern[str], new: str) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + new + text[m.end() :]


def extreme_number(rng: random.Random, text: str) -> str:
    return _replace_one(rng, text, NUMBER, rng.choice(EXTREMES))


def flip_type(rng: random.Random, text: str) -> str:
    return _replace_one(rng, text, TYPE, rng.choice(TYPES))


def rename_value(rng: random.Random, text: str) -> str:
    names = sorted(set(VALUE.findall(text)))
    if not names:
        return text
    return _replace_one(rng, text, VALUE, rng.choice(names))


def change_space(rng: random.Random, text: str) -> str:
    return _replace_one(rng, text, SPACE, f"{rng.choice('0123456')} : i32>")


def random_bytes(rng: random.Random, text: str) -> str:
    i = rng.randrange(len(text) + 1)
    junk = "".join(
        chr(rng.choice([*range(0, 32), *range(32, 127), 0xE9, 0x2028, 0xD800])) for _ in range(3)
    )
    return text[:i] + junk + text[i:]


def unicode_name(rng: random.Random, text: str) -> str:
    return _replace_one(
        rng, text, re.compile(r'"\w+"'), rng.choice(['"é"', '"名"', '"a\\"b"', '""'])
    )


MLIR_MUTATIONS: dict[str, Callable[[random.Random, str], str]] = {
    "delete_line": delete_line,
    "duplicate_line": duplicate_line,
    "swap_lines": swap_lines,
    "truncate": truncate,
    "extreme_number": extreme_number,
    "flip_type": flip_type,
    "rename_value": rename_value,
    "change_space": change_space,
    "random_bytes": random_bytes,
    "unicode_name": unicode_name,
}
CSV_MUTATIONS = {
    name: MLIR_MUTATIONS[name]
    for name in (
        "delete_line",
        "duplicate_line",
        "swap_lines",
        "truncate",
        "extreme_number",
        "random_bytes",
    )
}


# ---- cases ------------------------------------------------------------------------------


def make_case(number: int, seed: int, mlir: list[tuple[str, str]]) -> Case:
    rng = random.Random(f"{seed}:{number}")
    tool = rng.choice(("opt", "opt", "opt", "sim", "sim", "pack"))
    if tool == "pack":
        seed_index = rng.randrange(len(SEED_CSVS))
        name, text, mutations = f"csv#{seed_index}", SEED_CSVS[seed_index], CSV_MUTATIONS
    else:
        name, text = mlir[rng.randrange(len(mlir))]
        mutations = MLIR_MUTATIONS
    applied: list[str] = []
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        mutation = rng.choice(sorted(mutations))
        text = mutations[mutation](rng, text)
        applied.append(mutation)
    bad = rng.random() < 0.2
    if tool == "opt":
        if bad:
            options = rng.choice(BAD_OPT_OPTIONS)
        elif rng.random() < 0.15:
            options = rng.choice(PTX_RUNS)
        else:
            options = ("-p", rng.choice(PASS_LISTS))
    elif tool == "sim":
        scalars = ",".join("4" for _ in range(_scalar_count(text)))
        options = ("--grid", "2", "--block", "32", "--max-steps", STEP_LIMIT)
        options += ("--scalars", scalars) if scalars else ()
        if bad:
            options += rng.choice(BAD_SIM_OPTIONS)
    else:
        options = ("--time-limit", "0")
        if bad:
            options += rng.choice(BAD_PACK_OPTIONS)
    return Case(number, tool, name, tuple(applied), text, options)


MAINS: dict[str, Callable[[Sequence[str] | None], None]] = {
    "opt": opt_main,
    "sim": sim_main,
    "pack": pack_main,
}
ALLOWED_CODES = {"opt": {0, 1}, "sim": {0, 1, 3, 4, 5}, "pack": {0, 1}}


def run_tool(tool: str, args: Sequence[str]) -> Outcome:
    """Runs one tool's `main` in this process, capturing its output and exit code."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            MAINS[tool](list(args))
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else (0 if exit.code is None else 1)
    return Outcome(code, out.getvalue(), err.getvalue())


def run_in_subprocess(tool: str, args: Sequence[str]) -> Outcome:
    """Runs one tool in a child process: for the PTX target, where a crash in LLVM aborts
    the process (and must count as a failure, not end the fuzzer)."""
    module = {
        "opt": "gpu_alloc.tools.opt",
        "sim": "gpu_alloc.tools.sim_cli",
        "pack": "gpu_alloc.tools.pack",
    }
    result = subprocess.run(
        [sys.executable, "-m", module[tool], *args], capture_output=True, text=True, check=False
    )
    code = result.returncode if result.returncode >= 0 else 128 - result.returncode
    return Outcome(code, result.stdout, result.stderr)


def check_case(
    case: Case, directory: Path, codes: dict[tuple[str, int], int] | None = None
) -> str | None:
    """Runs one case (counting its tool and exit code in `codes`); why it fails, or None."""
    suffix = ".csv" if case.tool == "pack" else ".mlir"
    path = directory / f"case{case.number}{suffix}"
    path.write_bytes(case.text.encode("utf-8", errors="surrogatepass"))
    runner = run_in_subprocess if "-t" in case.options else run_tool
    outcome = runner(case.tool, [str(path), *case.options])
    if codes is not None:
        codes[(case.tool, outcome.code)] = codes.get((case.tool, outcome.code), 0) + 1
    problem = _problem(case.tool, outcome)
    if problem is None and case.tool == "opt" and outcome.code == 0 and "-t" not in case.options:
        if not {"-o", "--split-input-file"} & set(case.options) and not any(
            name in outcome.out for name in UNREADABLE_YET
        ):
            printed = directory / f"case{case.number}.out.mlir"
            printed.write_text(outcome.out)
            again = run_tool("opt", [str(printed)])
            if again.code != 0:
                first = again.err.strip().splitlines()[:1]
                return f"its output does not read back: {first}"
    return problem


def _problem(tool: str, outcome: Outcome) -> str | None:
    both = outcome.out + outcome.err
    for marker in ("internal error", "Traceback"):
        if marker in both:
            lines = [line for line in outcome.err.splitlines() if line.strip()]
            return f"{marker} (exit {outcome.code}): {lines[-1] if lines else both[-200:]}"
    if outcome.code not in ALLOWED_CODES[tool]:
        return f"exit code {outcome.code}: {outcome.err.strip()[:200]}"
    return None


def fuzz(
    cases: int, seed: int = 0, first: int = 0
) -> tuple[dict[tuple[str, int], int], list[tuple[Case, str]]]:
    """Runs cases [first, first + cases); returns the count of each (tool, exit code) and
    the failures."""
    mlir = mlir_seeds()
    failures: list[tuple[Case, str]] = []
    codes: dict[tuple[str, int], int] = {}
    with tempfile.TemporaryDirectory(prefix="gpu-alloc-fuzz-") as name:
        for number in range(first, first + cases):
            case = make_case(number, seed, mlir)
            problem = check_case(case, Path(name), codes)
            if problem is not None:
                failures.append((case, problem))
    return codes, failures


def summary(cases: int, seed: int, codes: dict[tuple[str, int], int], failures: int) -> str:
    by_tool = ", ".join(
        f"{tool} "
        + " ".join(f"exit{code}={n}" for (t, code), n in sorted(codes.items()) if t == tool)
        for tool in MAINS
    )
    return f"fuzz: {cases} cases (seed {seed}; {by_tool}), {failures} failures"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="number of the first case")
    parser.add_argument("--show-failures", action="store_true", help="print each failing input")
    args = parser.parse_args(argv)
    codes, failures = fuzz(args.cases, args.seed, args.first)
    for case, problem in failures:
        print(f"FAIL {case.describe()}: {problem}")
        if args.show_failures:
            print(case.text)
    print(summary(args.cases, args.seed, codes, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
