"""The flat exact-search loop (`packing.core`): sound against a brute force, the same nodes
compiled (numba) and interpreted, and never compiled for kernel-sized inputs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from gpu_alloc.tools.pack import read_instance
from gpu_alloc.transforms.packing import PackItem, core, jit, lower_bound, validate
from gpu_alloc.transforms.packing.budget import Allowance
from gpu_alloc.transforms.packing.component import Component
from gpu_alloc.transforms.packing.flat import FlatProblem
from gpu_alloc.transforms.packing.jit import NO_JIT_ENV, dive_steps
from gpu_alloc.transforms.packing.search import CanonicalSearch, NodeLimit, _Dive

ROOT = Path(__file__).resolve().parents[1]
CHALLENGING = ROOT / "bench" / "data" / "challenging"
PACK = Path(sys.executable).parent / "gpu-alloc-pack"


def random_component(count: int, seed: int) -> Component:
    rng = np.random.default_rng(seed)
    items = []
    for _ in range(count):
        start = int(rng.integers(0, 8))
        items.append(
            PackItem(
                start,
                start + int(rng.integers(1, 5)),
                int(rng.integers(1, 9)) * 4,
                int(rng.choice([1, 4, 8])),
            )
        )
    return Component.of(items, list(range(count)))


def flat_answer(search: CanonicalSearch, capacity: int, rank: np.ndarray) -> bool:
    component = search.component
    flat = FlatProblem(search.first, search.stop, component.size, component.align, search.overlap)
    twin = search.twin_before(rank)
    found = flat.dive(capacity, Allowance.start(10**7, None), rank, twin, 10**7)
    if found is not None:
        assert int((found + search.component.size).max()) <= capacity
        items = [
            PackItem(int(s), int(e), int(z), int(a))
            for s, e, z, a in zip(
                search.component.start,
                search.component.end,
                search.component.size,
                search.component.align,
                strict=True,
            )
        ]
        validate(items, found.tolist())
    return found is not None


@pytest.mark.parametrize("seed", range(12))
def test_flat_search_agrees_with_the_numpy_search_at_every_capacity(seed: int):
    # The numpy search (`_Dive`) is checked against a brute force in test_packing.py; the flat
    # one must find a packing at exactly the same capacities, for every tie-break order (its
    # part decomposition, backjumping and pruning may only cut off dominated packings).
    component = random_component(9, seed)
    search = CanonicalSearch(component)
    bound = component.lower_bound()
    for rank in search.rankings[:3]:
        answers = []
        for capacity in range(bound, int(component.size.sum()) + 1, 4):
            expected = _Dive(search, capacity, Allowance.start(10**7, None), rank, 10**7).run()
            answers.append((capacity, expected is not None))
            assert flat_answer(search, capacity, rank) == (expected is not None), capacity
            if expected is not None:
                break
        assert answers[-1][1], "the search never found a packing"


def challenging(name: str) -> list[PackItem]:
    return read_instance(CHALLENGING / f"{name}.1048576.csv")[2]


@pytest.mark.parametrize("name", ["A", "F", "H"])
def test_flat_search_packs_challenging_instances_at_their_lower_bound(name: str):
    # MiniMalloc's optimum for these is the max-load lower bound; one tie-break order finds it
    # within a few hundred nodes since the search splits into independent parts.
    items = challenging(name)
    component = Component.of(items, list(range(len(items))))
    search = CanonicalSearch(component)
    allowance = Allowance.start(50_000, None)
    found = None
    for rank in search.rankings:
        try:
            found = search.dive(lower_bound(items), allowance, rank, 2_000)
        except NodeLimit:
            continue
        break
    assert found is not None
    validate(items, found.tolist())
    assert int((found + component.size).max()) == lower_bound(items)


def test_compiled_and_interpreted_loops_visit_the_same_nodes(monkeypatch: pytest.MonkeyPatch):
    items = challenging("B")
    component = Component.of(items, list(range(len(items))))
    results = []
    for disabled in ("1", "0"):
        monkeypatch.setenv(NO_JIT_ENV, disabled)
        assert dive_steps()[1] == (disabled == "0")
        search = CanonicalSearch(component)
        outcome = []
        for rank in search.rankings[1:3]:
            allowance = Allowance.start(10**6, None)
            try:
                found = search.dive(lower_bound(items) * 23 // 20, allowance, rank, 1500)
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
            + ["--output", str(output)],
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
        "from gpu_alloc.transforms.packing import pack, PackItem\n"
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
