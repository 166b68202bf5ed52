"""gpu_alloc: GPU shared/heap allocation fusion as an xDSL dialect and passes.

Subpackages: `gpu_alloc.dialect` (ops and types), `gpu_alloc.transforms` (passes and
the packing algorithm), `gpu_alloc.lowering` (to gpu/memref and PTX),
`gpu_alloc.tools` (command-line drivers).
"""

from gpu_alloc import xdsl_fixes as _xdsl_fixes

_xdsl_fixes.apply()
