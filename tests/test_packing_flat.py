"""The flat exact-search loop (`packing.core`): sound against a brute force, with MiniMalloc's
per-part re-ranking and pinned buffers; the same nodes compiled (numba) and interpreted; never
compiled for kernel-sized inputs; what it reaches on the challenging suite within fixed budgets."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gpu_alloc.packing import PackItem, core, jit, lower_bound, pack, validate
from gpu_alloc.packing.budget import Allowance
from gpu_alloc.packing.component import Component
from gpu_alloc.packing.jit import NO_JIT_ENV, dive_steps
from gpu_alloc.packing.search import (
    FLAT_HEURISTICS,
    CanonicalSearch,
    NodeLimit,
    Ranking,
    _Dive,
    key_ranking,
)
from gpu_alloc.tools.pack import read_instance
from test_packing import brute_force_optimum

ROOT = Path(__file__).resolve().parents[1]
CHALLENGING = ROOT / "bench" / "data" / "challenging"
PACK = Path(sys.executable).parent / "gpu-alloc-pack"


def random_items(count: int, seed: int, pins: bool = False) -> list[PackItem]:
    rng = np.random.default_rng(seed)
    items = []
    for index in range(count):
        start = int(rng.integers(0, 8))
        alignment = int(rng.choice([1, 4, 8]))
        pinned = None
        if pins and index % 4 == 0:
            pinned = 8 * index  # pairwise apart: pinned buffers never collide
            alignment = 8
        items.append(
            PackItem(
                start,
                start + int(rng.integers(1, 5)),
                int(rng.integers(1, 9)) * 4,
                alignment,
                pinned,
            )
        )
    return items


def flat_answer(search: CanonicalSearch, capacity: int, ranking: Ranking) -> bool:
    found = search._flat().dive(
        capacity, Allowance.start(10**7, None), search.order(ranking), 10**7
    )
    if found is not None:
        assert int((found + search.component.size).max()) <= capacity
    return found is not None


def dynamic_rankings(search: CanonicalSearch) -> list[Ranking]:
    """MiniMalloc's three preorderings re-ranked per part, as the flat search uses them."""
    component = search.component
    width = component.end - component.start
    columns = {"W": width, "A": width * component.size, "T": search.total()}
    return [
        key_ranking(np.stack([columns[c] for c in name] + [-component.ids], 1), name.index("T"))
        for name in FLAT_HEURISTICS
    ]


@pytest.mark.parametrize("seed", range(10))
def test_flat_search_decides_every_capacity_like_a_brute_force(seed: int):
    # Seven buffers: 5040 orders for the brute force. The flat search must answer "a packing
    # within C exists" exactly when the brute force does, for the numpy search's static
    # rankings and for the per-part re-ranked ones (part decomposition, backjumping,
    # re-ranking and pruning may only cut off dominated packings).
    items = random_items(7, seed)
    component = Component.of(items, list(range(len(items))))
    search = CanonicalSearch(component)
    rankings = search.rankings[:3] + dynamic_rankings(search)
    bound = component.max_load()
    optimum = brute_force_optimum(items)
    answers = []
    for capacity in range(bound, int(component.size.sum()) + 8):
        expected = capacity >= optimum
        assert expected == (
            _Dive(
                search, capacity, Allowance.start(10**7, None), search.rankings[0].rank, 10**7
            ).run()
            is not None
        ), capacity
        for ranking in rankings:
            assert flat_answer(search, capacity, ranking) == expected, (capacity, ranking)
        answers.append(expected)
        if expected:
            break
    assert answers[-1], "the search never found a packing"


@pytest.mark.parametrize("seed", range(6))
def test_pinned_buffers_stay_put_and_are_decided_like_a_brute_force(seed: int):
    items = random_items(7, seed, pins=True)
    component = Component.of(items, list(range(len(items))))
    search = CanonicalSearch(component)
    pinned_top = max((i.offset or 0) + i.size for i in items)
    optimum = brute_force_optimum(items)
    for capacity in range(component.max_load(), pinned_top + int(component.size.sum()) + 8):
        expected = capacity >= optimum
        for ranking in search.rankings[:2] + dynamic_rankings(search)[:1]:
            found = search._flat().dive(
                capacity, Allowance.start(10**7, None), search.order(ranking), 10**7
            )
            numpy_found = _Dive(
                search, capacity, Allowance.start(10**7, None), ranking.rank, 10**7
            ).run()
            assert (found is not None) == expected == (numpy_found is not None), capacity
            for packing in (found, numpy_found):
                if packing is not None:
                    validate(items, packing.tolist())  # pins included
        if expected:
            return
    raise AssertionError("no capacity fitted")


def challenging(name: str) -> list[PackItem]:
    return read_instance(CHALLENGING / f"{name}.1048576.csv")[2]


