"""Reading an input file and writing an output file for the command-line tools.

`gpu-alloc-opt`, `gpu-alloc-sim` and `gpu-alloc-pack` read and write through these two
functions, so every file problem (missing, a directory, unreadable, not UTF-8, an
unwritable output) is the same one-line `UserInputError` in all three.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gpu_alloc.errors import UserInputError

STDIN_NAMES = frozenset({"-", "/dev/stdin"})


def read_input(path: str | Path | None) -> bytes:
    """The bytes of `path` (`None` or `-`: standard input), checked to be UTF-8 text."""
    name = "<stdin>" if path is None or str(path) == "-" else str(path)
    try:
        if path is None or str(path) == "-":
            data = sys.stdin.buffer.read()
        else:
            if Path(path).is_dir():
                raise UserInputError(f"{name}: error: is a directory, not a file")
            data = Path(path).read_bytes()
    except OSError as error:
        raise UserInputError(f"{name}: error: cannot read: {error.strerror or error}") from None
    check_utf8(data, name)
    return data


def check_utf8(data: bytes, name: str) -> None:
    """Raises a `file:line:col` error at the first byte that is not UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        column = error.start - (before.rfind(b"\n") + 1) + 1
        raise UserInputError(
            f"{name}:{line}:{column}: error: not UTF-8 text (byte 0x{data[error.start]:02x})"
        ) from None


def write_output(path: str | Path | None, text: str | bytes) -> None:
    """Writes `text` to `path` (`None` or `-`: standard output) in one go."""
    if path is None or str(path) == "-":
        if isinstance(text, bytes):
            sys.stdout.buffer.write(text)
        else:
            sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        if isinstance(text, bytes):
            Path(path).write_bytes(text)
        else:
            with open(path, "w", encoding="utf-8", newline="") as stream:
                stream.write(text)
    except OSError as error:
        raise UserInputError(f"{path}: error: cannot write: {error.strerror or error}") from None


def mlir_input_extension(path: str | None) -> str:
    """The frontend for `path`: MLIR for `.mlir`, standard input, devices and extension-less
    paths (`/dev/stdin`, pipes); otherwise the file's extension."""
    if path is None or path in STDIN_NAMES or path.startswith("/dev/") or path.startswith("/proc/"):
        return "mlir"
    suffix = Path(path).suffix
    return suffix[1:] if suffix else "mlir"
