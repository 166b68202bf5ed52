"""MLIR's syntax for xDSL: the ops, types and attributes of MLIR 22's dialects that
xDSL 0.75 lacks or cannot read, each module written against xDSL only so that it could
be proposed upstream as it is.

Each op declares MLIR's `assemblyFormat` where MLIR's ODS file has one (the directives
xDSL's formats lack are in `mlir_directives`; `mlir_syntax` holds what the
modules share) and is parsed by hand only where MLIR parses it in C++, saying so. This
package is beneath `gpu_alloc.dialect`: it imports xDSL only, and the dialect's meaning
(memory spaces, kernels, mappings) is decided in `gpu_alloc.dialect`, never here.
"""
