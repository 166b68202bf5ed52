"""Renders `SpaceLayout`s (made by `gpu_alloc.tools.layout`) as one SVG memory plan.

One panel per kernel and memory space: x = barrier stage, y = byte offset (0 at the
top), a rectangle per Func over its stage interval and its bytes, labelled inside when
it has room, always listed in the table beside the plot (name, bytes, offset, stages,
bank conflicts) and named in the rectangle's tooltip, so 2 Funcs and 60 both read. A
dashed line marks the lower bound. Rectangles carry `data-*` attributes (func, offset,
bytes, first, last) for tools and tests. Pure text output: same input, same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from gpu_alloc.dialect import FuncSlice

MIN_PLOT_HEIGHT = 320
MAX_PLOT_HEIGHT = 900
ROW = 15
MARGIN = 60
TABLE_WIDTH = 370
FONT = "font-family='DejaVu Sans, Arial, sans-serif'"


@dataclass(frozen=True)
class SpaceLayout:
    """One backing (or one lone Func) of one kernel: what the picture shows."""

    kernel: str
    space: str
    backing: str
    size: int
    stages: int
    slices: list[FuncSlice]
    conflicts: dict[str, int | None]

    @property
    def lower_bound(self) -> int:
        """The most bytes live in one stage: no packing can use fewer."""
        return max(
            (sum(s.bytes for s in self.slices if s.live_at(t)) for t in range(self.stages)),
            default=0,
        )


def _fill(index: int, conflicts: int | None, worst: int) -> str:
    """A pastel by index; with a profile, white (no conflict) to red (the most)."""
    if worst > 0 and conflicts is not None:
        level = conflicts / worst
        green_blue = round(235 - 175 * level)
        return f"rgb(250,{green_blue},{green_blue})"
    if worst == 0 and conflicts is not None:
        return "rgb(235,250,235)"
    hue = (index * 137) % 360
    return f"hsl({hue},60%,82%)"


def _text(x: float, y: float, body: str, size: int = 11, anchor: str = "start", extra=""):
    return (
        f"<text x='{x:.1f}' y='{y:.1f}' font-size='{size}' text-anchor='{anchor}' "
        f"{FONT}{extra}>{escape(body)}</text>"
    )


@dataclass(frozen=True)
class _Frame:
    """Where a panel's plot is and how stages and bytes map to pixels."""

    x0: float
    y0: float
    stage_width: float
    scale: float


def _func_shape(
    frame: _Frame, s: FuncSlice, k: int, conflicts: int | None, worst: int | None, index: int
) -> list[str]:
    """One Func's rectangle (with a tooltip and `data-*` attributes) and its label.
    `worst` is None without a profile."""
    out: list[str] = []
    with_profile = worst is not None
    x0, y0, stage_width, scale = frame.x0, frame.y0, frame.stage_width, frame.scale
    x = x0 + s.first_stage * stage_width
    width = (s.last_stage - s.first_stage + 1) * stage_width
    # Both edges rounded the same way, so Funcs that touch in bytes touch on screen.
    y = round(y0 + s.offset * scale, 2)
    height = round(y0 + s.end * scale, 2) - y
    tip = f"{s.name}: {s.bytes} B at [{s.offset}, {s.end}), stages {s.first_stage}-{s.last_stage}"
    if with_profile:
        tip += f", bank conflicts {'-' if conflicts is None else conflicts}"
    out.append(
        f"<rect x='{x + 1:.1f}' y='{y:.2f}' width='{width - 2:.1f}' height='{height:.2f}' "
        f"fill='{_fill(k, conflicts, worst or 0) if with_profile else _fill(k, None, 0)}' "
        f"stroke='#222' stroke-width='0.6' data-func={quoteattr(s.name)} "
        f"data-offset='{s.offset}' data-bytes='{s.bytes}' data-first='{s.first_stage}' "
        f"data-last='{s.last_stage}'><title>{escape(tip)}</title></rect>"
    )
    if height >= 10:
        label = s.name if not conflicts else f"{s.name} ({conflicts} conflicts)"
        size = int(min(11, height - 2))
        out.append(
            f"<text x='{x + 4:.1f}' y='{y + min(height, 14) - 3:.1f}' font-size='{size}' "
            f"{FONT} clip-path='url(#clip{index}_{k})'>{escape(label)}</text>"
        )
        out.append(
            f"<clipPath id='clip{index}_{k}'><rect x='{x + 1:.1f}' y='{y:.2f}' "
            f"width='{width - 2:.1f}' height='{height:.2f}'/></clipPath>"
        )
    return out


