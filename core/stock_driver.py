"""What this package does to the stock `xdsl-opt` when xDSL loads it as a plugin (the
`xdsl.universe` entry point imports `gpu_alloc.universe`, which calls `install()`).

xDSL's plugin mechanism registers dialects, passes, targets and frontends; it has no hook
for how the driver reports errors, so under stock `xdsl-opt` every error of a pass is a
Python traceback. `install()` adds one chained hook, kept light (the work is done in
`gpu_alloc.tools.stock_xdsl_opt`, imported on first use), and changes nothing in xDSL:

- `sys.excepthook`: an error that escapes `xDSLOptMain` (a pass error, a bad pass name or
  option, a parse or verify error) is printed as `gpu-alloc-opt` prints it, one located
  diagnostic with the source line and a caret (the op's position comes from reading the
  input again), and the exit code stays 1. Any other exception, or any exception with
  `GPU_ALLOC_TRACEBACK=1`, gets the previous hook.

Nothing changes for a program that does not run `xDSLOptMain`.
"""

from __future__ import annotations

import sys
from types import TracebackType

_installed = False


def install() -> None:
    """Installs the hook, once per process."""
    global _installed
    if _installed:
        return
    _installed = True
    previous = sys.excepthook

    def excepthook(
        kind: type[BaseException], error: BaseException, traceback: TracebackType | None
    ) -> None:
        from gpu_alloc.tools.stock_xdsl_opt import report

        if not report(error, traceback):
            previous(kind, error, traceback)

    sys.excepthook = excepthook
