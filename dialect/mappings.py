r"""How a parallel loop's iterations are spread over a GPU: the one model of MLIR's
mapping attributes, which the passes' thread-dependence analysis asks.

MLIR distributes a parallel loop with a mapping attribute per induction variable:

| loop | mapping | who runs an iteration | within one block |
|---|---|---|---|
| `scf.forall` | `#gpu.block<x\|y\|z\|linear_dim_N>` | a thread block | uniform |
| `scf.forall` | `#gpu.thread<...>`, `#gpu.warp<...>`, `#gpu.warpgroup<...>`, `#gpu.lane<...>`, `#gpu.memory_space<...>` | a thread, warp, warpgroup, lane | thread-dependent |
| `scf.parallel` | `#gpu.loop_dim_map<processor = block_x\|y\|z, ...>` | a thread block | uniform |
| `scf.parallel` | `#gpu.loop_dim_map<processor = thread_x\|y\|z, ...>` | a thread | thread-dependent |
| `scf.parallel` | `#gpu.loop_dim_map<processor = sequential, ...>` | every thread, each iteration | uniform |
| `scf.forall`, `scf.parallel` without a mapping, `affine.parallel` (which has none) | none | every thread, each iteration (MLIR's `--convert-scf-to-cf`, `--lower-affine`; the project's `pre_lowering`) | uniform |

A block-mapped or unmapped loop is uniform within the block: every thread of the block
runs the same iterations, whose induction variables depend only on the bounds (and the
block ids), so the loop is uniform when its bounds are. `loop_mapping(op)` answers for one loop: whether it is block-uniform,
and for a thread-dependent loop the reason a refusal names. IREE's
`#iree_codegen.workgroup_mapping<x|y|z>` (its name for a block mapping) reads as
`#gpu.block`. A mapping attribute this table does not know is thread-dependent, the
attribute named in the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, Operation

BLOCK_MAPPINGS = frozenset({"gpu.block", "iree_codegen.workgroup_mapping"})
"""`scf.forall` mapping attributes that give each iteration to a whole thread block."""

THREAD_MAPPINGS = frozenset(
    {"gpu.thread", "gpu.warp", "gpu.warpgroup", "gpu.lane", "gpu.memory_space"}
)
"""`scf.forall` mapping attributes that give iterations to threads or groups of them."""

PARALLEL_LOOPS = frozenset({"scf.forall", "scf.parallel", "affine.parallel"})
"""The parallel loops whose distribution this module reads."""

_PROCESSOR = re.compile(r"processor\s*=\s*(\w+)")


@dataclass(frozen=True)
class LoopMapping:
    """How one parallel loop is distributed: `uniform` within a block, or not, and why."""

    uniform: bool
    reason: str
    """What the mapping says, for a refusal (`mapped to #gpu.thread<x>`)."""


_SEQUENTIAL = LoopMapping(True, "without a mapping: every thread runs every iteration")


def _text(attr: Attribute) -> str:
    return str(attr)


def _forall_mapping(mapping: ArrayAttr | None) -> LoopMapping:
    if mapping is None or not mapping.data:
        return _SEQUENTIAL
    for attr in mapping.data:
        name = getattr(attr, "name", "")
        if name in THREAD_MAPPINGS:
            return LoopMapping(
                False,
                f"mapped to {_text(attr)}: its iterations are spread over the threads of a block",
            )
        if name not in BLOCK_MAPPINGS:
            return LoopMapping(
                False, f"mapped to {_text(attr)}, a mapping without a known distribution"
            )
    return LoopMapping(True, f"mapped to {_text(mapping.data[0])}: uniform within a block")


def _parallel_mapping(mapping: Attribute | None) -> LoopMapping:
    if not isinstance(mapping, ArrayAttr) or not mapping.data:
        return _SEQUENTIAL
    for attr in mapping.data:
        found = _PROCESSOR.search(_text(attr))
        if getattr(attr, "name", "") != "gpu.loop_dim_map" or found is None:
            return LoopMapping(
                False, f"mapped to {_text(attr)}, a mapping without a known distribution"
            )
        processor = found.group(1)
        if not (processor.startswith("block_") or processor == "sequential"):
            return LoopMapping(
                False,
                f"mapped to processor {processor}: its iterations are spread over the threads of a block",
            )
    return LoopMapping(True, "mapped to blocks or run sequentially: uniform within a block")


def block_dimensions(op: Operation) -> list[str] | None:
    """For an `scf.forall` mapped to thread blocks: each induction variable's block
    dimension as its mapping names it (`x`, `y`, `z` or `linear_dim_N`); None for any
    other loop."""
    if op.name != "scf.forall":
        return None
    mapping = op.properties.get("mapping") or op.attributes.get("mapping")
    if not isinstance(mapping, ArrayAttr) or not mapping.data:
        return None
    if any(getattr(attr, "name", "") not in BLOCK_MAPPINGS for attr in mapping.data):
        return None
    return [_parameter(attr) for attr in mapping.data]


def _parameter(attr: Attribute) -> str:
    """`x` for `#gpu.block<x>` (kept as its text, `mlir_attributes`)."""
    text = getattr(attr, "text", None)
    if isinstance(text, StringAttr):
        return text.data.strip()
    found = re.search(r"<\s*(\w+)\s*>", _text(attr))
    return found.group(1) if found else _text(attr)


def loop_mapping(op: Operation) -> LoopMapping | None:
    """How the parallel loop `op` is distributed (see the table); None for an op that is
    not one of `PARALLEL_LOOPS`."""
    if op.name == "scf.forall":
        mapping = op.properties.get("mapping") or op.attributes.get("mapping")
        return _forall_mapping(mapping if isinstance(mapping, ArrayAttr) else None)
    if op.name == "scf.parallel":
        return _parallel_mapping(op.attributes.get("mapping") or op.properties.get("mapping"))
    if op.name == "affine.parallel":
        return _SEQUENTIAL
    return None


__all__ = [
    "BLOCK_MAPPINGS",
    "PARALLEL_LOOPS",
    "THREAD_MAPPINGS",
    "LoopMapping",
    "block_dimensions",
    "loop_mapping",
]
