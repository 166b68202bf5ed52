"""Random kernels for what issue 30's findings had in common: code run more than once.

Each kernel has a workgroup helper (`func.func @h`) with one or two shared buffers, a
barrier inside or none, and a barrier at its end or none, called from the kernel
directly, twice, inside an `scf.for`, under a uniform `scf.if`, through a `cf.cond_br`
(uniform or on the thread id), or recursively (depth 2); and, in the kernel, optionally
a loop-local shared buffer in an `scf.for` or in a `cf` loop. Helpers with a barrier are
only called where every thread calls them (else the original deadlocks).

`outcome` runs `import-gpu-allocs, fuse-gpu-allocs{insert-barriers=MODE
max-shared-bytes=LIMIT}, lower-gpu-allocs` and the simulator on the original and the
result, and names what happened: `same`, `refused` (a located diagnostic),
`spurious-refusal` (over-limit refused what `insert-barriers=always` fits within the
same limit), `mismatch`, `race`, `internal` (any other exception), `hang` (the work
bound: a pass ran past `HANG_SECONDS`), `original-invalid` (the original races or the
simulator refuses it), or `generator-error` (the text does not parse).

Run at scale (outside pytest): seeds 0-1199 give 607 `same`, 593 `refused`, nothing
else (before over-limit planned a helper against what its caller takes, 12 of them were
`spurious-refusal`); on the code before issue 30's fixes and without limits, seeds
0-199 gave 26 `mismatch`, 25 `race` and 2 `internal`.
"""

from __future__ import annotations

import random
import signal
from dataclasses import dataclass

from differential import Launch, run
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.transforms import FuseGpuAllocsPass
from gpu_alloc.transforms.import_gpu_allocs import import_gpu_allocs
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

HANG_SECONDS = 60
LAUNCH = Launch(grid=(1,), block=(64,), scalars=(2,))
SHARED = "memref<64xi32, #gpu.address_space<workgroup>>"
CALL_FORMS = ("once", "twice", "loop", "uniform_if", "cf_uniform", "cf_thread", "recursive")


@dataclass(frozen=True)
class CallKernel:
    text: str
    seed: int
    form: str
    mode: str
    limit: int | None
    """`max-shared-bytes`: None (the target's), or a few of the 256 B buffers' worth, so
    that barriers in the kernel, in the helper or in both may be what makes them fit."""


def _helper(rng: random.Random, barrier_inside: bool, barrier_end: bool, recursive: bool) -> str:
    index = rng.choice(["%t", "%r"])
    second = rng.random() < 0.6
    lines = [
        "  func.func @h(%out: memref<64xi32>, %k: i32, %d: index) {",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
        "    %c63 = arith.constant 63 : index",
        "    %t = gpu.thread_id x",
        "    %t1 = arith.addi %t, %c1 : index",
        "    %r = arith.remui %t1, %c63 : index",
        "    %ti = arith.index_cast %t : index to i32",
        "    %v = arith.addi %ti, %k : i32",
        f"    %a = memref.alloc() : {SHARED}",
        f"    memref.store %v, %a[%t] : {SHARED}",
    ]
    if barrier_inside:
        lines.append("    gpu.barrier")
    else:
        index = "%t"  # without a barrier, another thread's slot is a race of the original
    lines.append(f"    %x = memref.load %a[{index}] : {SHARED}")
    if recursive:
        lines += [
            "    %deeper = arith.cmpi ugt, %d, %c0 : index",
            "    scf.if %deeper {",
            "      %d1 = arith.subi %d, %c1 : index",
            "      %k1 = arith.addi %k, %k : i32",
            "      func.call @h(%out, %k1, %d1) : (memref<64xi32>, i32, index) -> ()",
            "    }",
            f"    %x2 = memref.load %a[%t] : {SHARED}",
            "    %y0 = arith.addi %x, %x2 : i32",
        ]
    else:
        lines.append("    %y0 = arith.addi %x, %x : i32")
    if second:
        lines += [
            f"    %b = memref.alloc() : {SHARED}",
            f"    memref.store %y0, %b[%t] : {SHARED}",
            f"    %y = memref.load %b[%t] : {SHARED}",
        ]
    else:
        lines.append("    %y = arith.addi %y0, %k : i32")
    lines += [
        "    %o = memref.load %out[%t] : memref<64xi32>",
        "    %s = arith.addi %o, %y : i32",
        "    memref.store %s, %out[%t] : memref<64xi32>",
    ]
    if barrier_end:
        lines.append("    gpu.barrier")
    lines += ["    return", "  }"]
    return "\n".join(lines)


CALL = "func.call @h(%out, {k}, %c2) : (memref<64xi32>, i32, index) -> ()"


def _calls(form: str) -> tuple[list[str], bool]:
    """The kernel's call lines, and whether they leave the body in one block."""
    one = CALL.format(k="%k1")
    if form == "once":
        return [one], True
    if form == "twice":
        return [one, CALL.format(k="%k7")], True
    if form == "loop":
        return ["scf.for %ci = %c0 to %c2 step %c1 {", f"  {one}", "}"], True
    if form == "uniform_if":
        return ["%p = arith.cmpi ugt, %n, %c1 : index", "scf.if %p {", f"  {one}", "}"], True
    condition = "%n, %c1" if form == "cf_uniform" else "%t, %c32"
    return [
        f"%p = arith.cmpi ugt, {condition} : index",
        "cf.cond_br %p, ^call, ^done",
        "^call:",
        one,
        "cf.br ^done",
        "^done:",
    ], False
    # (recursive: "once" with a recursive helper)


