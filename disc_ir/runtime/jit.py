"""Loading host code with LLVM's MCJIT (llvmlite), with ``disc_ral_call`` resolvable.

:class:`JitModule` compiles LLVM IR (text or bitcode) to machine code in this
process; functions are then called through ctypes. Creating one registers the
``disc_ral_call`` symbol first, so compiled code that declares it binds to the
runtime's dispatcher.
"""

from __future__ import annotations

import threading

from disc_ir.runtime.dispatch import register_symbols

_JIT_LOCK = threading.Lock()


class JitModule:
    """An LLVM module compiled by MCJIT; keep it alive while its code may run."""

    def __init__(self, llvm_ir: str | bytes, opt_level: int = 2, name: str = "disc_module"):
        import llvmlite.binding as llvm

        register_symbols()
        with _JIT_LOCK:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            if isinstance(llvm_ir, bytes):
                module = llvm.parse_bitcode(llvm_ir)
            else:
                module = llvm.parse_assembly(llvm_ir)
            module.name = name
            module.verify()
            target = llvm.Target.from_default_triple()
            self.target_machine = target.create_target_machine(opt=opt_level, jit=True)
            self.engine = llvm.create_mcjit_compiler(module, self.target_machine)
            self.engine.finalize_object()
            self.engine.run_static_constructors()
        self.module = module

    def function_address(self, name: str) -> int:
        """The address of function ``name``; raises KeyError if it is not defined."""
        address = self.engine.get_function_address(name)
        if not address:
            raise KeyError(f"no function '{name}' in the JIT module")
        return address
