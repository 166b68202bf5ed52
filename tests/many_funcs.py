"""A kernel with many shared Funcs and staggered lifetimes (for the layout picture)."""

from __future__ import annotations


def many_funcs_kernel(n_funcs: int = 60, stages: int = 12) -> str:
    """Func i holds (i % 7 + 1) x 16 f32; it is written in stage i % (stages - 3) and
    read i % 4 stages later, one element per thread (block of 16 threads)."""
    lines = [
        "builtin.module {",
        '  "gpu.module"() <{sym_name = "m"}> ({',
        '    "gpu.func"() <{function_type = (memref<16xf32>) -> (), kernel}> ({',
        "    ^bb0(%out: memref<16xf32>):",
        '      %t = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index',
        "      %acc0 = arith.constant 0.0 : f32",
    ]
    types = {i: f"memref<{(i % 7 + 1) * 16}xf32, 3 : i32>" for i in range(n_funcs)}
    writes: dict[int, list[int]] = {}
    reads: dict[int, list[int]] = {}
    for i in range(n_funcs):
        first = i % (stages - 3)
        lines.append(f'      %f{i} = "gpu_alloc.alloc"() <{{name = "f{i}"}}> : () -> {types[i]}')
        writes.setdefault(first, []).append(i)
        reads.setdefault(first + i % 4, []).append(i)
    acc = "%acc0"
    for stage in range(stages):
        if stage:
            lines.append('      "gpu.barrier"() : () -> ()')
        for i in writes.get(stage, []):
            lines.append(f"      memref.store {acc}, %f{i}[%t] : {types[i]}")
        for i in reads.get(stage, []):
            lines.append(f"      %v{i} = memref.load %f{i}[%t] : {types[i]}")
            lines.append(f"      %a{i} = arith.addf {acc}, %v{i} : f32")
            acc = f"%a{i}"
    lines += [
        f"      memref.store {acc}, %out[%t] : memref<16xf32>",
        '      "gpu.return"() : () -> ()',
        '    }) {sym_name = "many_funcs"} : () -> ()',
        "  }) : () -> ()",
        "}",
    ]
    return "\n".join(lines) + "\n"