def _kernel_loop(rng: random.Random, structured: bool) -> list[str]:
    """A loop-local shared buffer in the kernel: written, a barrier, read at the next
    thread's slot; with or without a barrier at the end of the body."""
    end = ["gpu.barrier"] if rng.random() < 0.5 else []
    body = [
        f"%A = memref.alloc() : {SHARED}",
        "%ii = arith.index_cast %i : index to i32",
        "%w = arith.addi %ti, %ii : i32",
        f"memref.store %w, %A[%t] : {SHARED}",
        "gpu.barrier",
        f"%aa = memref.load %A[%r] : {SHARED}",
        "%oo = memref.load %out[%t] : memref<64xi32>",
        "%ss = arith.addi %oo, %aa : i32",
        "memref.store %ss, %out[%t] : memref<64xi32>",
        *end,
    ]
    if structured:
        return ["scf.for %i = %c0 to %c3 step %c1 {", *[f"  {b}" for b in body], "}"]
    return [
        "cf.br ^loop(%c0 : index)",
        "^loop(%i: index):",
        *body,
        "%inext = arith.addi %i, %c1 : index",
        "%more = arith.cmpi slt, %inext, %c3 : index",
        "cf.cond_br %more, ^loop(%inext : index), ^after",
        "^after:",
    ]


def call_kernel(seed: int) -> CallKernel:
    rng = random.Random(seed)
    form = rng.choice(CALL_FORMS)
    recursive = form == "recursive"
    thread_call = form == "cf_thread"
    barrier_inside = not thread_call and rng.random() < 0.6
    barrier_end = not thread_call and rng.random() < 0.4
    helper = _helper(rng, barrier_inside, barrier_end, recursive)
    calls, _ = _calls("once" if recursive else form)
    loop = rng.choice(["none", "none", "scf", "cf"])
    loop_lines = [] if loop == "none" else _kernel_loop(rng, loop == "scf")
    if loop == "cf" and not all(c[:1] != "^" for c in calls):
        loop_lines = _kernel_loop(rng, True)  # one CFG per kernel keeps the text simple
    body = loop_lines + calls if rng.random() < 0.5 else calls + loop_lines
    text = "\n".join(
        [
            "gpu.module @m {",
            helper,
            "  gpu.func @k(%out: memref<64xi32>, %n: index) kernel {",
            "    %c0 = arith.constant 0 : index",
            "    %c1 = arith.constant 1 : index",
            "    %c2 = arith.constant 2 : index",
            "    %c3 = arith.constant 3 : index",
            "    %c32 = arith.constant 32 : index",
            "    %c63 = arith.constant 63 : index",
            "    %k1 = arith.constant 1 : i32",
            "    %k7 = arith.constant 7 : i32",
            "    %t = gpu.thread_id x",
            "    %t1 = arith.addi %t, %c1 : index",
            "    %r = arith.remui %t1, %c63 : index",
            "    %ti = arith.index_cast %t : index to i32",
            *[f"    {line}" if not line.startswith("^") else f"  {line}" for line in body],
            "    gpu.return",
            "  }",
            "}",
            "",
        ]
    )
    mode = rng.choice(["never", "over-limit", "always"])
    return CallKernel(text, seed, form, mode, rng.choice([None, None, 256, 512, 768]))


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: object) -> None:
    raise _Hang


def _fuse_and_lower(module: ModuleOp, mode: str, limit: int | None) -> str | None:
    """Runs the pipeline on `module` in place; None, or the outcome that ends the run."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(HANG_SECONDS)
    try:
        import_gpu_allocs(module)
        FuseGpuAllocsPass(insert_barriers=mode, max_shared_bytes=limit).run(module)
        LowerGpuAllocsPass().apply(Context(), module)
    except _Hang:
        return "hang"
    except GpuAllocPassError as error:
        return "refused" if error.op is not None else "internal"
    except Exception:
        return "internal"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return None


def outcome(kernel: CallKernel) -> str:
    import corpus  # the tests' parser (every dialect the project reads)

    try:
        parsed = corpus.parse(kernel.text)
    except Exception:
        return "generator-error"  # the generator wrote text that does not parse
    try:
        original = run(parsed, LAUNCH)
    except Exception:
        return "original-invalid"
    if original.races:
        return "original-invalid"
    module = corpus.parse(kernel.text)
    result = _fuse_and_lower(module, kernel.mode, kernel.limit)
    if result == "refused" and kernel.mode == "over-limit" and kernel.limit is not None:
        # over-limit inserts what makes the code fit: if every barrier does, so must it
        if _fuse_and_lower(corpus.parse(kernel.text), "always", kernel.limit) is None:
            return "spurious-refusal"
    if result is not None:
        return result
    try:
        after = run(module, LAUNCH)
    except Exception:
        return "internal"
    if after.digests() != original.digests():
        return "mismatch"
    return "race" if after.races else "same"