def test_per_part_re_ranking_reproduces_minimalloc_on_e():
    # MiniMalloc's solver (its default flags, capacity 2^20; google/minimalloc built here and
    # instrumented) finds E with its TWA ordering in the round whose dives may visit 27,520
    # nodes, after 18,315 nodes of that dive. The flat search with the same ranking, re-ranked
    # per part, needs no more (its sections are finer, which prunes a little more). Ranked once
    # for all (no re-ranking) it finds nothing within 200,000 nodes (nor within millions): this
    # test fails if the per-part ranking breaks.
    items = challenging("E")
    component = Component.of(items, list(range(len(items))))
    search = CanonicalSearch(component)
    allowance = Allowance.start(10**6, None)
    twa = search.rankings[FLAT_HEURISTICS.index("TWA")]
    found = search.dive(1 << 20, allowance, twa, 27_520)
    assert found is not None
    validate(items, found.tolist())
    assert int((found + component.size).max()) <= 1 << 20
    assert allowance.meter.units <= 18_315
    with pytest.raises(NodeLimit):
        search.dive(1 << 20, Allowance.start(10**6, None), Ranking(twa.rank), 200_000)


def test_compiled_and_interpreted_loops_visit_the_same_nodes(monkeypatch: pytest.MonkeyPatch):
    items = challenging("B")
    component = Component.of(items, list(range(len(items))))
    results = []
    for disabled in ("1", "0"):
        monkeypatch.setenv(NO_JIT_ENV, disabled)
        assert dive_steps()[1] == (disabled == "0")
        search = CanonicalSearch(component)
        outcome = []
        for ranking in search.rankings:
            allowance = Allowance.start(10**6, None)
            try:
                found = search.dive(lower_bound(items) * 23 // 20, allowance, ranking, 1500)
                outcome.append((None if found is None else found.tolist(), allowance.meter.units))
            except NodeLimit:
                outcome.append(("limit", allowance.meter.units))
        results.append(outcome)
    assert results[0] == results[1]
    assert any(isinstance(answer, list) for answer, _ in results[0])


@pytest.mark.parametrize("name", ["B", "D"])
def test_pack_outputs_are_byte_identical_without_the_compiler(name: str, tmp_path: Path):
    outputs = []
    for disabled in ("1", "0"):
        output = tmp_path / f"{disabled}.csv"
        env = {**os.environ, NO_JIT_ENV: disabled}
        run = subprocess.run(
            [str(PACK), str(CHALLENGING / f"{name}.1048576.csv"), "--budget", "2500"]
            + ["--output", str(output), "--quiet"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        work = int(run.stdout.split("work=")[1].split()[0])
        assert work == 2500
        outputs.append(output.read_bytes())
    assert outputs[0] == outputs[1]


def test_kernel_sized_inputs_never_load_the_compiler():
    code = (
        "import sys\n"
        "from gpu_alloc.packing import pack, PackItem\n"
        "items = [PackItem(i % 7, i % 7 + 1 + i % 3, 16 * (1 + i % 5), 16) for i in range(64)]\n"
        "packing = pack(items)\n"
        "assert 'numba' not in sys.modules, 'numba was imported'\n"
        "print(packing.peak)\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_without_numba_the_loop_runs_as_plain_python(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(NO_JIT_ENV, "0")
    monkeypatch.setattr(jit, "_compiled", [])
    monkeypatch.setitem(sys.modules, "numba", None)  # `import numba` raises ImportError
    steps, compiled = dive_steps()
    assert steps is core.dive_steps and not compiled


def test_no_writable_cache_compiles_without_caching(monkeypatch: pytest.MonkeyPatch):
    # numba refuses cache=True when neither the package's __pycache__ nor its user cache
    # directory can be written (a read-only install): compile without caching instead.
    import numba

    calls = []

    def njit(*, cache: bool):
        calls.append(cache)
        if cache:
            raise RuntimeError("cannot cache function: no locator available")
        return lambda function: ("compiled", function)

    monkeypatch.setattr(numba, "njit", njit)
    assert jit._compile() == ("compiled", core.dive_steps)
    assert calls == [True, False]


# MiniMalloc's challenging instances whose optimum is known; the work units each needs here
# (at most 186,000, for E, whose first question may use half the budget; about a second of
# search all together).
PROVABLE = ("A", "B", "C", "E", "F", "G", "H", "I", "K")


@pytest.mark.parametrize("name", PROVABLE)
def test_every_provable_challenging_instance_is_proven_within_a_fixed_budget(name: str):
    items = challenging(name)
    packing = pack(items, budget=400_000)
    validate(items, packing.offsets)
    assert packing.optimal and packing.peak == packing.lower_bound == lower_bound(items)


def test_j_goes_below_minimallocs_best_within_a_fixed_budget():
    # MiniMalloc's best known J is 1,038,336 (102 s); issue 22 asks for 1,032,192 or less.
    items = challenging("J")
    packing = pack(items, budget=1_000_000)
    validate(items, packing.offsets)
    assert packing.peak <= 1_029_120 and packing.lower_bound == 989_184
