"""The `ptx` target: `target` (`emit_ptx`, `-t ptx`) and `ptxas`, the tool that assembles
its output and counts its shared bytes. Its backends are `lowering.llvm`'s."""
