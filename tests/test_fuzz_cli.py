"""The mutation fuzzer (`tests/fuzz_cli.py`) at a size for CI, and checks that it detects."""

from __future__ import annotations

from pathlib import Path

import fuzz_cli
import pytest

CI_CASES = 200


def test_fuzzer_finds_no_internal_error_or_bad_exit_code():
    codes, failures = fuzz_cli.fuzz(CI_CASES, seed=0)
    report = "\n".join(f"{case.describe()}: {problem}" for case, problem in failures)
    assert not failures, report
    assert sum(codes.values()) == CI_CASES
    # Every tool ran, and both accepted and rejected inputs occurred.
    for tool in ("opt", "sim", "pack"):
        assert codes.get((tool, 0), 0) > 0, (tool, codes)
        assert codes.get((tool, 1), 0) > 0, (tool, codes)


def test_cases_are_deterministic():
    mlir = fuzz_cli.mlir_seeds()
    assert [fuzz_cli.make_case(n, 3, mlir) for n in range(30)] == [
        fuzz_cli.make_case(n, 3, mlir) for n in range(30)
    ]


@pytest.mark.parametrize(
    "outcome, tool, expected",
    [
        (fuzz_cli.Outcome(1, "", "x: internal error: KeyError"), "opt", "internal error"),
        (fuzz_cli.Outcome(1, "", "Traceback (most recent call last):\n  ..."), "sim", "Traceback"),
        (fuzz_cli.Outcome(2, "", "usage: ..."), "pack", "exit code 2"),
        (fuzz_cli.Outcome(3, "", "race"), "opt", "exit code 3"),
    ],
)
def test_problems_are_detected(outcome: fuzz_cli.Outcome, tool: str, expected: str):
    problem = fuzz_cli._problem(tool, outcome)
    assert problem is not None and expected in problem


def test_sim_exit_codes_for_findings_are_allowed():
    for code in (0, 1, 3, 4, 5):
        assert fuzz_cli._problem("sim", fuzz_cli.Outcome(code, "", "")) is None


def test_unreadable_output_is_a_failure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The read-back check: opt's exit-0 output must parse again."""
    case = fuzz_cli.Case(0, "opt", "x", (), "builtin.module {}\n", ("-p", "flatten-aliases"))
    original = fuzz_cli.run_tool

    def broken_printer(tool: str, args):
        outcome = original(tool, args)
        return fuzz_cli.Outcome(outcome.code, outcome.out + "%junk", outcome.err)

    monkeypatch.setattr(fuzz_cli, "run_tool", broken_printer)
    assert "does not read back" in (fuzz_cli.check_case(case, tmp_path) or "")
