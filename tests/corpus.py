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

from gpu_alloc.errors import GpuAllocPassError, UserInputError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.tools.diagnostics import parse_with_locations
from gpu_alloc.tools.mlir_bridge import read_module
from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass
from gpu_alloc.transforms.import_gpu_allocs import ImportGpuAllocsPass
from gpu_alloc.universe import register_dialects
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
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
    bridged: bool = False
    """Read through mlir-opt-22 (`tools/mlir_bridge.py`): the embedded parser stops."""
    shared_bytes: tuple[int, int] | None = None
    """Static shared bytes of the chunk's block-level code (all kernels) after
    import-gpu-allocs and after fuse-gpu-allocs; None if any is dynamic."""

    @property
    def outcome(self) -> str:
        """`ok`, `ok:bridge`, or the reason the chunk was refused."""
        if self.output is None:
            return self.error or ""
        return "ok:bridge" if self.bridged else "ok"


def context() -> Context:
    ctx = Context(allow_unregistered=True)
    register_dialects(ctx)
    return ctx


def parse(text: str) -> ModuleOp:
    module, _ = parse_with_locations(context(), text.encode(), "<corpus>")
    module.verify()
    return module


def parse_or_bridge(text: str) -> tuple[ModuleOp, bool]:
    """The chunk parsed by the embedded parser, else read through mlir-opt-22 as
    `gpu-alloc-opt --allow-unregistered-dialect` does; whether the bridge was needed."""
    try:
        return parse(text), False
    except ParseError:
        pass
    try:
        module, _ = read_module(context(), text.encode(), "<corpus>")
    except UserInputError as error:
        raise ParseError(_nowhere(), str(error).split(": error: ", 1)[-1]) from None
    module.verify()
    return module, True


def _nowhere():  # noqa: ANN202
    from xdsl.utils.lexer import Input, Span

    return Span(0, 0, Input("", "<corpus>"))


def print_module(module: ModuleOp) -> str:
    import io

    stream = io.StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue() + "\n"


def shared_bytes(module: ModuleOp) -> int | None:
    """Static bytes of the module's space-3 `gpu_alloc.alloc`s (None if any is dynamic)."""
    from gpu_alloc.dialect import AllocOp
    from gpu_alloc.memref_sizes import static_byte_size
    from xdsl.dialects.builtin import MemRefType

    total = 0
    for op in module.walk():
        if isinstance(op, AllocOp) and op.space == 3:
            assert isinstance(op.memref.type, MemRefType)
            size = static_byte_size(op.memref.type)
            if size is None:
                return None
            total += size
    return total


def run_chunk(file: str, index: int, text: str, bridge: bool = True) -> ChunkResult:
    """The chunk through import, fuse, flatten and lower; with `bridge`, what the
    embedded parser cannot read goes through mlir-opt-22 first."""
    bridged = False
    try:
        if bridge:
            module, bridged = parse_or_bridge(text)
        else:
            module = parse(text)
        PassPipeline(PIPELINE[:1]).apply(context(), module)
        imported = module.clone()
        PassPipeline(PIPELINE[1:2]).apply(context(), module)
        fused = (shared_bytes(imported), shared_bytes(module))
        PassPipeline(PIPELINE[2:]).apply(context(), module)
        module.verify()
    except (ParseError, VerifyException, GpuAllocPassError, DiagnosticException) as error:
        message = error.msg if isinstance(error, ParseError) else str(error)
        return ChunkResult(file, index, None, message.strip().splitlines()[0], bridged=bridged)
    sizes = None if None in fused else (fused[0] or 0, fused[1] or 0)
    return ChunkResult(file, index, print_module(module), None, imported, bridged, sizes)


