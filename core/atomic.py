"""All or nothing: a pass that fails leaves the module exactly as it was.

`fuse-gpu-allocs` meets this by construction (it plans every kernel before it changes
any). Passes whose diagnostics can come after their first change run their body under
`rollback_on_failure`, which restores the module from a copy taken before.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import ModuleOp


def rollback_on_failure(module: ModuleOp, body: Callable[[], None]) -> None:
    """Runs `body`; if it raises, `module` gets back its regions, attributes and
    properties as they were before, and the exception propagates."""
    snapshot = module.clone()
    try:
        body()
    except BaseException:
        _restore(module, snapshot)
        raise


def _restore(module: ModuleOp, snapshot: ModuleOp) -> None:
    for region, saved in zip(module.regions, snapshot.regions, strict=True):
        for block in list(region.blocks):
            region.detach_block(block)
        saved.move_blocks(region)
    module.attributes.clear()
    module.attributes.update(snapshot.attributes)
    module.properties.clear()
    module.properties.update(snapshot.properties)
