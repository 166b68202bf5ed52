"""Runs real GPU kernels (tests/external, see SOURCES.md) through the MLIR pipeline.

Each test file is split at `// -----` like `--split-input-file`; every chunk is parsed
with MLIR's syntax (unregistered ops allowed, as MLIR's own tests are run), then
`import-gpu-allocs,fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs` runs on it. A chunk
either goes through (its output is then read back by this project's parser and by
`mlir-opt-22`) or is refused with a one-line diagnostic.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.tools.diagnostics import parse_with_locations
from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline
from xdsl.printer import Printer
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

CORPUS = Path(__file__).parent / "external"
PIPELINE = (
    ImportGpuAllocsPass(),
    FuseGpuAllocsPass(),
    FlattenAliasesPass(),
    LowerGpuAllocsPass(),
)
SPLIT = re.compile(r"^// -----.*$", re.MULTILINE)


@dataclass
class ChunkResult:
    file: str
    index: int
    output: str | None
    """The lowered module, or None when the chunk was refused."""
    error: str | None
    """The one-line reason a refused chunk was refused."""
    imported: ModuleOp | None = None
    """The module after import-gpu-allocs only (for the simulator)."""


def context() -> Context:
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    return ctx


def parse(text: str) -> ModuleOp:
    module, _ = parse_with_locations(context(), text.encode(), "<corpus>")
    module.verify()
    return module


def print_module(module: ModuleOp) -> str:
    import io

    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue() + "\n"


def run_chunk(file: str, index: int, text: str) -> ChunkResult:
    try:
        module = parse(text)
        PassPipeline(PIPELINE[:1]).apply(context(), module)
        imported = module.clone()
        PassPipeline(PIPELINE[1:]).apply(context(), module)
        module.verify()
    except (ParseError, VerifyException, GpuAllocPassError, DiagnosticException) as error:
        message = error.msg if isinstance(error, ParseError) else str(error)
        return ChunkResult(file, index, None, message.strip().splitlines()[0])
    return ChunkResult(file, index, print_module(module), None, imported)


def corpus_files() -> list[str]:
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.mlir"))


def run_file(file: str) -> list[ChunkResult]:
    chunks = SPLIT.split((CORPUS / file).read_text())
    return [run_chunk(file, i, chunk) for i, chunk in enumerate(chunks)]


def mlir_opt_reads(outputs: list[str]) -> subprocess.CompletedProcess[str]:
    """`mlir-opt-22` parses and verifies every output (one process per file)."""
    return subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "--split-input-file", "-o", "/dev/null"],
        input="// -----\n".join(outputs),
        capture_output=True,
        text=True,
        check=False,
    )
