"""Issue 19 §7: which Func slices share bytes and stages, without looking at every pair.

`dialect.slice_overlap.meeting` replaces the all-pairs loops of the layout record and of
`remove-dead-allocs`; it must answer exactly what the pairwise definition answers.
"""

from __future__ import annotations

from gpu_alloc.dialect import FuncSlice
from gpu_alloc.dialect.slice_overlap import meeting
from gpu_alloc.transforms.layout_record import _narrow_reuse
from hypothesis import given, settings
from hypothesis import strategies as st

slices = st.builds(
    lambda offset, size, first, length: FuncSlice("f", offset, size, first, first + length),
    st.integers(0, 40),
    st.integers(0, 12),
    st.integers(0, 8),
    st.integers(0, 4),
)


def _meet(a: FuncSlice, b: FuncSlice) -> bool:
    return bool(a.bytes and b.bytes and a.shares_bytes(b) and a.co_live(b))


@settings(max_examples=300, deadline=None)
@given(st.lists(slices, max_size=14), st.lists(slices, max_size=8), st.data())
def test_meeting_is_the_pairwise_definition(data_slices, others, draw):
    # Queries: some of the data slices themselves (never met by themselves), some others.
    queries = others + [s for s in data_slices if draw.draw(st.booleans())]
    expected = [any(_meet(q, d) for d in data_slices if d is not q) for q in queries]
    assert meeting(queries, data_slices) == expected


@settings(max_examples=100, deadline=None)
@given(st.lists(slices, max_size=14))
def test_narrowing_takes_the_use_stages_of_every_slice_that_meets_another(lives):
    uses = [
        FuncSlice(s.name + "_use", s.offset, s.bytes, s.first_stage, s.first_stage) for s in lives
    ]
    narrowed = _narrow_reuse(lives, uses)
    for k, live in enumerate(lives):
        met = any(_meet(live, other) for j, other in enumerate(lives) if j != k)
        assert narrowed[k] is (uses[k] if met else live)


def test_a_long_chain_meets_where_stages_touch():
    """4,000 staggered slices on two offsets: slice k meets k - 2 and k + 2 (one stage in
    common); spread three stages apart, none meets any other."""
    chain = [FuncSlice(f"f{k}", 64 * (k % 2), 64, k, k + 2) for k in range(4000)]
    assert all(meeting(chain, chain))
    apart = [FuncSlice(f"f{k}", 64 * (k % 2), 64, 3 * k, 3 * k + 2) for k in range(4000)]
    assert not any(meeting(apart, apart))
