"""The LLVM backends every LLVM target (`ptx`, `amdgcn`, `spirv`) shares.

    to_llvm (+ builder, ids, arith, memory, vector, extras, scf_while_to_cf,
    target_spaces)     a lowered `gpu.module` in xDSL's `llvm` dialect, for the device
      -> llvmlite_translate -> llvmlite_backend   the embedded backend: LLVM 22's
                                                  target in process (`isolated`: a
                                                  forked child where LLVM keeps state)
    mlir_backend (+ mlir_ids)                     MLIR 22's pipeline, out of process

Each target folder (`ptx/`, `amdgcn/`, `spirv/`) picks its triple and pipeline from its
target description; `lowering.emit` calls these backends.
"""
