"""User-facing errors that point at the op they are about."""

from __future__ import annotations

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
