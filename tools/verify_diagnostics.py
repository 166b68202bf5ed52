"""`gpu-alloc-opt --verify-diagnostics`: check a test's `expected-*` annotations, as mlir-opt.

An annotation is a comment in the input:

    // expected-error {{substring of the message}}           on this line
    // expected-remark@+1 {{...}}   @-2, @above, @below:      another line
    // expected-warning-re {{needs {{[0-9]+}} bytes}}        `-re`: {{...}} is a regex

`@above`/`@below` name the nearest line above/below that holds no annotation. As in
mlir-opt, `expected-remark @below {{...}}` (spaces before `@`) is read too, the message runs
to the line's last `}}`, and an `-re` message is literal text with Python regex groups
`{{...}}`. Input the embedded parser cannot read goes through the MLIR bridge, as without
`--verify-diagnostics`. Kinds: `error`, `warning`, `remark`, `note`. Every diagnostic of the run (a parse or verify error, a pass's
error, a remark of a pass, an error of the `ptx` target) must match one annotation of its
kind on its line, and every annotation must be matched; each annotation matches once. With
`--split-input-file` each chunk is checked on its own. A mismatch is reported as
`file:line:col: error: unexpected remark: ...` or `... error: expected error "..." was not
produced`, and the exit code is 1. A diagnostic without a source location (an option
error) cannot be expected, so it is always unexpected.

Inputs without any annotation keep xDSL's `--verify-diagnostics` convention (each failing
chunk's diagnostic printed on stdout, exit code 0) so that xDSL-style tests, which check
that output with FileCheck, run unchanged under `gpu-alloc-opt`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from gpu_alloc.tools.diagnostics import format_span
from xdsl.utils.lexer import Span

ANNOTATION = re.compile(
    r"expected-(?P<kind>error|warning|remark|note)(?P<regex>-re)?"
    r" *(?:@(?P<where>[+-]\d+|above|below))? *\{\{(?P<message>.*?)\}\}"
    r"(?=[ \t]*$|[ \t]+(?://[ \t]*)?expected-)",
    re.MULTILINE,
)
"""As mlir-opt: spaces may come before `@` and `{{`; the message runs to the last `}}` of
the line (so `{{[0-9]+}}` groups fit inside), or to the `}}` before a further annotation."""
REGEX_GROUP = re.compile(r"\{\{(.*?)\}\}")


@dataclass
class Expectation:
    kind: str
    line: int
    """1-based line, within the chunk, that the diagnostic must be on."""
    message: str
    is_regex: bool
    at_line: int
    """Where the annotation itself is (1-based line and column in the chunk)."""
    at_column: int
    matched: bool = False

    def matches(self, kind: str, line: int, message: str) -> bool:
        if self.matched or kind != self.kind or line != self.line:
            return False
        if self.is_regex:
            return re.search(mlir_regex(self.message), message) is not None
        return self.message in message


def mlir_regex(text: str) -> str:
    """An `-re` annotation's text as mlir-opt reads it: literal, except each `{{...}}` group,
    which is a regular expression."""
    parts: list[str] = []
    position = 0
    for group in REGEX_GROUP.finditer(text):
        parts += [re.escape(text[position : group.start()]), f"({group.group(1)})"]
        position = group.end()
    return "".join([*parts, re.escape(text[position:])])


@dataclass(frozen=True)
class Diagnostic:
    kind: str
    message: str
    span: Span[Any] | None = field(compare=False)
    """Where it is; None when it has no location."""
    pass_name: str = ""
    """The pass that emitted a remark."""


def has_annotations(text: str) -> bool:
    return ANNOTATION.search(text) is not None


def parse_expectations(text: str) -> list[Expectation]:
    """The annotations of one chunk, with the line each one expects its diagnostic on."""
    lines = text.split("\n")
    annotated = [ANNOTATION.search(line) is not None for line in lines]
    found: list[Expectation] = []
    for index, line in enumerate(lines):
        for match in ANNOTATION.finditer(line):
            target = _target_line(match.group("where"), index, annotated)
            found.append(
                Expectation(
                    match.group("kind"),
                    target + 1,
                    match.group("message").strip(),
                    match.group("regex") is not None,
                    index + 1,
                    match.start() + 1,
                )
            )
    return found


def _target_line(where: str | None, index: int, annotated: Sequence[bool]) -> int:
    if where is None:
        return index
    if where == "above":
        target = index - 1
        while target > 0 and annotated[target]:
            target -= 1
        return target
    if where == "below":
        target = index + 1
        while target < len(annotated) - 1 and annotated[target]:
            target += 1
        return target
    return index + int(where)


def check(
    expectations: list[Expectation],
    diagnostics: Sequence[Diagnostic],
    file_name: str,
    chunk: str,
    line_offset: int,
) -> list[str]:
    """The mismatches between a chunk's diagnostics and its annotations, each a located
    `error:` with the source line and a caret."""
    problems: list[str] = []
    for diagnostic in diagnostics:
        line = diagnostic.span.get_location().line if diagnostic.span is not None else None
        match = next(
            (
                e
                for e in expectations
                if line is not None and e.matches(diagnostic.kind, line, diagnostic.message)
            ),
            None,
        )
        if match is not None:
            match.matched = True
            continue
        message = f"unexpected {diagnostic.kind}: {diagnostic.message}"
        if diagnostic.span is None:
            problems.append(f"{file_name}: error: {message}")
        else:
            problems.append(format_span(diagnostic.span, message, line_offset))
    lines = chunk.split("\n")
    for e in expectations:
        if not e.matched:
            line = lines[e.at_line - 1]
            caret = " " * (e.at_column - 1) + "^"
            problems.append(
                f"{file_name}:{e.at_line + line_offset}:{e.at_column}: error: expected {e.kind} "
                f'"{e.message}" was not produced\n{line}\n{caret}'
            )
    return problems
