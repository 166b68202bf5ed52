"""The package's version, written here only: `pyproject.toml` reads it, and every tool's
`--version` prints it."""

from __future__ import annotations

import argparse

__version__ = "0.2.0"


def version_line(tool: str) -> str:
    """What `tool --version` prints: the tool, this package's version and xDSL's."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        xdsl = version("xdsl")
    except PackageNotFoundError:  # pragma: no cover - xDSL is a dependency
        xdsl = "unknown"
    return f"{tool} (gpu_alloc {__version__}, xDSL {xdsl})"


def add_version_option(parser: argparse.ArgumentParser, tool: str) -> None:
    """`--version` for an argparse tool (prints `version_line(tool)`, exits 0)."""
    parser.add_argument("--version", action="version", version=version_line(tool))
