"""The LLVM and NVPTX backends: what turns an `llvm`-dialect module into machine
code. `target` (the host target machine, LLVM IR parsing), `translate` (llvm
dialect -> LLVM IR text, identical-function merging), `optimize` (LLVM's O<n>
and split host/kernel pipelines), `jit` (the ORC JIT `HostJit`,
`BackgroundObject` and the GIL handoff to its worker thread) and `ptx` (NVPTX
code generation for CUDA kernels). A module here may import `disc_ir.ir`,
`disc_ir.dialects`, `disc_ir.config` and `disc_ir.runtime` (the ABI the
generated code calls), never a pass, the pass registry or the IR-to-IR layers."""
