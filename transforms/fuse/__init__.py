"""The fuse core: the `fuse-gpu-allocs` pass and what only it uses.

Per unit of block-level code, and every unit planned before any is rewritten:

    analysis.plan_kernel   Funcs, lifetimes, checks, every diagnostic; no IR change
      -> plan.plan_space   one space's byte layout (packer; Halide's grouping as the
                           bound: halide_grouping)
      -> fuse_gpu_allocs   the pass: options, orchestration, the rewrite (backing,
                           offset_pointer + alias per Func; trip_bounds for private sizes)
      -> report, result    the `report=true` table; the same as data (`FusionResult`)

    reuse_barriers         the barrier planner beside it (`insert-barriers=...`): back
                           edges and barriers that buy bytes, measured by plan_kernel

The analyses other passes, the lowering or the simulator also ask (`lifetimes`,
`barrier_gaps`, `loop_allocs`, `runs_once`, `block_sizes`, `layout_record`, ...) stay in
`gpu_alloc.transforms`.
"""
