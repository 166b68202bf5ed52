"""gpu_alloc: GPU shared/heap allocation fusion as an xDSL dialect and passes.

The public Python API is `gpu_alloc.api` (docs/api.md). Subpackages: `gpu_alloc.dialect`
(ops and types), `gpu_alloc.transforms` (passes and the packing algorithm),
`gpu_alloc.lowering` (to gpu/memref and PTX), `gpu_alloc.sim` (the simulator),
`gpu_alloc.tools` (command-line drivers), `gpu_alloc.testing` (lit support for downstream
projects).
"""

from gpu_alloc import xdsl_fixes as _xdsl_fixes
from gpu_alloc.version import __version__

_xdsl_fixes.apply()

__all__ = ["__version__"]
