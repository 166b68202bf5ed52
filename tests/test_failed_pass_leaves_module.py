"""A pass that fails leaves the module exactly as it was (issue 11 §3).

For every pass of the project and every error case of the lit suite, plus the
issue's reproducer and random kernels pushed over a limit, the printed module after
the failed pass equals the text before, and it still verifies.
"""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from gpu_alloc.errors import GpuAllocPassError
from gpu_alloc.lowering.lower_gpu_allocs import LowerGpuAllocsPass
from gpu_alloc.sim.loading import make_context
from gpu_alloc.transforms import (
    FlattenAliasesPass,
    FuseGpuAllocsPass,
    PartitionLoopsPass,
    RemoveDeadAllocsPass,
    StripeLaneAllocsPass,
)
from hypothesis import HealthCheck, given, settings
from kernelgen import GeneratedKernel, kernels
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass
from xdsl.printer import Printer

FILECHECK = Path(__file__).parent / "filecheck"

ERROR_FILES: list[tuple[str, ModulePass]] = [
    ("transforms/fuse-gpu-allocs-errors.mlir", FuseGpuAllocsPass()),
    ("transforms/fuse-gpu-allocs-errors.mlir", FuseGpuAllocsPass(max_shared_bytes=100)),
    ("transforms/stripe-lane-allocs-invalid.mlir", StripeLaneAllocsPass()),
    ("lowering/lower-gpu-allocs-errors.mlir", LowerGpuAllocsPass()),
]

ALL_PASSES: list[ModulePass] = [
    FuseGpuAllocsPass(),
    FlattenAliasesPass(),
    RemoveDeadAllocsPass(),
    PartitionLoopsPass(),
    StripeLaneAllocsPass(),
    LowerGpuAllocsPass(),
]

# Issue 11 §3: one private allocation and two 64,000-byte shared Funcs. Fuse used to
# hoist the private allocation before it found the kernel over the shared limit,
# leaving a module that no longer verified.
OVER_THE_LIMIT = """
builtin.module {
  "gpu.module"() <{sym_name = "m"}> ({
    "gpu.func"() <{function_type = (index) -> (), kernel}> ({
    ^bb0(%n: index):
      %c0 = arith.constant 0 : index
      %v = arith.constant 1 : i8
      %c4 = arith.constant 4 : index
      scf.for %i = %c0 to %c4 step %c4 {
        %r = "gpu_alloc.alloc"(%i) <{name = "r"}> : (index) -> memref<?xi8, 5 : i32>
        memref.store %v, %r[%c0] : memref<?xi8, 5 : i32>
      }
      %a = "gpu_alloc.alloc"() <{name = "a"}> : () -> memref<64000xi8, 3 : i32>
      %b = "gpu_alloc.alloc"() <{name = "b"}> : () -> memref<64000xi8, 3 : i32>
      memref.store %v, %a[%c0] : memref<64000xi8, 3 : i32>
      memref.store %v, %b[%c0] : memref<64000xi8, 3 : i32>
      %x = memref.load %a[%c0] : memref<64000xi8, 3 : i32>
      %y = memref.load %b[%c0] : memref<64000xi8, 3 : i32>
      "gpu.return"() : () -> ()
    }) {sym_name = "k"} : () -> ()
  }) : () -> ()
}
"""


def printed(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def parse(text: str) -> ModuleOp | None:
    try:
        module = Parser(make_context(), text).parse_module()
        module.verify()
    except Exception:  # the dialect's own invalid cases: not a pass failure
        return None
    return module


def fails_cleanly(text: str, pass_: ModulePass) -> bool:
    """Applies `pass_`; if it fails, checks the module is unchanged and verifies.
    Returns whether it failed."""
    module = parse(text)
    if module is None:
        return False
    before = printed(module)
    try:
        pass_.apply(make_context(), module)
    except GpuAllocPassError:
        assert printed(module) == before, f"{pass_.name} changed the module before failing"
        module.verify()
        return True
    return False


def error_cases() -> list[tuple[str, ModulePass]]:
    cases: list[tuple[str, ModulePass]] = []
    for path, pass_ in ERROR_FILES:
        for chunk in (FILECHECK / path).read_text().split("// -----"):
            cases.append((chunk, pass_))
    return cases


def test_every_lit_error_case_leaves_the_module_as_it_was():
    failures = sum(fails_cleanly(text, pass_) for text, pass_ in error_cases())
    assert failures >= 15  # the cases really are failures


def test_fuse_over_the_shared_limit_with_a_private_allocation_changes_nothing():
    assert fails_cleanly(OVER_THE_LIMIT, FuseGpuAllocsPass())
    # The same kernel under a larger limit fuses, so the failure was the limit's.
    assert not fails_cleanly(OVER_THE_LIMIT, FuseGpuAllocsPass(max_shared_bytes=200_000))


REPRODUCER_FAILS = {"fuse-gpu-allocs", "lower-gpu-allocs"}
"""The passes the reproducer is over a limit for: fuse (128,000 shared bytes, over 48 KiB)
and lower (two shared allocations above 48 KiB, each needing the one dynamic shared
memory)."""


@pytest.mark.parametrize("pass_", ALL_PASSES, ids=lambda p: p.name)
def test_every_pass_on_the_reproducer_fails_cleanly_or_succeeds(pass_: ModulePass):
    """Each pass either fails as expected, leaving the module as it was, or succeeds
    with a module that verifies and reads back as it prints."""
    failed = fails_cleanly(OVER_THE_LIMIT, pass_)
    assert failed == (pass_.name in REPRODUCER_FAILS)
    if not failed:
        module = parse(OVER_THE_LIMIT)
        assert module is not None
        pass_.apply(make_context(), module)
        module.verify()
        again = parse(printed(module))
        assert again is not None and printed(again) == printed(module)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kernels(max_funcs=5))
def test_random_kernels_over_a_limit_fail_cleanly(kernel: GeneratedKernel):
    """Random kernels with a shared limit of one byte: fuse fails on every kernel with
    a static shared Func over one byte, and the module is unchanged; lower-gpu-allocs alone refuses
    kernels with more than one dynamic shared Func, also without a trace."""
    static_shared = [f for f in kernel.funcs if f.space == 3 and f.size_argument is None]
    failed = fails_cleanly(kernel.text, FuseGpuAllocsPass(max_shared_bytes=1))
    if any(f.nbytes > 1 for f in static_shared):
        assert failed
    if not static_shared:
        assert not failed
    fails_cleanly(kernel.text, LowerGpuAllocsPass())
