"""Renders `SpaceLayout`s as one SVG memory plan: `gpu-alloc-layout` draws fused kernels,
`gpu-alloc-pack --svg` a packed CSV, with this one renderer.

One panel per kernel and memory space (or per packed file): x = barrier stage (or time), y =
byte offset (0 at the top), a rectangle per Func (buffer) over its stage interval and its
bytes. The panel's heading says what fusion bought: unfused -> fused bytes and the saving,
the lower bound (dashed line: what fuse or the packer proved, at least the most bytes live in
one stage) and whether the layout is proven optimal. Between two stages a solid line marks the barrier that begins the second,
labelled with its source line (`gpu.barrier @ line 23`; `inserted` for one fuse added). Every
Func is named in its rectangle when it has room, in its tooltip, and in the table beside the
plot (at most `TABLE_ROWS` rows; the tooltips name the rest). Rectangles carry `data-*`
attributes (func, offset, bytes, first, last) for tools and tests.

Colours: without a profile, a pastel per Func. With one (`--profile-json`), a Func with no
bank conflict is white and one with conflicts is shaded from light red to red (the most in
the panel); a Func the profile has no bank figures for (heap, or not run) keeps its pastel.
A legend under the plot says so. Pure text output: same input, same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # loaded where used: `gpu-alloc-pack` starts without xDSL or numpy
    from gpu_alloc.dialect import FuncSlice
    from gpu_alloc.packing import PackItem


def escape(text: str) -> str:
    """XML character data: `xml.sax.saxutils.escape`, whose module loads `urllib.request`
    (a tenth of the start-up of the tools that draw)."""
    return text.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")


def quoteattr(text: str) -> str:
    """An XML attribute value with its quotes, as `xml.sax.saxutils.quoteattr` writes it."""
    text = escape(text).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in text:
        return f'"{text}"'
    if "'" not in text:
        return f"'{text}'"
    return '"' + text.replace('"', "&quot;") + '"'


MIN_PLOT_HEIGHT = 320
MAX_PLOT_HEIGHT = 900
ROW = 15
MARGIN = 60
TABLE_WIDTH = 370
TABLE_ROWS = 60
"""Rows of the table beside a plot; a larger layout lists the first ones (by offset)."""
LABELLED_STAGES = 24
"""Up to this many stages each is labelled and separated; more get about ten ticks."""
FONT = "font-family='DejaVu Sans, Arial, sans-serif'"
WHITE = "rgb(255,255,255)"
GREY = "rgb(215,215,215)"


@dataclass(frozen=True)
class SpaceLayout:
    """One backing (or one lone Func, or one packed CSV): what a panel shows."""

    kernel: str
    space: str
    backing: str
    size: int
    """The fused (packed) bytes: the plot's height."""
    stages: int
    slices: list[FuncSlice]
    conflicts: dict[str, int | None]
    """Bank conflicts per Func from a profile; empty without one."""
    unfused: int | None = None
    """The bytes before fusion, when the heading should show the saving."""
    proven: bool | None = None
    """Whether no smaller layout exists (None: unknown, not shown)."""
    barriers: dict[int, str] = field(default_factory=dict[int, str])
    """What begins each stage after the first (`gpu.barrier @ line 23`)."""
    axis: str = "stage"
    """What x counts: barrier stages, or the time steps of a packed CSV."""
    noun: str = "Funcs"
    proven_bound: int | None = None
    """The lower bound fuse or the packer proved (`SpaceFusion.lower_bound`,
    `Packing.lower_bound`); None: the max load of `slices`."""

    @property
    def lower_bound(self) -> int:
        """No layout of these Funcs uses fewer bytes: the proven bound when one is given, else
        the most bytes live in one stage."""
        if self.proven_bound is not None:
            return self.proven_bound
        from gpu_alloc.packing import PackItem, lower_bound

        return lower_bound(
            [PackItem(s.first_stage, s.last_stage + 1, s.bytes) for s in self.slices]
        )


