"""The table `fuse-gpu-allocs{report=true}` prints: where each Func went, and totals."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from gpu_alloc.transforms.fuse.plan import SpacePlan
from gpu_alloc.transforms.lifetimes import Lifetime

SPACE_NAMES = {1: "heap", 3: "shared", 5: "private"}


@dataclass(frozen=True)
class FuncRow:
    name: str
    space: int
    bytes: int | None
    offset: int | None
    lifetime: Lifetime


@dataclass
class SpaceSummary:
    space: int
    backing: str
    plan: SpacePlan
    rows: list[FuncRow]


@dataclass
class KernelReport:
    kernel: str
    stages: int
    not_intact_reason: str | None
    spaces: list[SpaceSummary] = field(default_factory=list[SpaceSummary])

    def add_space(self, space: int, backing: str, plan: SpacePlan, rows: list[FuncRow]) -> None:
        self.spaces.append(SpaceSummary(space, backing, plan, rows))


def _bytes(value: int | None) -> str:
    return "dynamic" if value is None else str(value)


def format_report(reports: Sequence[KernelReport]) -> str:
    lines: list[str] = []
    for report in reports:
        # A symbol is `@name`; a launch body is named `gpu.launch in f` (no symbol).
        name = report.kernel if " " in report.kernel else f"@{report.kernel}"
        lines.append(f"kernel {name}: {report.stages} barrier stage(s)")
        if report.not_intact_reason:
            lines.append(
                f"  no reuse: {report.not_intact_reason}; every allocation lives for the whole kernel"
            )
        if not report.spaces:
            lines.append("  no shared or heap allocations")
        if report.spaces:
            lines.append(f"  {'Func':<16} {'space':<7} {'bytes':>8} {'offset':>8}  lifetime")
        for summary in report.spaces:
            for row in summary.rows:
                lines.append(
                    f"  {row.name:<16} {SPACE_NAMES[row.space]:<7} {_bytes(row.bytes):>8} "
                    f"{_bytes(row.offset):>8}  [{row.lifetime.start}, {row.lifetime.end - 1}]"
                )
            plan = summary.plan
            dynamic = " + dynamic" if plan.dynamic_order else ""
            halide = "n/a" if plan.halide_bytes is None else str(plan.halide_bytes)
            verdict = "optimal" if plan.optimal else "not proven optimal"
            if plan.time_limit_hit:
                verdict += ", stopped by time-limit"
            lines.append(
                f"  {SPACE_NAMES[summary.space]} backing '{summary.backing}': "
                f"unfused {plan.unfused_bytes} B, fused {plan.static_bytes} B{dynamic}, "
                f"lower bound {plan.lower_bound} B, Halide grouping {halide} B ({verdict})"
            )
    return "\n".join(lines)