def corpus_files() -> list[str]:
    return sorted(str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*.mlir"))


def run_file(file: str, bridge: bool = True) -> list[ChunkResult]:
    chunks = SPLIT.split((CORPUS / file).read_text())
    return [run_chunk(file, i, chunk, bridge) for i, chunk in enumerate(chunks)]


def mlir_reads_chunk(text: str) -> bool:
    """Whether `mlir-opt-22 --allow-unregistered-dialect` reads the chunk as found."""
    done = subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "-o", "/dev/null"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0


def mlir_opt_reads(outputs: list[str]) -> subprocess.CompletedProcess[str]:
    """`mlir-opt-22` parses and verifies every output (one process per file)."""
    return subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "--split-input-file", "-o", "/dev/null"],
        input="// -----\n".join(outputs),
        capture_output=True,
        text=True,
        check=False,
    )


# ------------------------------------------------------------------ simulation

SIM_GRID = (2, 1, 1)
SIM_BLOCK = (4, 2, 1)
SIM_DYNAMIC_EXTENT = 16
"""Every dynamic dimension of a kernel's memref argument (the kernels index by thread)."""
SIM_SCALAR = 2
"""The value of every scalar kernel argument."""
SIM_MAX_STEPS = 1_000_000


def outline(text: str) -> ModuleOp:
    """`text` with its `gpu.launch` bodies outlined into kernels by `mlir-opt-22`."""
    done = subprocess.run(
        ["mlir-opt-22", "--allow-unregistered-dialect", "--gpu-kernel-outlining"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return parse_or_bridge(done.stdout)[0]


@dataclass
class SimulationPair:
    """One kernel of a chunk that went through, before and after the pipeline."""

    kernel: str
    """`@module::@kernel` (outlined launches of one function share kernel names)."""
    before: ModuleOp
    """After import-gpu-allocs only (its `gpu_alloc.alloc`s are what the simulator runs)."""
    after: ModuleOp
    """The lowered output."""


def simulation_pairs(chunk: str, result: ChunkResult) -> list[SimulationPair]:
    """Every kernel of a chunk that went through: its `gpu.func` kernels as they are, and
    its `gpu.launch` bodies outlined by `mlir-opt-22` (before: the chunk as found,
    outlined and imported; after: the output, outlined)."""
    from gpu_alloc.transforms.block_level_code import gpu_kernels

    assert result.output is not None and result.imported is not None
    pairs: list[SimulationPair] = []
    after = parse_or_bridge(result.output)[0]
    for kernel in gpu_kernels(result.imported):
        pairs.append(SimulationPair(kernel_key(kernel), result.imported, after))
    if any(op.name == "gpu.launch" for op in result.imported.walk()) and mlir_reads_chunk(chunk):
        before = outline(chunk)
        PassPipeline(PIPELINE[:1]).apply(context(), before)
        outlined_after = outline(result.output)
        known = {p.kernel for p in pairs}
        for kernel in gpu_kernels(before):
            if kernel_key(kernel) not in known:
                pairs.append(SimulationPair(kernel_key(kernel), before, outlined_after))
    return pairs


def kernel_key(kernel: Operation) -> str:
    parent = kernel.parent_op()
    module = parent.properties.get("sym_name") if parent is not None else None
    name = kernel.properties.get("sym_name", kernel.attributes.get("sym_name"))
    assert isinstance(module, StringAttr) and isinstance(name, StringAttr)
    return f"@{module.data}::@{name.data}"


def simulate_kernel(module: ModuleOp, kernel: str):  # -> SimulationResult
    """Runs `kernel` on seeded random arguments (`SIM_*`); raises SimulationError on an
    op or argument the simulator does not support."""
    from gpu_alloc.sim.launch import simulate
    from gpu_alloc.transforms.block_level_code import gpu_kernels
    from xdsl.dialects.builtin import MemRefType

    (func,) = [k for k in gpu_kernels(module) if kernel_key(k) == kernel]
    scalars = [SIM_SCALAR for t in func.function_type.inputs.data if not isinstance(t, MemRefType)]
    gpu_module = func.parent_op()
    assert gpu_module is not None
    alone = ModuleOp([gpu_module.clone()])  # the kernel's own gpu.module only
    return simulate(
        alone,
        grid=SIM_GRID,
        block=SIM_BLOCK,
        kernel=func.sym_name.data,
        seed=1,
        scalars=scalars,
        max_thread_steps=SIM_MAX_STEPS,
        dynamic_extent=SIM_DYNAMIC_EXTENT,
    )