def packing_layout(
    title: str,
    names: Sequence[str],
    items: Sequence[PackItem],
    offsets: Sequence[int],
    proven: bool,
    proven_bound: int | None = None,
) -> SpaceLayout:
    """A packed MiniMalloc CSV as one panel (`gpu-alloc-pack --svg`): x = time, each buffer
    over its half-open interval [lower, upper); buffers never live or of size 0 are left out."""
    from gpu_alloc.dialect import FuncSlice

    slices = [
        FuncSlice(name, offset, item.size, item.start, item.end - 1)
        for name, item, offset in zip(names, items, offsets, strict=True)
        if item.occupies_memory
    ]
    peak = max((s.end for s in slices), default=0)
    horizon = max((item.end for item in items), default=1)
    return SpaceLayout(
        title,
        "buffers",
        "",
        peak,
        horizon,
        slices,
        {},
        proven=proven,
        axis="time",
        noun="buffers",
        proven_bound=proven_bound,
    )


def _fill(index: int, conflicts: int | None, worst: int | None) -> str:
    """A pastel by index (never a red: red means conflicts); with a profile (`worst` not
    None): white without conflicts, light red to red with them, grey without figures."""
    if worst is not None:
        if conflicts is None:
            return GREY
        if conflicts == 0:
            return WHITE
        level = conflicts / max(worst, 1)
        green_blue = round(200 - 160 * level)
        return f"rgb({round(255 - 35 * level)},{green_blue},{green_blue})"
    hue = 60 + (index * 137) % 240
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
    width: float
    height: float


def _func_shape(
    frame: _Frame, s: FuncSlice, k: int, conflicts: int | None, worst: int | None, index: int
) -> list[str]:
    """One Func's rectangle (with a tooltip and `data-*` attributes) and its label.
    `worst` is None without a profile."""
    out: list[str] = []
    x = frame.x0 + s.first_stage * frame.stage_width
    width = (s.last_stage - s.first_stage + 1) * frame.stage_width
    # Both edges rounded the same way, so Funcs that touch in bytes touch on screen.
    y = round(frame.y0 + s.offset * frame.scale, 2)
    height = round(frame.y0 + s.end * frame.scale, 2) - y
    tip = f"{s.name}: {s.bytes} B at [{s.offset}, {s.end}), stages {s.first_stage}-{s.last_stage}"
    if worst is not None:
        tip += f", bank conflicts {'-' if conflicts is None else conflicts}"
    inset = min(1.0, width / 4)
    out.append(
        f"<rect x='{x + inset:.2f}' y='{y:.2f}' width='{width - 2 * inset:.2f}' "
        f"height='{height:.2f}' fill='{_fill(k, conflicts, worst)}' stroke='#222' "
        f"stroke-width='0.6' data-func={quoteattr(s.name)} data-offset='{s.offset}' "
        f"data-bytes='{s.bytes}' data-first='{s.first_stage}' data-last='{s.last_stage}'>"
        f"<title>{escape(tip)}</title></rect>"
    )
    if height >= 10 and width >= 24:
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


def _heading(layout: SpaceLayout) -> tuple[str, str]:
    """The panel's two heading lines: what it is, then what fusion bought and the bound."""
    what = f"kernel '{layout.kernel}' - {layout.space} backing '{layout.backing}'"
    if layout.space == "buffers":
        what = f"{layout.kernel}"
    count = len(layout.slices)
    first = f"{what}: {count} {layout.noun if count != 1 else layout.noun[:-1]}"
    if layout.unfused is not None:
        saved = layout.unfused - layout.size
        share = f", {100 * saved / layout.unfused:.0f}%" if layout.unfused else ""
        gain = f"saves {saved} B{share}" if saved >= 0 else f"{-saved} B more than unfused"
        second = f"unfused {layout.unfused} B -> fused {layout.size} B ({gain}); "
    else:
        second = f"{layout.size} B; "
    second += f"lower bound {layout.lower_bound} B"
    if layout.proven is not None:
        second += " (proven optimal)" if layout.proven else " (not proven optimal)"
    return first, second


