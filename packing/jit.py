"""The compiled form of the exact search's inner loop (`core.dive_steps`), made on first use.

numba compiles it the first time a component large enough to pay for it is searched (never at
import; kernel-sized inputs never get here), and caches the machine code next to `core.py` (or,
where that directory is read-only, in numba's user-wide cache, or nowhere). Without numba, or
with the environment variable `GPU_ALLOC_NO_JIT` set to anything but "" or "0", the same
function runs as plain Python: slower, with the same result for the same work budget.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from typing import Any

from gpu_alloc.packing import core

NO_JIT_ENV = "GPU_ALLOC_NO_JIT"
"""Set to 1 to run the search's inner loop as plain Python even where numba is installed."""

_compiled: list[Callable[..., int]] = []
_registered: list[Callable[..., Any]] = []


def jit_requested() -> bool:
    return os.environ.get(NO_JIT_ENV, "") in ("", "0")


def dive_steps() -> tuple[Callable[..., int], bool]:
    """The inner loop to call, and whether it is compiled."""
    if not jit_requested():
        return core.dive_steps, False
    if not _compiled:
        compiled = _compile()
        if compiled is None:
            return core.dive_steps, False
        _compiled.append(compiled)
    return _compiled[0], True


def _compile() -> Callable[..., int] | None:
    try:
        import numba  # noqa: PLC0415 (imported on first use: numba takes a while to load)
        from numba.extending import register_jitable  # noqa: PLC0415
    except ImportError:
        return None
    # `dive_steps` calls its helpers through `core`'s globals, which stay plain Python: numba
    # resolves a call to a registered function to its compiled form, inlined into the loop.
    for helper in core.HELPERS:
        if helper not in _registered:
            register_jitable(inline="always")(helper)
            _registered.append(helper)
    njit: Any = numba.njit
    try:
        return njit(cache=True)(core.dive_steps)
    except RuntimeError:  # no writable cache location: compile anew in every process
        return njit(cache=False)(core.dive_steps)


def engine() -> str:
    """Which form of the loop a search runs, in words (without compiling anything)."""
    if not jit_requested():
        return f"plain Python ({NO_JIT_ENV} is set)"
    if _compiled or importlib.util.find_spec("numba") is not None:
        return "compiled by numba"
    return (
        "plain Python, several times slower (numba is not installed: pip install 'gpu-alloc[pack]')"
    )


def compile_announcement() -> str:
    """What to tell a user before the first call of the compiled loop: numba compiles it
    (some seconds) unless its cache holds it for this source (about a second to load)."""
    if _compiled and _cache_is_current(_compiled[0]):
        return "loading the compiled search loop from numba's cache"
    return "compiling the search loop with numba (first use; some seconds, cached afterwards)"


def _cache_is_current(dispatcher: Any) -> bool:
    """Whether numba's on-disk cache has machine code for the current `core.py` (its index is
    keyed by the source file's time stamp and size; numba has no public call for this)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # a numba without these internals: say "compiling", which may overstate
        return False
