"""gpu_alloc: GPU shared/heap allocation fusion as an xDSL dialect and passes.

The public Python API is `gpu_alloc.api` (docs/api.md). Subpackages: `gpu_alloc.targets`
(what each GPU target is, as data), `gpu_alloc.dialect` (ops and types),
`gpu_alloc.transforms` (passes), `gpu_alloc.packing` (the packer, no xDSL), `gpu_alloc.lowering` (to
gpu/memref, PTX, AMDGPU and SPIR-V), `gpu_alloc.sim` (the simulator), `gpu_alloc.tools`
(command-line drivers), `gpu_alloc.testing` (lit support for downstream projects).

Importing the package loads nothing but its version: the packer
(`gpu_alloc.packing`) and the target descriptions run without xDSL. Importing
any part of the package changes nothing in xDSL: the fixes of xDSL 0.75's bugs
(`gpu_alloc.xdsl_fixes`, docs/xdsl-upstream.md) are installed by the project's own tools at
their start, or by a program that calls `gpu_alloc.xdsl_fixes.apply()`.
"""

from gpu_alloc.version import __version__

__all__ = ["__version__"]
