"""gpu_alloc: GPU shared/heap allocation fusion as an xDSL dialect and passes.

The public Python API is `gpu_alloc.api` (docs/api.md). Subpackages: `gpu_alloc.targets`
(what each GPU target is, as data), `gpu_alloc.dialect` (ops and types),
`gpu_alloc.transforms` (passes and the packing algorithm), `gpu_alloc.lowering` (to
gpu/memref, PTX, AMDGPU and SPIR-V), `gpu_alloc.sim` (the simulator), `gpu_alloc.tools`
(command-line drivers), `gpu_alloc.testing` (lit support for downstream projects).

Importing the package loads nothing but its version: the packer
(`gpu_alloc.transforms.packing`) and the target descriptions run without xDSL. The xDSL
fixes (`gpu_alloc.xdsl_fixes`) are installed by the dialect package and the xDSL entry
point (`gpu_alloc.universe`), before anything is parsed or printed.
"""

from gpu_alloc.version import __version__

__all__ = ["__version__"]
