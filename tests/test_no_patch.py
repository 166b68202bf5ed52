"""Issue 31 §2: importing or registering the plugin changes nothing in xDSL. Every name in
every loaded `xdsl.*` module, every attribute of the classes they define (with the contents
of their lists, dicts and definition records, so a constraint replaced inside an op's IRDL
definition counts), is the same object before `import gpu_alloc, gpu_alloc.dialect,
gpu_alloc.api` and `register(Context())` as after; the fixes the project's own tools install
(`xdsl_fixes.apply()`) are what such a comparison sees. Each run is a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

PROBE = textwrap.dedent(
    """
    import importlib, json, sys, types

    def content(value):
        if isinstance(value, types.ModuleType):  # its names are checked if it is xDSL's
            return None
        if isinstance(value, list | tuple):
            return [id(v) for v in value]
        if isinstance(value, dict):
            return sorted((str(k), id(v)) for k, v in value.items())
        fields = getattr(value, "__dict__", None)
        if isinstance(fields, dict) and not isinstance(value, type) and not callable(value):
            return sorted((k, id(v), content(v) if isinstance(v, list | dict) else None)
                          for k, v in fields.items())
        return None

    def fingerprint():
        seen = {}
        for name, module in sorted(sys.modules.items()):
            if not (name == "xdsl" or name.startswith("xdsl.")) or module is None:
                continue
            for attr, value in sorted(vars(module).items()):
                seen[f"{name}.{attr}"] = [id(value), content(value)]
                if isinstance(value, type) and value.__module__ == name:
                    for key, member in sorted(vars(value).items()):
                        seen[f"{name}.{attr}.{key}"] = [id(member), content(member)]
        return seen

    for name in sys.argv[1].split(","):  # what importing the plugin loads, loaded first
        importlib.import_module(name)
    before = fingerprint()
    import gpu_alloc, gpu_alloc.dialect, gpu_alloc.api
    from xdsl.context import Context
    gpu_alloc.api.register(Context())
    if sys.argv[2] == "apply":
        from gpu_alloc import xdsl_fixes
        xdsl_fixes.apply()
    after = fingerprint()
    changed = sorted(k for k in before if k in after and before[k] != after[k])
    print(json.dumps(changed))
    """
)

LIST_LOADED = (
    "import sys, gpu_alloc, gpu_alloc.dialect, gpu_alloc.api\n"
    "from xdsl.context import Context\n"
    "gpu_alloc.api.register(Context())\n"
    "print(','.join(n for n in sys.modules if n == 'xdsl' or n.startswith('xdsl.')))"
)


def changed_names(then: str) -> list[str]:
    loaded = subprocess.run(
        [sys.executable, "-c", LIST_LOADED], capture_output=True, text=True, check=True
    ).stdout.strip()
    result = subprocess.run(
        [sys.executable, "-c", PROBE, loaded, then], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_import_and_register_leave_xdsl_as_it_was():
    assert changed_names("nothing") == []


def test_the_comparison_sees_the_fixes_the_tools_install():
    changed = changed_names("apply")
    for name in (
        "xdsl.dialects.arith.CmpfOp.parse",
        "xdsl.dialects.scf.ForOp.parse",
        "xdsl.parser.core.Parser.parse_module",
        "xdsl.utils.mlir_lexer.MLIRLexer._lex_string_literal",
    ):
        assert name in changed, name
