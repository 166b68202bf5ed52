"""The Python embedding documented in README.md: Context, parse, PassPipeline, print."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

from gpu_alloc.dialect import AliasOp, AllocOp, GpuAlloc
from gpu_alloc.transforms import FlattenAliasesPass, FuseGpuAllocsPass
from xdsl.context import Context
from xdsl.dialects import arith, builtin, gpu, memref, scf
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
from xdsl.printer import Printer


def make_context() -> Context:
    ctx = Context()
    for dialect in (builtin.Builtin, gpu.GPU, arith.Arith, memref.MemRef, scf.Scf, GpuAlloc):
        ctx.load_dialect(dialect)
    return ctx


def test_embedding_pipeline(examples_dir: Path):
    ctx = make_context()
    module = Parser(ctx, (examples_dir / "stencil_chain.mlir").read_text()).parse_module()

    PassPipeline((FuseGpuAllocsPass(),)).apply(ctx, module)
    backings = [op for op in module.walk() if isinstance(op, AllocOp)]
    aliases = [op for op in module.walk() if isinstance(op, AliasOp)]
    assert [b.alloc_name.data for b in backings] == ["shared_alloc"]
    assert sorted(a.alias_name.data for a in aliases) == ["f1", "f2", "f3"]

    PassPipeline((FlattenAliasesPass(),)).apply(ctx, module)
    module.verify()
    assert not any(isinstance(op, AliasOp) for op in module.walk())
    views = [op for op in module.walk() if isinstance(op, memref.ViewOp)]
    assert len(views) == 3

    out = StringIO()
    Printer(stream=out).print_op(module)
    assert "memref.view %shared_alloc" in out.getvalue()


def test_pass_options_from_python():
    pass_ = FuseGpuAllocsPass(alignment=32, report=True, max_shared_bytes=1024)
    assert pass_.pipeline_pass_spec().name == "fuse-gpu-allocs"
    assert "alignment=32" in str(pass_.pipeline_pass_spec())