def _panel(layout: SpaceLayout, top: float, index: int) -> tuple[list[str], float]:
    """The SVG elements of one panel and its height."""
    out: list[str] = []
    stages = max(layout.stages, 1)
    plot_width = min(720.0, max(240.0, 90.0 * stages))
    stage_width = plot_width / stages
    plot_height = min(MAX_PLOT_HEIGHT, max(MIN_PLOT_HEIGHT, 15 * len(layout.slices)))
    scale = plot_height / max(layout.size, 1)
    x0, y0 = MARGIN + 10, top + 34
    with_profile = bool(layout.conflicts)
    worst = (
        max((c for c in layout.conflicts.values() if c is not None), default=0)
        if with_profile
        else None
    )
    title = (
        f"kernel '{layout.kernel}' - {layout.space} backing '{layout.backing}': "
        f"{layout.size} B, lower bound {layout.lower_bound} B, {len(layout.slices)} Funcs"
    )
    out.append(_text(10, top + 16, title, 13, extra=" font-weight='bold'"))
    out.append(
        f"<rect x='{x0}' y='{y0}' width='{plot_width:.1f}' height='{plot_height}' "
        "fill='white' stroke='#444' stroke-width='1'/>"
    )
    for t in range(stages):
        x = x0 + t * stage_width
        if t:
            out.append(
                f"<line x1='{x:.1f}' y1='{y0}' x2='{x:.1f}' y2='{y0 + plot_height}' "
                "stroke='#ccc' stroke-dasharray='2,3'/>"
            )
        out.append(_text(x + stage_width / 2, y0 + plot_height + 14, f"stage {t}", 10, "middle"))
    for fraction in (0.0, 0.25, 0.5, 0.75, 1.0):
        byte = round(layout.size * fraction)
        out.append(_text(x0 - 4, y0 + byte * scale + 4, f"{byte}", 9, "end"))
    out.append(_text(x0 - 4, y0 - 6, "bytes", 9, "end"))
    for k, func in enumerate(layout.slices):
        frame = _Frame(x0, y0, stage_width, scale)
        out += _func_shape(frame, func, k, layout.conflicts.get(func.name), worst, index)
    bound_y = y0 + layout.lower_bound * scale
    out.append(
        f"<line x1='{x0}' y1='{bound_y:.2f}' x2='{x0 + plot_width:.1f}' y2='{bound_y:.2f}' "
        "stroke='#06c' stroke-width='1.2' stroke-dasharray='6,4'/>"
    )
    out.append(
        _text(x0 + plot_width - 4, bound_y - 3, f"lower bound {layout.lower_bound} B", 9, "end")
    )
    table = _table(layout, x0 + plot_width + 24, y0, with_profile)
    out += table
    rows_height = ROW * (len(layout.slices) + 1)
    group = f"<g data-kernel={quoteattr(layout.kernel)} data-space='{layout.space}'>"
    return [group, *out, "</g>"], 34 + max(plot_height + 24, rows_height) + 20


def _table(layout: SpaceLayout, x: float, y: float, with_profile: bool) -> list[str]:
    columns = ["Func", "bytes", "offset", "stages"] + (["conflicts"] if with_profile else [])
    offsets = [0, 110, 170, 230, 290]
    out = [
        _text(x + dx, y + 10, name, 10, extra=" font-weight='bold'")
        for name, dx in zip(columns, offsets, strict=False)
    ]
    for k, s in enumerate(sorted(layout.slices, key=lambda s: (s.offset, s.first_stage))):
        conflicts = layout.conflicts.get(s.name)
        cells = [s.name, str(s.bytes), str(s.offset), f"{s.first_stage}-{s.last_stage}"]
        if with_profile:
            cells.append("-" if conflicts is None else str(conflicts))
        row_y = y + 10 + ROW * (k + 1)
        out += [_text(x + dx, row_y, cell, 10) for cell, dx in zip(cells, offsets, strict=False)]
    return out


def render_svg(layouts: Sequence[SpaceLayout], title: str) -> str:
    """The whole picture: a heading, then one panel per layout."""
    body: list[str] = [_text(10, 20, f"{title}: fused layouts (x = barrier stage, y = byte)", 14)]
    top = 32.0
    width = 400.0
    for index, layout in enumerate(layouts):
        elements, height = _panel(layout, top, index)
        body += elements
        top += height
        plot_width = min(720.0, max(240.0, 90.0 * max(layout.stages, 1)))
        width = max(width, MARGIN + 10 + plot_width + 24 + TABLE_WIDTH)
    if not layouts:
        body.append(_text(10, top + 20, "no shared or heap allocations", 12))
        top += 40
    header = (
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        f"<svg xmlns='http://www.w3.org/2000/svg' width='{width:.0f}' height='{top:.0f}' "
        f"viewBox='0 0 {width:.0f} {top:.0f}'>\n"
        f"<rect width='100%' height='100%' fill='#fafafa'/>\n"
    )
    return header + "\n".join(body) + "\n</svg>\n"
