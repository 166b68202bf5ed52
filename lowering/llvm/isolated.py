"""Running a compilation in a forked child process, for LLVM targets that keep state
between compilations.

LLVM 22's SPIR-V target keeps its module analysis in a static
(`SPIRVModuleAnalysis::MAI`), and its basic-block registers survive from one module to
the next in one process: a later module's label can get the id of one of its types,
which `spirv-val` rejects ("Id 2 is defined more than once"). A process that compiles
only one SPIR-V module never sees this, so `isolated(compile, ...)` runs `compile` in a
child forked from this process (which has compiled no SPIR-V: the children do) and
returns what it returned, or raises what it raised. Where `os.fork` does not exist the
call runs here.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class IsolatedCrash(Exception):
    """The child died without an answer (LLVM aborted); the message says how."""


def _read_all(descriptor: int) -> bytes:
    chunks: list[bytes] = []
    while chunk := os.read(descriptor, 1 << 16):
        chunks.append(chunk)
    return b"".join(chunks)


def isolated(compile: Callable[..., T], *arguments: object) -> T:
    """`compile(*arguments)`, run in a forked child."""
    if not hasattr(os, "fork"):
        return compile(*arguments)
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: answer through the pipe, never return
        os.close(read_end)
        try:
            answer: tuple[bool, object] = (True, compile(*arguments))
        except Exception as error:  # handed to the parent, which raises it
            answer = (False, error)
        try:
            with os.fdopen(write_end, "wb") as stream:
                stream.write(pickle.dumps(answer))
        finally:
            os._exit(0)
    os.close(write_end)
    data = _read_all(read_end)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if not data:
        raise IsolatedCrash(
            f"the compilation aborted (exit status {os.waitstatus_to_exitcode(status)})"
        )
    ok, value = pickle.loads(data)
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # pyright: ignore[reportReturnType]
