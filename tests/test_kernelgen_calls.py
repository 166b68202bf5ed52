"""A fixed sample of `kernelgen_calls` kernels (helpers called twice, in loops, through
`cf` branches, recursively; loop-local buffers in `scf` and `cf` loops): fusion and
lowering either keep the behaviour or refuse with a located diagnostic. The same
generator runs at scale outside pytest (see the closing note of issue 30)."""

from __future__ import annotations

import pytest
from kernelgen_calls import call_kernel, outcome

SAMPLE = range(24)


@pytest.mark.parametrize("seed", SAMPLE)
def test_generated_call_kernels_keep_their_behaviour_or_are_refused(seed: int):
    kernel = call_kernel(seed)
    assert outcome(kernel) in ("same", "refused"), kernel.text


@pytest.mark.parametrize("seed", [124, 261, 337, 367])
def test_over_limit_fits_what_every_barrier_fits(seed: int):
    """Seeds that over-limit refused, before a callee was planned against what its
    caller takes, where insert-barriers=always fits the same limit ('spurious-refusal')."""
    kernel = call_kernel(seed)
    assert kernel.mode == "over-limit" and kernel.limit is not None
    assert outcome(kernel) == "same", kernel.text


def test_the_sample_covers_every_form_and_both_outcomes():
    kernels = [call_kernel(seed) for seed in SAMPLE]
    assert {k.form for k in kernels} >= {"twice", "loop", "cf_thread", "recursive"}
    outcomes = {outcome(k) for k in kernels[:12]}
    assert outcomes == {"same", "refused"}
