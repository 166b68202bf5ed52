"""The one reader of MLIR input: every tool and the API read a file through `read`.

`gpu-alloc-opt`, the stock `xdsl-opt` (`-f mlir` and `-f mlir-gpu`), `gpu-alloc-sim`,
`gpu-alloc-layout` and `gpu_alloc.api.parse` all parse with the embedded parser, fall
back to the MLIR bridge (`mlir_bridge.read_module`: `mlir-opt-22`, by the same rule and
with the same remark) for what it cannot read, and verify (`verification.first_invalid_op`).
Every failure is the same one located line (`file:line:col: error: ...`), raised as a
`UserInputError`; so a file one tool reads, every tool reads, and what any tool prints
(also after the bridge) reads back.
"""

from __future__ import annotations

from gpu_alloc.errors import UserInputError
from gpu_alloc.tools.diagnostics import SourceMap, format_op_error, parse_with_locations
from gpu_alloc.tools.mlir_bridge import Parse, read_module
from gpu_alloc.tools.verification import first_invalid_op
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp


def read(
    ctx: Context,
    source: str | bytes,
    file_name: str,
    *,
    line_offset: int = 0,
    bridge: str = "auto",
    tool: str = "gpu-alloc-opt",
    verify: bool = True,
    parse: Parse = parse_with_locations,
) -> tuple[ModuleOp, SourceMap]:
    """`source` (one chunk of `file_name` from `line_offset` on) as a verified module and
    where each op came from; `bridge` is `--mlir-bridge` (`auto` or `never`), `tool` the
    program named in the bridge's remark. Raises UserInputError with the one line."""
    if isinstance(source, str):
        source = source.encode()
    module, source_map = read_module(ctx, source, file_name, line_offset, bridge, tool, parse)
    if verify and (failure := first_invalid_op(module)):
        raise UserInputError(format_op_error(source_map, *failure))
    return module, source_map
