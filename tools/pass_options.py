"""Pass pipelines as the user wrote them: what is wrong with one, and what each option means.

xDSL reports a pipeline mistake in its own terms (`Provided arguments ["max_shared_byte"] not
found in expected arguments [...]`, `Incompatible types: given ('abc',), expected <class
'int'>`): snake_case names, no option named, no suggestion. `pipeline_problem` checks a
`-p` pipeline first and words the first mistake with the kebab-case names the user types,
the pass and option it is about, and the closest names (`difflib`, as argparse does). It is
used by `gpu-alloc-opt` and, for the stock `xdsl-opt`, by `gpu_alloc.tools.stock_xdsl_opt`.
`pass_options` reads each option's meaning from the docstring under its field, for
`gpu-alloc-opt --help`.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
import textwrap
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gpu_alloc.xdsl_fixes import RepeatedPassOption
from xdsl.passes import ModulePass
from xdsl.utils import arg_spec
from xdsl.utils.exceptions import ArgSpecParseError


@dataclass(frozen=True)
class PassOption:
    name: str
    """As typed on the command line (kebab-case)."""
    type: str
    default: str
    doc: str


def kebab(name: str) -> str:
    return name.replace("_", "-")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)`, or `` when nothing is close."""
    close = difflib.get_close_matches(word, list(choices), n=2, cutoff=0.8)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"'{c}'" for c in close) + "?)"


def _fields(pass_class: type[ModulePass]) -> dict[str, dataclasses.Field[Any]]:
    return {kebab(f.name): f for f in dataclasses.fields(pass_class) if f.init}


def _field_types(pass_class: type[ModulePass]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(pass_class)
    except (NameError, TypeError):  # a hint that does not resolve: skip the value checks
        return {}


def _describe_type(hint: Any) -> str:
    names = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}
    if hint in names:
        return names[hint]
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        parts = [_describe_type(a) for a in typing.get_args(hint) if a is not type(None)]
        return " or ".join(parts)
    if typing.get_origin(hint) is tuple:
        return "a comma-separated list"
    return str(hint)


def pipeline_problem(
    pipeline: str, available: Mapping[str, Callable[[], type[ModulePass]]]
) -> str | None:
    """The first mistake in `pipeline` (a `-p` argument), worded for the user, or None.
    Syntax errors are left to xDSL's parser, which points at the character."""
    try:
        specs = list(arg_spec.parse_pipeline(pipeline))
    except RepeatedPassOption as error:
        return spec_error(error, "pass")
    except ArgSpecParseError:
        return None
    for spec in specs:
        if spec.name not in available:
            return f"unknown pass '{spec.name}'{did_you_mean(spec.name, available)}"
        pass_class = available[spec.name]()
        fields = _fields(pass_class)
        hints = _field_types(pass_class)
        for written, value in spec.parameters.items():
            option = kebab(written)
            if option not in fields:
                known = ", ".join(fields) or "none"
                return (
                    f"pass '{spec.name}' has no option '{option}'"
                    f"{did_you_mean(option, fields)} (its options: {known})"
                )
            hint = hints.get(fields[option].name)
            if hint is None:
                continue
            try:
                # xDSL's own conversion (the one from_spec applies), so the two agree.
                arg_spec._convert_arg_to_type(value, hint)  # pyright: ignore[reportPrivateUsage]
            except ValueError:
                given = ",".join(str(v).lower() if isinstance(v, bool) else str(v) for v in value)
                return (
                    f"option '{option}' of pass '{spec.name}' needs {_describe_type(hint)}, "
                    f"got {repr(given) if value else 'no value'}"
                )
    return None


def spec_error(error: ArgSpecParseError, kind: str) -> str:
    """A `-p`/`-t`/`-f` spec xDSL could not parse, in one line (`kind`: "pass", "target"
    or "frontend", for an option given twice)."""
    if isinstance(error, RepeatedPassOption):
        return f"option '{error.option}' of {kind} '{error.pass_name}' is given twice"
    return " ".join(str(error).split())


def unparsable_spec(target: str, frontend: str | None) -> tuple[str, str]:
    """Which of a driver's `-t` and `-f` specs xDSL's parser refuses: its flag and
    `spec_error`'s kind, for a driver that stopped while parsing them."""
    try:
        arg_spec.parse_spec(target)
    except ArgSpecParseError:
        return f"-t '{target}'", "target"
    return f"-f '{frontend}'", "frontend"


def _field_docs(pass_class: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (`name: type = default` then
    `\"\"\"text\"\"\"`), the convention of xDSL and this project."""
    docs: dict[str, str] = {}
    for klass in reversed(pass_class.__mro__):
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        tree = ast.parse(source)
        body = tree.body[0].body if tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        for statement, following in zip(body, body[1:], strict=False):
            if (
                isinstance(statement, ast.AnnAssign)
                and isinstance(statement.target, ast.Name)
                and isinstance(following, ast.Expr)
                and isinstance(following.value, ast.Constant)
                and isinstance(following.value.value, str)
            ):
                docs[statement.target.id] = " ".join(following.value.value.split())
    return docs


def pass_options(pass_class: type[ModulePass]) -> list[PassOption]:
    """Every option of a pass: its kebab-case name, type, default and meaning."""
    docs = _field_docs(pass_class)
    hints = _field_types(pass_class)
    options: list[PassOption] = []
    for name, field in _fields(pass_class).items():
        if field.default is not dataclasses.MISSING:
            default = field.default
            if default is None:
                shown = "none"
            elif isinstance(default, bool):
                shown = str(default).lower()
            else:
                shown = str(default) if default != "" else '""'
        else:
            shown = "required"
        hint = hints.get(field.name)
        options.append(
            PassOption(name, _describe_type(hint) if hint else "?", shown, docs.get(field.name, ""))
        )
    return options
