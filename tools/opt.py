"""`gpu-alloc-opt`: `xdsl-opt` with this project's dialect and passes, and clean errors.

Same command line as `xdsl-opt`. Any file, option, parse, verify or pass error is printed
as one diagnostic (`file:line:col: error: message`, the source line and a caret) on
stderr, with exit code 1, no Python traceback and no partial output. Set
`GPU_ALLOC_TRACEBACK=1` to see the traceback of an internal error.

Verification follows MLIR's convention: the input and the final output are verified
(ops, SSA dominance and memref sizes: `gpu_alloc.tools.verification`); the module between
passes only with `--verify-each`. The output of a pass that does not verify is an internal
error (a bug in that pass), located at the first invalid op.
"""

from __future__ import annotations

import argparse
import gc
import inspect
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from io import BytesIO
from typing import IO, cast

from gpu_alloc import xdsl_fixes
from gpu_alloc.errors import (
    GpuAllocPassError,
    UserInputError,
    one_line_usage_errors,
    pass_errors_raised,
    run_tool,
)
from gpu_alloc.remarks import collected_remarks
from gpu_alloc.targets import TARGETS, TargetOptionError, resolve
from gpu_alloc.tools import verify_diagnostics as verifier
from gpu_alloc.tools.diagnostics import (
    SourceMap,
    format_op_error,
    parse_with_locations,
)
from gpu_alloc.tools.files import mlir_input_extension, read_input, write_output
from gpu_alloc.tools.mlir_bridge import add_bridge_argument, read_module
from gpu_alloc.tools.pass_options import (
    pass_options,
    pipeline_problem,
    spec_error,
    unparsable_spec,
)
from gpu_alloc.tools.reader import read
from gpu_alloc.tools.verification import first_invalid_op
from gpu_alloc.transforms.module_target import attach_target
from gpu_alloc.universe import ALL_PASSES, register_dialects
from gpu_alloc.version import version_line
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.printer import Printer
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.target import Target
from xdsl.xdsl_opt_main import xDSLOptMain


class _InvalidPassOutput(Exception):
    def __init__(self, pass_name: str, op: Operation, message: str):
        super().__init__(message)
        self.pass_name = pass_name
        self.op = op
        self.message = message


class _PipelineError(Exception):
    """A pass's or the target's error, or a pass output that does not verify, at an op."""

    def __init__(self, op: Operation | None, message: str):
        super().__init__(message)
        self.op = op
        self.message = message


_FLAGS = [f"-t {name}" for name in TARGETS]
_TARGET_FLAGS = " and ".join([", ".join(_FLAGS[:-1]), _FLAGS[-1]] if len(_FLAGS) > 1 else _FLAGS)
HIDDEN_STEPS = f"""\
hidden steps: lower-gpu-allocs runs flatten-aliases first when aliases are left, and
{_TARGET_FLAGS} run lower-gpu-allocs{{chip=...}} first when gpu_alloc ops
are left; -t X{{chip=...}} gives gpu.modules without a target attribute that chip's
first; the full pipeline is
  -p fuse-gpu-allocs,flatten-aliases,lower-gpu-allocs -t ptx"""


def pass_overview() -> str:
    """`--help`'s epilog: each gpu_alloc pass with the first paragraph of its docstring,
    then each of its options: `name=default (type)` and what it means."""
    lines = ["gpu_alloc passes (options: -p 'pass{option=value option=value}'):"]
    for name, factory in ALL_PASSES.items():
        summary = (inspect.getdoc(factory()) or "").split("\n\n")[0].replace("\n", " ")
        lines.append(f"  {name}: {summary}")
        for option in pass_options(factory()):
            lines.append(f"      {option.name}={option.default} ({option.type}): {option.doc}")
    return "\n".join([*lines, "", HIDDEN_STEPS])


def _epilog_on_help(arg_parser: argparse.ArgumentParser, epilog: Callable[[], str]) -> None:
    """Makes `epilog()` the parser's epilog when help is printed: it loads every pass
    class, which a run that prints no help never needs (start-up, issue 31 §3)."""
    format_help = arg_parser.format_help

    def with_epilog() -> str:
        arg_parser.epilog = epilog()
        return format_help()

    arg_parser.format_help = with_epilog


