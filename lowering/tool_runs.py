"""Running an external tool on a file: one line of its stderr when it refuses."""

from __future__ import annotations

import subprocess


class ToolRejected(Exception):
    """A target's tool refused our output; the message is its first error line."""


def run_tool(command: list[str], what: str) -> subprocess.CompletedProcess[str]:
    """Run `command`; `ToolRejected` naming `what` with the tool's first error line."""
    from gpu_alloc.lowering.toolchain import ToolchainError

    try:
        completed = subprocess.run(command, capture_output=True, text=True, check=False)
    except OSError as error:
        raise ToolchainError(f"cannot run {command[0]}: {error.strerror}") from None
    if completed.returncode != 0:
        lines = completed.stderr.strip().splitlines() or completed.stdout.strip().splitlines()
        errors = [line for line in lines if "error" in line.lower()] or lines or ["no output"]
        raise ToolRejected(f"{what}: {errors[0]}")
    return completed
