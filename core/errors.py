"""User-facing errors that point at the op they are about."""

from __future__ import annotations

import argparse
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, NoReturn

from xdsl.utils.exceptions import PassFailedException

if TYPE_CHECKING:
    from xdsl.ir import Operation


class GpuAllocPassError(PassFailedException):
    """A pass failure about a specific op; drivers print it at the op's location."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


class UserInputError(Exception):
    """A mistake in a tool's input or command line, already worded as one line for the user
    (`file:line:col: error: ...` or `file: error: ...`). Tools print it and exit with 1."""


TRACEBACK_VARIABLE = "GPU_ALLOC_TRACEBACK"

_RAISE_PASS_ERRORS: ContextVar[bool] = ContextVar("raise_pass_errors", default=False)


@contextmanager
def pass_errors_raised() -> Iterator[None]:
    """Within this, the targets raise `GpuAllocPassError` for the driver to print at the
    op's source location (`gpu-alloc-opt` does) instead of printing it. Here rather than in
    `gpu_alloc.lowering.emit` so that a driver sets it without loading any backend."""
    token = _RAISE_PASS_ERRORS.set(True)
    try:
        yield
    finally:
        _RAISE_PASS_ERRORS.reset(token)


def pass_errors_are_raised() -> bool:
    """Whether the caller runs within `pass_errors_raised()`."""
    return _RAISE_PASS_ERRORS.get()


@contextmanager
def internal_errors_in_one_line(tool: str) -> Iterator[None]:
    """For a command-line tool's main: a `UserInputError` is printed as it is; an unexpected
    exception (a bug) still ends in one line on stderr; exit code 1 either way (the
    traceback of a bug is shown when GPU_ALLOC_TRACEBACK is set)."""
    try:
        yield
    except (KeyboardInterrupt, BrokenPipeError):
        sys.exit(1)
    except UserInputError as error:
        print(str(error), file=sys.stderr)
        sys.exit(1)
    except RecursionError:
        print(f"{tool}: error: input nested too deeply to process", file=sys.stderr)
        sys.exit(1)
    except MemoryError:
        print(f"{tool}: error: out of memory", file=sys.stderr)
        sys.exit(1)
    except Exception as error:
        if os.environ.get(TRACEBACK_VARIABLE):
            raise
        print(
            f"{tool}: internal error: {type(error).__name__}: {error} "
            f"(set {TRACEBACK_VARIABLE}=1 for details)",
            file=sys.stderr,
        )
        sys.exit(1)


def one_line_usage_errors(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Makes `parser` report a command-line mistake as one line (`prog: error: ...`) with
    exit code 1, like every other user error, instead of argparse's usage text and 2."""

    def error(message: str) -> NoReturn:
        print(f"{parser.prog}: error: {message} (see --help)", file=sys.stderr)
        sys.exit(1)

    parser.error = error  # pyright: ignore[reportAttributeAccessIssue]
    return parser


DEEP_STACK_BYTES = 512 * 1024 * 1024
DEEP_RECURSION_LIMIT = 200_000


def run_tool(tool: str, body: Callable[[], None]) -> None:
    """Runs a command-line tool's `body` with one-line errors, on a thread with a deep stack:
    xDSL's parser, printer and verifier recurse once per nesting level of the IR, so
    hundreds of nested regions must not end in a `RecursionError`."""
    outcome: list[BaseException] = []

    def guarded() -> None:
        try:
            with internal_errors_in_one_line(tool):
                body()
        except BaseException as error:  # SystemExit included: re-raised on the main thread
            outcome.append(error)

    previous_stack = threading.stack_size(DEEP_STACK_BYTES)
    previous_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous_limit, DEEP_RECURSION_LIMIT))
    try:
        worker = threading.Thread(target=guarded, name=tool)
        worker.start()
        worker.join()
    finally:
        threading.stack_size(previous_stack)
        sys.setrecursionlimit(previous_limit)
    if outcome:
        raise outcome[0]