class GpuAllocOptMain(xDSLOptMain):
    version_format = version_line("gpu-alloc-opt").replace("{", "{{").replace("}", "}}")
    """`--version`: this package's version and xDSL's (xDSL's VersionAction formats it)."""

    def __init__(self, args: Sequence[str] | None = None):
        try:
            super().__init__(description="gpu_alloc modular optimizer driver", args=args)
        except ArgSpecParseError as error:  # xDSL parses -t and -f before the pipeline
            flag, kind = unparsable_spec(self.args.target, self.args.frontend)
            raise UserInputError(
                f"gpu-alloc-opt: error: {flag}: {spec_error(error, kind)}"
            ) from None
        self._check_target()

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        arg_parser.prog = "gpu-alloc-opt"
        arg_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        _epilog_on_help(arg_parser, pass_overview)
        one_line_usage_errors(arg_parser)
        add_bridge_argument(arg_parser)
        arg_parser.add_argument(
            "--verify-each",
            default=False,
            action="store_true",
            help="verify the module after every pass (default: the input and the final "
            "output only, as mlir-opt)",
        )

    def setup_pipeline(self) -> None:
        """The pass pipeline; a bad pass name or option is a one-line error, in the
        user's (kebab-case) spelling with the closest names (`tools.pass_options`)."""
        if problem := pipeline_problem(self.args.passes, self.available_passes):
            raise UserInputError(f"gpu-alloc-opt: error: -p '{self.args.passes}': {problem}")
        try:
            self.pipeline = PassPipeline.parse_spec(
                self.available_passes, self.args.passes, self._between_passes
            )
        except (ValueError, TypeError, ParseError, DiagnosticException) as error:
            raise UserInputError(
                f"gpu-alloc-opt: error: -p '{self.args.passes}': {error}"
            ) from None
        except ArgSpecParseError as error:
            message = spec_error(error, "pass")
            raise UserInputError(
                f"gpu-alloc-opt: error: -p '{self.args.passes}': {message}"
            ) from None

    def _check_target(self) -> None:
        """Builds the target once before reading input, so a bad option fails early."""
        try:
            spec = parse_spec(self.args.target)
            entry = self.available_targets[spec.name]
            if not inspect.signature(entry).parameters:
                cast(Callable[[], type[Target]], entry)().from_spec(spec)
        except (ValueError, TypeError, ParseError, DiagnosticException) as error:
            raise UserInputError(
                f"gpu-alloc-opt: error: -t '{self.args.target}': {error}"
            ) from None
        except ArgSpecParseError as error:
            message = spec_error(error, "target")
            raise UserInputError(
                f"gpu-alloc-opt: error: -t '{self.args.target}': {message}"
            ) from None

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        path = self.args.input_file
        return BytesIO(read_input(path)), self._input_format()

    def _input_format(self) -> str:
        """`-f`, else the file's extension; MLIR is the only format read (`mlir-gpu`, the
        stock xdsl-opt's name for MLIR with MLIR's gpu syntax, is the same here)."""
        input_format = self.args.frontend or mlir_input_extension(self.args.input_file)
        if input_format == "mlir-gpu":
            return "mlir"
        if input_format != "mlir":
            raise UserInputError(
                f"{self.get_input_name()}: error: gpu-alloc-opt reads MLIR input only "
                f"(format '{input_format}'); name the file .mlir or pass -f mlir"
            )
        return input_format

    def get_input_name(self) -> str:
        return self.args.input_file or "<stdin>"

    def register_all_dialects(self) -> None:
        register_dialects(self.ctx)  # MLIR's `gpu` and `memref` syntax

    def run(self) -> None:
        if self.args.verify_diagnostics:
            self._verify_diagnostics()
            return
        if self.args.parsing_diagnostics or self.args.shrink:
            # The lit-test modes print diagnostics to stdout themselves.
            super().run()
            return
        chunks, file_extension = self.prepare_input()
        outputs: list[str] = []
        for chunk, line_offset in chunks:
            try:
                outputs.append(self._process(chunk.read(), file_extension, line_offset))
            finally:
                chunk.close()
        write_output(self.args.output_file, "// -----\n".join(outputs))

    def _process(self, source: bytes, file_extension: str, line_offset: int) -> str:
        file_name = self.get_input_name()
        module, source_map = read(
            self.ctx,
            source,
            file_name,
            line_offset=line_offset,
            bridge=self.args.mlir_bridge,
            verify=not self.args.disable_verify,
        )
        with frozen_heap():
            return self._transform(module, source_map)

    def _transform(self, module: ModuleOp, source_map: SourceMap) -> str:
        try:
            return self._run_pipeline(module)
        except _PipelineError as error:
            raise UserInputError(format_op_error(source_map, error.op, error.message)) from None

    def _run_pipeline(self, module: ModuleOp) -> str:
        """The passes and the target's output; every failure as a `_PipelineError`."""
        try:
            self._attach_target(module)
            self.apply_passes(module)
            with pass_errors_raised():  # the ptx target's errors, printed here at the op
                return self.output_resulting_program(module)
        except GpuAllocPassError as error:
            raise _PipelineError(error.op, error.message) from None
        except _InvalidPassOutput as error:
            message = f"internal error: the output of pass '{error.pass_name}' does not verify: "
            raise _PipelineError(error.op, message + error.message) from None
        except DiagnosticException as error:
            failure = first_invalid_op(module)
            raise _PipelineError(failure[0] if failure else None, str(error)) from None

    def _attach_target(self, module: ModuleOp) -> None:
        """`-t X{chip=...}` is the passes' target too: its device goes into every
        `gpu.module` without a target attribute before the pipeline runs (as MLIR's
        `nvvm-attach-target`); a module that names another is refused when emitted."""
        spec = parse_spec(self.args.target)
        chip = spec.parameters.get("chip")
        if spec.name not in TARGETS or not chip:
            return
        try:
            device = resolve(spec.name, str(chip[0]))
        except TargetOptionError:
            return  # the target itself reports it, at its option
        attach_target(self.ctx, module, device)

    def _verify_diagnostics(self) -> None:
        """`--verify-diagnostics` (`gpu_alloc.tools.verify_diagnostics`): with `expected-*`
        annotations in the input, mlir-opt's check; without, xDSL's convention."""
        chunks, _ = self.prepare_input()
        sources: list[tuple[bytes, int]] = []
        for chunk, line_offset in chunks:
            sources.append((chunk.read(), line_offset))
            chunk.close()
        texts = [source.decode("utf-8", errors="replace") for source, _ in sources]
        annotated = any(verifier.has_annotations(text) for text in texts)
        outputs: list[str] = []
        problems: list[str] = []
        for (source, line_offset), text in zip(sources, texts, strict=True):
            output, diagnostics = self._diagnose(source, line_offset)
            if annotated:
                expectations = verifier.parse_expectations(text)
                name = self.get_input_name()
                problems += verifier.check(expectations, diagnostics, name, text, line_offset)
                outputs += [output] if output is not None else []
                continue
            for remark in (d for d in diagnostics if d.kind == "remark"):
                print(f"{remark.pass_name}: remark: {remark.message}", file=sys.stderr)
            errors = [d.message for d in diagnostics if d.kind == "error"]
            outputs.append(errors[0].strip().splitlines()[0] + "\n" if errors else output or "")
        write_output(self.args.output_file, "// -----\n".join(outputs))
        if problems:
            raise UserInputError("\n".join(problems))

    def _diagnose(
        self, source: bytes, line_offset: int
    ) -> tuple[str | None, list[verifier.Diagnostic]]:
        """One chunk's output (None when it fails) and every diagnostic it gives."""
        try:
            module, source_map = parse_with_locations(
                self.ctx, source, self.get_input_name(), line_offset
            )
        except ParseError as error:
            if self.args.mlir_bridge != "auto":
                return None, [verifier.Diagnostic("error", error.msg, error.span)]
            try:  # what the embedded parser cannot read, the MLIR bridge may (as `_process`)
                module, source_map = read_module(
                    self.ctx, source, self.get_input_name(), line_offset, "auto"
                )
            except UserInputError:  # neither reads it: the embedded parser's error
                return None, [verifier.Diagnostic("error", error.msg, error.span)]
        if not self.args.disable_verify and (failure := first_invalid_op(module)):
            return None, [verifier.Diagnostic("error", failure[1], source_map.span_of(failure[0]))]
        output: str | None = None
        failed: list[verifier.Diagnostic] = []
        with collected_remarks() as remarks:
            try:
                output = self._run_pipeline(module)
            except _PipelineError as error:
                failed.append(
                    verifier.Diagnostic("error", error.message, source_map.span_of(error.op))
                )
        located = [
            verifier.Diagnostic("remark", r.message, source_map.span_of(r.op), pass_name)
            for pass_name, r in remarks
        ]
        return output, located + failed

    def _between_passes(
        self, previous: ModulePass | None, module: ModuleOp, following: ModulePass | None
    ) -> None:
        """After a pass: verify (after the last one, or after each with --verify-each),
        time it and print the IR as the xdsl-opt options ask."""
        now = time.perf_counter()
        if self.args.time_passes and previous is not None:
            print(f"Pass {previous.name} took {now - self._pass_started} seconds")
        if previous is not None and not self.args.disable_verify:
            if following is None or self.args.verify_each:
                if failure := first_invalid_op(module):
                    raise _InvalidPassOutput(previous.name, failure[0], failure[1])
        if previous and following and self.args.print_between_passes:
            print(f"IR after {previous.name}:")
            Printer(stream=sys.stdout).print_op(module)
            print("\n\n\n")
        self._pass_started = time.perf_counter()

    _pass_started: float = 0.0


@contextmanager
def frozen_heap() -> Iterator[None]:
    """No cyclic garbage collection while the passes run: what is alive (the parsed
    module) moves out of the collector's reach (CPython's `gc.freeze`) and the collector
    pauses. Its full collections would otherwise walk the whole, growing module again and
    again, which made the passes' time grow faster than the module on large kernels; the
    passes leave little cyclic garbage (at 16k allocations the peak memory is the same).
    Thawed and resumed after, so that an embedding process loses nothing."""
    was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.unfreeze()


def main(args: Sequence[str] | None = None) -> None:
    xdsl_fixes.apply()  # this process is ours: read what MLIR prints (docs/xdsl-upstream.md)
    run_tool("gpu-alloc-opt", lambda: GpuAllocOptMain(args).run())


if __name__ == "__main__":
    main()
