"""The `spirv` target: `target` (`emit_spirv`, `-t spirv`) and `spirv_tools` (spirv-as,
spirv-val, spirv-dis). Its backends are `lowering.llvm`'s (LLVM's SPIR-V target, MLIR's
`convert-gpu-to-llvm-spv`), not `lowering.opencl`'s C: the two share only the driver."""
