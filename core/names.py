"""Fresh names: one rule for every name this package makes up (allocation names, symbols).

MLIR's `SymbolTable::renameToUnique` and xDSL's (unimplemented) `rename_to_unique` number a
clashing name; this is the same rule for names that are not symbols yet.
"""

from __future__ import annotations

from collections.abc import Container


def unique_name(wanted: str, taken: Container[str]) -> str:
    """`wanted` if it is not `taken`, else the first of `wanted_1`, `wanted_2`, ... that is
    not."""
    name, suffix = wanted, 0
    while name in taken:
        suffix += 1
        name = f"{wanted}_{suffix}"
    return name