def _stage_axis(layout: SpaceLayout, frame: _Frame) -> list[str]:
    """Stage labels (or ticks), separators, and the barrier that begins each stage."""
    out: list[str] = []
    stages = max(layout.stages, 1)
    bottom = frame.y0 + frame.height
    if stages <= LABELLED_STAGES:
        ticks = list(range(stages))
        for t in ticks:
            x = frame.x0 + t * frame.stage_width
            if t:
                out.append(_vertical(x, frame.y0, bottom, "#ccc", "2,3"))
            label = f"{layout.axis} {t}" if frame.stage_width >= 60 else str(t)
            out.append(_text(x + frame.stage_width / 2, bottom + 14, label, 10, "middle"))
    else:
        step = max(1, -(-stages // 10))
        for t in range(0, stages, step):
            out.append(_text(frame.x0 + t * frame.stage_width, bottom + 14, str(t), 10, "middle"))
        out.append(_text(frame.x0 + frame.width, bottom + 28, layout.axis, 10, "end"))
    for t, label in sorted(layout.barriers.items()):
        x = frame.x0 + t * frame.stage_width
        out.append(_vertical(x, frame.y0 - 4, bottom, "#555", None, label))
        if frame.stage_width >= 90:  # the label fits between its neighbours
            out.append(_text(x, frame.y0 - 8, label.replace("gpu.barrier", "barrier"), 9, "middle"))
        elif frame.stage_width >= 40:
            out.append(_text(x, frame.y0 - 8, label.split(" @ ")[-1], 9, "middle"))
    return out


def _vertical(
    x: float, top: float, bottom: float, colour: str, dash: str | None, barrier: str = ""
) -> str:
    """A vertical line; a barrier's carries its label (`data-barrier` and a tooltip)."""
    dashes = f" stroke-dasharray='{dash}'" if dash else " stroke-width='1.2'"
    line = f"<line x1='{x:.1f}' y1='{top:.1f}' x2='{x:.1f}' y2='{bottom:.1f}' stroke='{colour}'{dashes}"
    if not barrier:
        return line + "/>"
    return f"{line} data-barrier={quoteattr(barrier)}><title>{escape(barrier)}</title></line>"


def _legend(x: float, y: float, layout: SpaceLayout, worst: int | None) -> list[str]:
    """What the colours of a profiled panel mean (only the colours it uses)."""
    if worst is None:
        return []
    figures = [layout.conflicts.get(s.name) for s in layout.slices]
    entries = []
    if 0 in figures:
        entries.append((WHITE, "no bank conflicts"))
    if worst > 0:
        entries.append(
            (_fill(0, worst, worst), f"the most bank conflicts ({worst}); lighter red: fewer")
        )
    if None in figures:
        entries.append((GREY, "no bank figures (heap or private memory, or not profiled)"))
    out: list[str] = []
    for colour, meaning in entries:
        out.append(
            f"<rect x='{x:.1f}' y='{y - 9:.1f}' width='12' height='10' fill='{colour}' "
            "stroke='#222' stroke-width='0.6'/>"
        )
        out.append(_text(x + 16, y, meaning, 9))
        x += 24 + 5.2 * len(meaning)
    return out


def _panel(layout: SpaceLayout, top: float, index: int) -> tuple[list[str], float]:
    """The SVG elements of one panel and its height."""
    stages = max(layout.stages, 1)
    plot_width = _plot_width(layout)
    plot_height = min(MAX_PLOT_HEIGHT, max(MIN_PLOT_HEIGHT, 15 * len(layout.slices)))
    frame = _Frame(
        MARGIN + 10, top + 62, plot_width / stages, plot_height / max(layout.size, 1),
        plot_width, plot_height,
    )  # fmt: skip
    with_profile = bool(layout.conflicts)
    worst = (
        max((c for c in layout.conflicts.values() if c is not None), default=0)
        if with_profile
        else None
    )
    first, second = _heading(layout)
    out = [
        _text(10, top + 16, first, 13, extra=" font-weight='bold'"),
        _text(10, top + 34, second, 12),
    ]
    out.append(
        f"<rect x='{frame.x0}' y='{frame.y0}' width='{plot_width:.1f}' height='{plot_height}' "
        "fill='white' stroke='#444' stroke-width='1'/>"
    )
    for fraction in (0.0, 0.25, 0.5, 0.75, 1.0):
        byte = round(layout.size * fraction)
        out.append(_text(frame.x0 - 4, frame.y0 + byte * frame.scale + 4, f"{byte}", 9, "end"))
    out.append(_text(frame.x0 - 4, frame.y0 - 8, "bytes", 9, "end"))
    for k, func in enumerate(layout.slices):
        out += _func_shape(frame, func, k, layout.conflicts.get(func.name), worst, index)
    out += _stage_axis(layout, frame)
    bound_y = frame.y0 + layout.lower_bound * frame.scale
    out.append(
        f"<line x1='{frame.x0}' y1='{bound_y:.2f}' x2='{frame.x0 + plot_width:.1f}' "
        f"y2='{bound_y:.2f}' stroke='#06c' stroke-width='1.2' stroke-dasharray='6,4'/>"
    )
    out.append(
        _text(
            frame.x0 + plot_width - 4, bound_y - 3, f"lower bound {layout.lower_bound} B", 9, "end"
        )
    )
    out += _legend(frame.x0, frame.y0 + plot_height + 44, layout, worst)
    out += _table(layout, frame.x0 + plot_width + 24, frame.y0, with_profile)
    rows_height = ROW * (min(len(layout.slices), TABLE_ROWS) + 2)
    group = f"<g data-kernel={quoteattr(layout.kernel)} data-space='{layout.space}'>"
    return [group, *out, "</g>"], 62 + max(plot_height + 56, rows_height) + 20


def _table(layout: SpaceLayout, x: float, y: float, with_profile: bool) -> list[str]:
    columns = ["Func" if layout.noun == "Funcs" else "buffer", "bytes", "offset", layout.axis + "s"]
    columns += ["conflicts"] if with_profile else []
    offsets = [0, 110, 170, 230, 290]
    out = [
        _text(x + dx, y + 10, name, 10, extra=" font-weight='bold'")
        for name, dx in zip(columns, offsets, strict=False)
    ]
    ordered = sorted(layout.slices, key=lambda s: (s.offset, s.first_stage, s.name))
    for k, s in enumerate(ordered[:TABLE_ROWS]):
        conflicts = layout.conflicts.get(s.name)
        cells = [s.name, str(s.bytes), str(s.offset), f"{s.first_stage}-{s.last_stage}"]
        if with_profile:
            cells.append("-" if conflicts is None else str(conflicts))
        row_y = y + 10 + ROW * (k + 1)
        out += [_text(x + dx, row_y, cell, 10) for cell, dx in zip(cells, offsets, strict=False)]
    if len(ordered) > TABLE_ROWS:
        more = f"... and {len(ordered) - TABLE_ROWS} more (each rectangle's tooltip names it)"
        out.append(_text(x, y + 10 + ROW * (TABLE_ROWS + 1), more, 10))
    return out


def _plot_width(layout: SpaceLayout) -> float:
    return min(720.0, max(240.0, 90.0 * max(layout.stages, 1)))


def render_svg(layouts: Sequence[SpaceLayout], title: str, what: str = "fused layouts") -> str:
    """The whole picture: a heading, then one panel per layout."""
    axis = layouts[0].axis if layouts else "stage"
    heading = f"{title}: {what} (x = {'barrier ' if axis == 'stage' else ''}{axis}, y = byte)"
    body: list[str] = [_text(10, 20, heading, 14)]
    top = 32.0
    width = 400.0
    for index, layout in enumerate(layouts):
        elements, height = _panel(layout, top, index)
        body += elements
        top += height
        width = max(width, MARGIN + 10 + _plot_width(layout) + 24 + TABLE_WIDTH)
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
