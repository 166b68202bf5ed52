"""What every spelling of a memref memory space means: the one table the project reads.

MLIR 22 spells the memory a buffer lives in many ways. Each is read here as the IR
contract's number (NVVM's: 0 generic, 1 global, 3 shared/workgroup, 5 private), the
number `dialect.ops.memory_space_of`, `dialect.memory.space_of` and every pass, the
simulator, the lowering and the targets then ask about:

| spelling | 0 (generic) | 1 (global) | 3 (workgroup) | 5 (private) |
|---|---|---|---|---|
| integer, `#llvm.address_space<N>` | 0 | 1, 4 (constant) | 3 | 5 |
| `#gpu.address_space<...>` | | `global` | `workgroup` | `private` |
| `#spirv.storage_class<...>` | `Generic` | `CrossWorkgroup`, `StorageBuffer`, `PhysicalStorageBuffer`, `Uniform`, `UniformConstant`, `PushConstant` | `Workgroup` | `Function`, `Private` |
| `#nvvm.memory_space<...>` | `generic` | `global`, `constant` (4) | `shared` | `local` |
| `#xevm.addr_space<...>` | `generic` | `global`, `constant` (4) | `shared` | `private` |

`#amdgpu.address_space<fat_raw_buffer|buffer_rsrc|fat_structured_buffer>` and
`#ptr.generic_space` are global memory the target addresses in its own way: they read as
no number (the default, global, memory) and are kept as written. Any other spelling, or
another word or number in one of these (`#spirv.storage_class<Input>`,
`#nvvm.memory_space<shared_cluster>`, `7 : i32`), is *unclassified*: `unclassified(attr)`
says so, and an allocation in it is a located diagnostic
(`dialect.memory.check_memory_spaces`), never a buffer silently taken for global memory.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute

GENERIC, GLOBAL, SHARED, CONSTANT, PRIVATE = 0, 1, 3, 4, 5

_INTEGERS = frozenset({GENERIC, GLOBAL, SHARED, CONSTANT, PRIVATE})
"""The integers the IR contract (NVVM's numbers, AMDGPU's alike) gives a meaning to;
4, constant memory, is global memory the kernel only reads."""

_WORDS = {
    "gpu.address_space": {"global": GLOBAL, "workgroup": SHARED, "private": PRIVATE},
    "spirv.storage_class": {
        "Generic": GENERIC,
        "CrossWorkgroup": GLOBAL,
        "StorageBuffer": GLOBAL,
        "PhysicalStorageBuffer": GLOBAL,
        "Uniform": GLOBAL,
        "UniformConstant": GLOBAL,
        "PushConstant": GLOBAL,
        "Workgroup": SHARED,
        "Function": PRIVATE,
        "Private": PRIVATE,
    },
    "nvvm.memory_space": {
        "generic": GENERIC,
        "global": GLOBAL,
        "constant": CONSTANT,
        "shared": SHARED,
        "local": PRIVATE,
    },
    "xevm.addr_space": {
        "generic": GENERIC,
        "global": GLOBAL,
        "constant": CONSTANT,
        "shared": SHARED,
        "private": PRIVATE,
    },
    "amdgpu.address_space": {
        "fat_raw_buffer": None,
        "buffer_rsrc": None,
        "fat_structured_buffer": None,
    },
}
"""Word-spelled memory spaces: the attribute's name, then its word's number (None:
global memory the target addresses its own way, kept as written)."""

_NO_NUMBER = frozenset({"ptr.generic_space"})
"""Memory spaces without a parameter that are the default memory."""


class _Unclassified:
    def __repr__(self) -> str:
        return "UNCLASSIFIED"


UNCLASSIFIED = _Unclassified()
"""What `contract_number` answers for a spelling this table has no meaning for."""


def _word(attr: Attribute) -> str | None:
    """The word inside `#dialect.name<word>`: an enum attribute (the project's `#gpu.address_space`), xDSL's,
    or one kept as its text (`syntax.mlir_attributes`)."""
    if isinstance(data := getattr(attr, "data", None), str):  # an `EnumAttribute`
        return data.strip()
    for field in ("value", "text"):
        parameter = getattr(attr, field, None)
        if isinstance(parameter, StringAttr):
            return parameter.data.strip()
        if parameter is not None and hasattr(parameter, "data"):
            data = parameter.data
            if isinstance(data, str):
                return data.strip()
    return None


def contract_number(memory_space: Attribute) -> int | None | _Unclassified:
    """The IR contract's number of a memref's memory space attribute (see the table);
    None for no memory space (or a default one kept as written); `UNCLASSIFIED` for a
    spelling without a meaning here."""
    if isinstance(memory_space, NoneAttr):
        return None
    if isinstance(memory_space, IntegerAttr):
        number = memory_space.value.data
        return number if number in _INTEGERS else UNCLASSIFIED
    name = getattr(memory_space, "name", "")
    if name in _NO_NUMBER:
        return None
    if name == "llvm.address_space":
        word = _word(memory_space)
        if word is not None and word.lstrip("-").isdigit():
            return int(word) if int(word) in _INTEGERS else UNCLASSIFIED
        return UNCLASSIFIED
    words = _WORDS.get(name)
    if words is None:
        return UNCLASSIFIED
    word = _word(memory_space)
    if word is None or word not in words:
        return UNCLASSIFIED
    return words[word]


def space_number(memory_space: Attribute) -> int | None:
    """`contract_number`, with an unclassified integer kept as it is (a verifier names
    it) and another unclassified spelling read as no number (the callers that must not
    pass one over ask `unclassified` first)."""
    number = contract_number(memory_space)
    if isinstance(number, _Unclassified):
        return memory_space.value.data if isinstance(memory_space, IntegerAttr) else None
    return number


def unclassified(memory_space: Attribute) -> bool:
    """Whether `memory_space` is a spelling the table has no meaning for."""
    return isinstance(contract_number(memory_space), _Unclassified)


__all__ = ["UNCLASSIFIED", "contract_number", "space_number", "unclassified"]
