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


def test_the_readme_embedding_snippet_runs(examples_dir: Path, monkeypatch, capsys):
    """README.md's "Embedding in your own compiler" block, on the MLIR-syntax example
    (three 4 KiB tiles, `result` may reuse `tile`'s bytes: 12288 -> 8192 B, its header)."""
    import re

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme[readme.index("## Embedding in your own compiler") :]
    (block,) = re.findall(r"```python\n(.*?)```", section.split("\n## ")[0], re.DOTALL)
    monkeypatch.chdir(examples_dir)
    namespace: dict[str, object] = {}
    exec(block.replace("kernel.mlir", "mlir_transpose.mlir"), namespace)  # noqa: S102
    assert capsys.readouterr().out == "transpose shared 12288 -> 8192\n"
    assert ".entry transpose" in str(namespace["ptx"])
