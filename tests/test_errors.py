"""The command-line tools' last line of defence: a bug is one line, not a traceback."""

from __future__ import annotations

import pytest
from gpu_alloc.errors import TRACEBACK_VARIABLE, internal_errors_in_one_line


def test_unexpected_exception_is_one_line_and_exit_1(capsys, monkeypatch):
    monkeypatch.delenv(TRACEBACK_VARIABLE, raising=False)
    with pytest.raises(SystemExit) as exit_info:
        with internal_errors_in_one_line("tool"):
            raise KeyError("boom")
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"tool: internal error: KeyError: 'boom' (set {TRACEBACK_VARIABLE}=1 for details)"
    ]


def test_traceback_variable_lets_the_exception_through(monkeypatch):
    monkeypatch.setenv(TRACEBACK_VARIABLE, "1")
    with pytest.raises(KeyError):
        with internal_errors_in_one_line("tool"):
            raise KeyError("boom")


def test_exit_codes_pass_through():
    with pytest.raises(SystemExit) as exit_info:
        with internal_errors_in_one_line("tool"):
            raise SystemExit(3)
    assert exit_info.value.code == 3
