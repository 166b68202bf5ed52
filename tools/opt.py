"""`gpu-alloc-opt`: `xdsl-opt` with this project's dialect and passes, and clean errors.

Same command line as `xdsl-opt`. Any parse, verify or pass error is printed as one
diagnostic (`file:line:col: error: message`, the source line and a caret) on stderr,
with exit code 1, no Python traceback and no partial output. Set
`GPU_ALLOC_TRACEBACK=1` to see the traceback of an internal error.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from gpu_alloc.errors import GpuAllocPassError, internal_errors_in_one_line
from gpu_alloc.tools.diagnostics import (
    first_unverified_op,
    format_op_error,
    format_span,
    parse_with_locations,
)
from gpu_alloc.universe import register_dialects
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain


class UserError(Exception):
    """An error already formatted for the user."""


class GpuAllocOptMain(xDSLOptMain):
    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="gpu_alloc modular optimizer driver", args=args)

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)  # MLIR's `gpu` and `memref` syntax

    def run(self) -> None:
        if self.args.verify_diagnostics or self.args.parsing_diagnostics or self.args.shrink:
            # The lit-test modes print diagnostics to stdout themselves.
            super().run()
            return
        chunks, file_extension = self.prepare_input()
        outputs: list[str] = []
        try:
            for chunk, line_offset in chunks:
                try:
                    outputs.append(self._process(chunk.read(), file_extension, line_offset))
                finally:
                    chunk.close()
        except UserError as error:
            print(str(error), file=sys.stderr)
            sys.exit(1)
        output_stream = self.prepare_output()
        try:
            output_stream.write("// -----\n".join(outputs))
            output_stream.flush()
        finally:
            if output_stream is not sys.stdout:
                output_stream.close()

    def _process(self, source: bytes, file_extension: str, line_offset: int) -> str:
        file_name = self.get_input_name()
        if self.args.frontend or file_extension != "mlir":
            raise UserError(f"{file_name}: error: gpu-alloc-opt reads MLIR (.mlir) input only")
        try:
            module, source_map = parse_with_locations(self.ctx, source, file_name, line_offset)
        except ParseError as error:
            message = error.msg
            if not source[error.span.start :].strip():
                message = f"unexpected end of input ({message})"
            raise UserError(format_span(error.span, message, line_offset)) from None
        if not self.args.disable_verify and (failure := first_unverified_op(module)):
            op, error = failure
            raise UserError(format_op_error(source_map, op, str(error))) from None
        try:
            self.apply_passes(module)
            return self.output_resulting_program(module)
        except GpuAllocPassError as error:
            raise UserError(format_op_error(source_map, error.op, error.message)) from None
        except DiagnosticException as error:
            failure = first_unverified_op(module)
            op = failure[0] if failure else None
            raise UserError(format_op_error(source_map, op, str(error))) from None


def main(args: Sequence[str] | None = None) -> None:
    with internal_errors_in_one_line("gpu-alloc-opt"):
        GpuAllocOptMain(args).run()


if __name__ == "__main__":
    main()
