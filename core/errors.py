"""User-facing errors that point at the op they are about."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException


class GpuAllocPassError(PassFailedException):
    """A pass failure about a specific op; drivers print it at the op's location."""

    def __init__(self, message: str, op: Operation | None = None):
        super().__init__(message)
        self.message = message
        self.op = op


def not_implemented(pass_name: str) -> GpuAllocPassError:
    return GpuAllocPassError(f"pass '{pass_name}' is not implemented yet")


TRACEBACK_VARIABLE = "GPU_ALLOC_TRACEBACK"


@contextmanager
def internal_errors_in_one_line(tool: str) -> Iterator[None]:
    """For a command-line tool's main: an unexpected exception (a bug) still ends in
    one line on stderr and exit code 1, unless GPU_ALLOC_TRACEBACK is set."""
    try:
        yield
    except (KeyboardInterrupt, BrokenPipeError):
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
