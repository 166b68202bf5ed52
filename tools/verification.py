"""Whole-module verification for the command-line tools, located at the offending op.

`first_invalid_op` checks what xDSL's `verify()` checks, and four things it does not:

* every op's verifier failure, whatever it raises: xDSL's verifiers and attribute
  constructors raise `VerifyException` but also plain `Exception`, `ValueError` or
  `OverflowError` (a 0-d memref indexed with one index) — all are the input's fault;
* SSA dominance: a value is used only where its definition dominates the use (same
  block: defined above; a nested region: defined above the enclosing op; another block
  of a CFG region: a dominating block). The error points at the use;
* the `gpu_alloc.*` attributes (`gpu_alloc.dialect.attributes`): declared names, values
  of the declared kind;
* symbols: no empty `sym_name` (a kernel named "" cannot be emitted);
* memref sizes: no dimension, element count or byte size of a static memref type above
  2^63 - 1 (what an `index` holds).

The walk is iterative, so deeply nested IR is no problem for this part.
"""

from __future__ import annotations

from gpu_alloc.dialect.attributes import attribute_error
from gpu_alloc.memref_sizes import MAX_INDEX
from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue


def first_invalid_op(module: Operation) -> tuple[Operation, str] | None:
    """The first op (innermost first, then in order) that does not verify, with why."""
    dominance = _Dominance()
    for op in _post_order(module):
        message = (
            _op_error(op)
            or attribute_error(op)
            or _symbol_error(op)
            or _size_error(op)
            or dominance.use_error(op)
        )
        if message is not None:
            return op, message
    return None


def _post_order(root: Operation):
    """Ops nested in `root` before `root`, each block's ops in order (xDSL's verify order)."""
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            yield op
            continue
        stack.append((op, True))
        children = [
            child for region in op.regions for block in region.blocks for child in block.ops
        ]
        stack.extend((child, False) for child in reversed(children))


def _op_error(op: Operation) -> str | None:
    try:
        op.verify(verify_nested_ops=False)
    except RecursionError:
        raise
    except Exception as error:  # xDSL verifiers raise more than VerifyException
        return str(error) or type(error).__name__
    return None


def _symbol_error(op: Operation) -> str | None:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    if isinstance(name, StringAttr) and not name.data:
        return f"'{op.name}' has an empty symbol name"
    return None


def _size_error(op: Operation) -> str | None:
    types: list[Attribute] = [r.type for r in op.results]
    for region in op.regions:
        for block in region.blocks:
            types.extend(a.type for a in block.args)
    for type in types:
        if isinstance(type, MemRefType) and (message := _memref_size_error(type)):
            return message
    return None


def _memref_size_error(type: MemRefType) -> str | None:
    shape = type.get_shape()
    if any(d > MAX_INDEX for d in shape):
        return f"{type}: a dimension is above 2^63 - 1"
    if any(d < 0 for d in shape):
        return None  # dynamic
    count = 1
    for d in shape:
        count *= d
    width = getattr(type.element_type, "bitwidth", 8)
    if not isinstance(width, int):
        width = 8
    if count * max(1, (width + 7) // 8) > MAX_INDEX:
        return f"{type}: {count} elements is more than 2^63 - 1 bytes"
    return None


class _Dominance:
    """Answers "does this definition dominate this use?" for ops in any nesting."""

    def __init__(self) -> None:
        self._dominators: dict[Region, dict[Block, frozenset[Block]]] = {}
        self._positions: dict[Block, dict[Operation, int]] = {}

    def use_error(self, op: Operation) -> str | None:
        for index, operand in enumerate(op.operands):
            if not self._dominates(operand, op):
                name = operand.name_hint or f"operand #{index}"
                return (
                    f"operand #{index} of '{op.name}' (%{name}) is used before it is "
                    "defined (its definition does not dominate this use)"
                )
        return None

    def _dominates(self, value: SSAValue, user: Operation) -> bool:
        if isinstance(value, OpResult):
            definer: Operation | None = value.op
            block = value.op.parent_block()
        elif isinstance(value, BlockArgument):
            definer = None
            block = value.block
        else:
            return True
        if block is None:
            return False
        ancestor: Operation | None = user
        while ancestor is not None:
            ancestor_block = ancestor.parent_block()
            if ancestor_block is None:
                return False
            if ancestor_block is block:
                return definer is None or self._is_before(definer, ancestor, block)
            region = ancestor_block.parent
            if region is not None and region is block.parent:
                return block in self._block_dominators(region)[ancestor_block]
            ancestor = ancestor.parent_op()
        return False

    def _is_before(self, first: Operation, second: Operation, block: Block) -> bool:
        """Whether `first` comes strictly before `second` in `block`, their common block."""
        positions = self._positions.get(block)
        if positions is None:
            positions = {op: i for i, op in enumerate(block.ops)}
            self._positions[block] = positions
        return positions[first] < positions[second]

    def _block_dominators(self, region: Region) -> dict[Block, frozenset[Block]]:
        if region not in self._dominators:
            self._dominators[region] = _dominators(region)
        return self._dominators[region]


def _dominators(region: Region) -> dict[Block, frozenset[Block]]:
    """Each block's dominators (itself included); unreachable blocks are dominated by all."""
    blocks = list(region.blocks)
    if not blocks:
        return {}
    entry = blocks[0]
    every = frozenset(blocks)
    predecessors: dict[Block, list[Block]] = {b: [] for b in blocks}
    for block in blocks:
        terminator = block.last_op
        for successor in terminator.successors if terminator is not None else ():
            if successor in predecessors:
                predecessors[successor].append(block)
    dominators = {b: (frozenset([b]) if b is entry else every) for b in blocks}
    changed = True
    while changed:
        changed = False
        for block in blocks[1:]:
            incoming = [dominators[p] for p in predecessors[block]]
            updated = (frozenset.intersection(*incoming) if incoming else every) | {block}
            if updated != dominators[block]:
                dominators[block] = updated
                changed = True
    return dominators
