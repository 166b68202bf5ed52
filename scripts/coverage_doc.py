"""Writes the coverage contract's two tables into docs/coverage.md (between their
`<!-- coverage-table ... -->` and `<!-- refusals-table ... -->` markers), from
`gpu_alloc.lowering.coverage`; `tests/test_coverage.py` checks the file matches.

    python scripts/coverage_doc.py [--check]
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from gpu_alloc.lowering.coverage import markdown_table, refusals_table

DOC = Path(__file__).resolve().parent.parent / "docs" / "coverage.md"
TABLES: dict[str, Callable[[], str]] = {
    "coverage-table": markdown_table,
    "refusals-table": refusals_table,
}


def table_span(text: str, marker: str) -> tuple[int, int]:
    """Where the table under `marker` lies in `text` (after the opening marker's line)."""
    start = text.index("\n", text.index(f"<!-- {marker}")) + 1
    return start, text.index(f"<!-- /{marker} -->")


def generated(text: str) -> str:
    for marker, table in TABLES.items():
        start, end = table_span(text, marker)
        text = text[:start] + table() + text[end:]
    return text


def main() -> int:
    text = DOC.read_text()
    if "--check" in sys.argv[1:]:
        return 0 if generated(text) == text else 1
    DOC.write_text(generated(text))
    return 0


if __name__ == "__main__":
    sys.exit(main())
