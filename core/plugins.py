"""A target's code, found from its description: `module:attribute` references.

A `TargetDescription` (`gpu_alloc.targets`, standard library only) names the code that
serves it as text: its `-t` driver (`driver`, an xDSL `Target`) and its tools' check
(`tool_check`). `loaded(reference)` imports that module and returns the attribute; the
registries that list targets (`gpu_alloc.universe`, `lowering.tool_checks`) are built
from `TARGETS` with it, so a new target is its description, its backend and its tool
driver, and nothing else lists it.
"""

from __future__ import annotations

import importlib
from typing import Any


def loaded(reference: str) -> Any:
    """The attribute `reference` (`package.module:name`) names, its module imported."""
    module_name, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module_name), attribute)
