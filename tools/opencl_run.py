"""Running a kernel's OpenCL C on PoCL or Oclgrind, on the simulator's seeded inputs.

`run_opencl` emits the kernel (`lowering.opencl`: `lower-gpu-allocs` first when the
module still has `gpu_alloc` ops), makes every memref argument as `gpu-alloc-sim` does
(`sim.launch.seeded_array`: the same values for the same seed, so the digests compare),
the heap buffer zero-filled (`gpu_alloc.heap_bytes_per_block` x blocks bytes), launches
it over the same grid and reads every buffer back. Under Oclgrind the data-race
detector is on (`OCLGRIND_DATA_RACES=1`); what Oclgrind prints is parsed
(`oclgrind_reports`) into the simulator's kinds of error: a race (exit 3), a barrier
not reached by the whole work-group (4), an out-of-bounds access (5), each with its
OpenCL C line and, through the source's line map, the MLIR op it was written for.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from gpu_alloc.lowering.opencl.c import OpenClKernel, OpenClModule, c_name
from gpu_alloc.lowering.opencl.opencl_tools import RUNTIMES, build, context, pyopencl
from gpu_alloc.lowering.opencl.target import emit_opencl_modules
from gpu_alloc.sim.errors import SimulationError
from gpu_alloc.sim.launch import ArgumentResult, find_kernel, scalar_argument, seeded_array
from gpu_alloc.sim.memory import MemRefView
from xdsl.dialects import gpu
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Operation

EXIT_CODES = {"race": 3, "divergence": 4, "bounds": 5}

_KINDS = (
    (re.compile(r"data race", re.I), "race"),
    (re.compile(r"divergence", re.I), "divergence"),
    (re.compile(r"invalid (read|write)|out.of.bounds", re.I), "bounds"),
)
_LINE = re.compile(r"At line (\d+) \(column (\d+)\) of")


@dataclass(frozen=True)
class OclgrindReport:
    """One error Oclgrind printed: its kind, first line, and the OpenCL C line it names."""

    kind: str
    message: str
    line: int | None
    op: Operation | None = None
    lines: tuple[int, ...] = ()
    """Every OpenCL C line the message names (a race: both accesses)."""


@dataclass
class RunResult:
    kernel: str
    arguments: list[ArgumentResult]
    reports: list[OclgrindReport] = field(default_factory=list[OclgrindReport])
    module: OpenClModule | None = None

    def digests(self) -> dict[str, str]:
        return {a.name: a.sha256 for a in self.arguments}


def oclgrind_reports(text: str, module: OpenClModule | None = None) -> list[OclgrindReport]:
    """The errors in what Oclgrind printed, in order: each message starts on a line that is
    not indented; its indented lines name the entities and their `At line N` lines."""
    messages: list[list[str]] = []
    for line in text.splitlines():
        if line.strip() and not line[0].isspace():
            messages.append([line.strip()])
        elif messages:
            messages[-1].append(line)
    reports: list[OclgrindReport] = []
    for first, *rest in messages:
        kind = next((k for pattern, k in _KINDS if pattern.search(first)), None)
        if kind is None:
            continue
        numbers = [int(m.group(1)) for m in map(_LINE.search, rest) if m is not None]
        line = numbers[0] if numbers else None
        op = module.line_ops.get(line) if module is not None and line is not None else None
        reports.append(OclgrindReport(kind, first, line, op, tuple(numbers)))
    return reports


def run_opencl(
    module: ModuleOp,
    *,
    runtime: str,
    grid: Sequence[int],
    block: Sequence[int],
    kernel: str | None = None,
    seed: int = 0,
    scalars: Sequence[float] = (),
    dynamic_extent: int | None = None,
) -> RunResult:
    """Runs the kernel on `runtime` (`pocl` or `oclgrind`) over `grid` blocks of `block`
    work-items; `SimulationError` for arguments it cannot make (as the simulator)."""
    grid3, block3 = (list(grid) + [1, 1])[:3], (list(block) + [1, 1])[:3]
    original = find_kernel(module, kernel)
    parent = original.parent_op()
    assert isinstance(parent, gpu.ModuleOp)
    if runtime == "oclgrind":
        os.environ["OCLGRIND_DATA_RACES"] = "1"  # read when Oclgrind's context is made
    emitted = emit_opencl_modules(module)[parent.sym_name.data]
    described = emitted.kernels[original.sym_name.data]
    cl = pyopencl()
    ctx = context(runtime)
    queue = cl.CommandQueue(ctx)
    try:
        with _stderr_captured() as captured:
            program = build(emitted.source, runtime)
            buffers, results = _arguments(cl, ctx, described, grid3, seed, scalars, dynamic_extent)
            function = getattr(program, c_name(described.name))
            global_size = tuple(g * b for g, b in zip(grid3, block3, strict=True))
            function(queue, global_size, tuple(block3), *buffers)
            queue.finish()
            for _, array, buffer in results:
                cl.enqueue_copy(queue, array, buffer)
            queue.finish()
    except cl.Error as error:  # the runtime refused the launch (its resources, its limits)
        what = getattr(error, "what", None)
        detail = (
            what.what() if what is not None and callable(getattr(what, "what", None)) else error
        )
        raise SimulationError(f"{RUNTIMES[runtime]} refused the launch: {detail}") from None
    arguments = [
        ArgumentResult(name, array, MemRefView.type_string_of(array)) for name, array, _ in results
    ]
    reports = oclgrind_reports(captured.text, emitted) if runtime == "oclgrind" else []
    return RunResult(described.name, arguments, reports, emitted)


def _arguments(
    cl,
    ctx,
    kernel: OpenClKernel,
    grid: list[int],
    seed: int,
    scalars: Sequence[float],
    dynamic_extent: int | None,
):
    flags = cl.mem_flags
    values: list[object] = []
    results: list[tuple[str, np.ndarray, object]] = []
    arrays: dict[int, np.ndarray] = {}
    queue = list(scalars)
    user_index = 0
    blocks = int(np.prod(grid))
    for parameter in kernel.parameters:
        if parameter.kind == "buffer":
            assert isinstance(parameter.type, MemRefType)
            array = seeded_array(
                parameter.mlir_name, parameter.type, seed, user_index, dynamic_extent
            )
            user_index += 1
            arrays[parameter.argument] = array
            host = array.view(np.uint8) if array.dtype == np.bool_ else array
            buffer = cl.Buffer(ctx, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=_nonempty(host))
            values.append(buffer)
            results.append((parameter.mlir_name, array, buffer))
        elif parameter.kind == "heap":
            per_block = kernel.heap_bytes_per_block
            if per_block is None:
                raise SimulationError(
                    f"kernel '{kernel.name}' has a heap buffer without "
                    "gpu_alloc.heap_bytes_per_block: its size is unknown"
                )
            heap = np.zeros(max(1, per_block * blocks), np.uint8)
            arrays[parameter.argument] = heap
            values.append(cl.Buffer(ctx, flags.READ_WRITE | flags.COPY_HOST_PTR, hostbuf=heap))
        elif parameter.kind == "extent":
            values.append(np.int64(arrays[parameter.argument].shape[parameter.dimension]))
        elif parameter.kind == "scalar":
            if not queue:
                raise SimulationError(
                    f"kernel argument %{parameter.mlir_name} : {parameter.type} needs a "
                    "value: pass it with --scalars"
                )
            assert parameter.type is not None
            value = scalar_argument(queue.pop(0), parameter.type, parameter.mlir_name)
            values.append(np.uint8(value) if isinstance(value, np.bool_) else value)
        else:  # dynamic_shared
            values.append(cl.LocalMemory(max(1, kernel.dynamic_shared_bytes)))
    if queue:
        raise SimulationError(f"{len(queue)} more --scalars than scalar kernel arguments")
    return values, results


def _nonempty(array: np.ndarray) -> np.ndarray:
    return array if array.nbytes else np.zeros(1, np.uint8)


class _Captured:
    text = ""


class _stderr_captured:
    """File descriptor 2 into a temporary file (Oclgrind writes its reports there)."""

    def __enter__(self) -> _Captured:
        self.result = _Captured()
        self.file = tempfile.TemporaryFile()
        self.saved = os.dup(2)
        os.dup2(self.file.fileno(), 2)
        return self.result

    def __exit__(self, *_: object) -> None:
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.file.seek(0)
        self.result.text = self.file.read().decode("utf-8", errors="replace")
        self.file.close()


__all__ = ["EXIT_CODES", "OclgrindReport", "RunResult", "oclgrind_reports", "run_opencl"]
