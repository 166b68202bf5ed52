"""Hand-written fusions of a kernel's allocations, right and wrong, in the form
fuse-gpu-allocs / flatten-aliases emit (docs/design.md), made by rewriting the
`gpu_alloc.alloc` lines of a kernel's text. The offsets are chosen by hand in each
test; these helpers only spell them as IR.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_ALLOC = re.compile(
    r'^(?P<indent>\s*)(?P<value>%\w+) = "gpu_alloc.alloc"\(\) <\{name = "(?P<name>\w+)"\}> : '
    r"\(\) -> (?P<type>memref<[^>]*>)\s*$"
)


def _place_allocs(
    text: str,
    names: set[str],
    backing: list[str],
    placed: Callable[[str, str, str], list[str]],
) -> str:
    """Replaces each `gpu_alloc.alloc` line of a Func in `names` by `placed(value, name,
    memref_type)`, with the `backing` lines before the first one (same indentation)."""
    lines: list[str] = []
    backing_made = False
    for line in text.splitlines():
        match = _ALLOC.match(line)
        if match is None or match["name"] not in names:
            lines.append(line)
            continue
        indent = match["indent"]
        if not backing_made:
            lines.extend(indent + b for b in backing)
            backing_made = True
        placed_lines = placed(match["value"], match["name"], match["type"])
        lines.extend(indent + p for p in placed_lines)
    return "\n".join(lines) + "\n"


def fuse_shared(
    text: str, offsets: dict[str, int], backing_bytes: int, flatten: bool = False
) -> str:
    """Places each named space-3 Func at its byte offset in one `shared_alloc`."""
    backing_type = f"memref<{backing_bytes}xi8, 3 : i32>"
    backing = [
        '%shared_alloc = "gpu_alloc.alloc"() <{name = "shared_alloc", '
        f"alignment = 16 : i64}}> : () -> {backing_type}"
    ]

    def placed(value: str, name: str, memref_type: str) -> list[str]:
        offset = f"%{name}_offset"
        lines = [f"{offset} = arith.constant {offsets[name]} : index"]
        if flatten:
            lines.append(
                f"{value} = memref.view %shared_alloc[{offset}][] : {backing_type} to {memref_type}"
            )
        else:
            lines.append(
                f'%{name}_ptr = "gpu_alloc.offset_pointer"(%shared_alloc, {offset}) : '
                f"({backing_type}, index) -> !gpu_alloc.ptr<3 : i32>"
            )
            lines.append(
                f'{value} = "gpu_alloc.alias"(%{name}_ptr) <{{name = "{name}"}}> : '
                f"(!gpu_alloc.ptr<3 : i32>) -> {memref_type}"
            )
        return lines

    return _place_allocs(text, set(offsets), backing, placed)


def fuse_heap(text: str, offsets: dict[str, int], per_block_bytes: int) -> str:
    """Places each named space-1 Func at its offset in one per-block `global_alloc`
    backing (like every space-1 allocation, each block has its own)."""
    backing_type = f"memref<{per_block_bytes}xi8, 1 : i32>"

    def placed(value: str, name: str, memref_type: str) -> list[str]:
        return [
            f"%{name}_at = arith.constant {offsets[name]} : index",
            f'%{name}_ptr = "gpu_alloc.offset_pointer"(%global_alloc, %{name}_at) : '
            f"({backing_type}, index) -> !gpu_alloc.ptr<1 : i32>",
            f'{value} = "gpu_alloc.alias"(%{name}_ptr) <{{name = "{name}"}}> : '
            f"(!gpu_alloc.ptr<1 : i32>) -> {memref_type}",
        ]

    backing = [
        '%global_alloc = "gpu_alloc.alloc"() <{name = "global_alloc", backing, '
        f"alignment = 16 : i64}}> : () -> {backing_type}",
    ]
    return _place_allocs(text, set(offsets), backing, placed)


def lower_shared_backing(
    fused: str, backing_bytes: int, symbol: str = "kernel__shared_alloc"
) -> str:
    """lower-gpu-allocs' form of a static shared backing: a space-3 `memref.global`
    in the gpu.module, read with `memref.get_global` (input: `fuse_shared`'s output)."""
    backing_type = f"memref<{backing_bytes}xi8, 3 : i32>"
    alloc = re.compile(r'^(\s*)%shared_alloc = "gpu_alloc.alloc"\(\).*$', re.MULTILINE)
    lowered = alloc.sub(
        rf"\1%shared_alloc = memref.get_global @{symbol} : {backing_type}", fused, count=1
    )
    global_op = (
        f'    "memref.global"() <{{sym_name = "{symbol}", sym_visibility = "private", '
        f"type = {backing_type}, initial_value, alignment = 16 : i64}}> : () -> ()\n"
    )
    head, func, tail = lowered.partition('    "gpu.func"()')
    return head + global_op + func + tail
