"""The coverage contract's vocabulary: its columns (`<target>/<backend>`), the element
types a row names, and `Row`, one op of the contract (`gpu_alloc.lowering.coverage`
holds the table and the checks)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gpu_alloc.targets import TARGETS

BACKENDS = ("llvmlite", "mlir")
"""The backends of the LLVM targets (`TargetDescription.backends`: OpenCL C has `c`)."""
COLUMNS = tuple(f"{name}/{backend}" for name, t in TARGETS.items() for backend in t.backends)
"""`<target>/<backend>`: every way to emit a kernel."""
INTEGERS = ("i1", "i8", "i16", "i32", "i64")
WIDE_INTEGERS = INTEGERS[1:]
FLOATS = ("f16", "bf16", "f32", "f64")
ALL = (*INTEGERS, *FLOATS)


@dataclass(frozen=True)
class Row:
    """One op of the contract.

    `refused` maps a column (`amdgcn/mlir`), or a column and an element type
    (`spirv/llvmlite:bf16`), to why it does not lower the op there; every other column
    and type lowers it."""

    op: str
    form: str
    types: tuple[str, ...]
    note: str = ""
    refused: dict[str, str] = field(default_factory=dict[str, str])

    def refusal(self, column: str, element: str | None = None) -> str | None:
        """Why `column` does not lower the op (on `element`), or None if it does."""
        for part in element.split(">") if element is not None else ():  # casts: both
            refused_type = TARGETS[column.split("/")[0]].refused_types.get(part)
            if refused_type is not None:
                return refused_type
        if column in self.refused:
            return self.refused[column]
        return None if element is None else self.refused.get(f"{column}:{element}")

    @property
    def columns(self) -> tuple[str, ...]:
        """The columns that lower the op on at least one of its types."""
        return tuple(
            c
            for c in COLUMNS
            if c not in self.refused and any(self.refusal(c, t) is None for t in self.types)
        )


def refused(reason: str, *columns: str) -> dict[str, str]:
    """`columns` (each `<target>/<backend>`, `<target>/*` or `*/<backend>`, with an
    optional `:<type>`) refused for `reason`."""
    result: dict[str, str] = {}
    for pattern in columns:
        where, _, element = pattern.partition(":")
        target, backend = where.split("/")
        for column in COLUMNS:
            t, b = column.split("/")
            if target in ("*", t) and backend in ("*", b):
                result[f"{column}:{element}" if element else column] = reason
    return result


def _rows(
    names: str, form: str, types: tuple[str, ...], note: str = "", **kwargs: dict[str, str]
) -> list[Row]:
    return [Row(f"{name}", form, types, note=note, **kwargs) for name in names.split()]
