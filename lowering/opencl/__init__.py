"""The `opencl` target: OpenCL C source, no LLVM.

target (`-t opencl`) -> c (`emit_opencl`: c_function writes a kernel with c_ops,
c_arith, c_control, over c_types) ; opencl_tools: PoCL and Oclgrind (compile, run,
the `__local` bytes they report)
"""
