"""Compile-time measures of the host backend: identical functions translated once
(`identical_functions`, `module_to_llvm_ir(merge_identical=...)`) and host glue
functions optimized with a cheap pipeline (`HostJit(host_functions=...)`)."""

from __future__ import annotations

import ctypes
import re

from xdsl.dialects import llvm

from disc_ir.backend.jit import HostJit, jit_target_machine
from disc_ir.backend.optimize import optimize_split
from disc_ir.backend.target import parse_llvm_ir
from disc_ir.backend.translate import identical_functions, module_to_llvm_ir
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser

SOURCE = """
llvm.func @k1(%a: i64) -> i64 {
  %c = llvm.mlir.constant(3 : i64) : i64
  %m = llvm.mul %a, %c : i64
  llvm.return %m : i64
}
llvm.func @k2(%a: i64) -> i64 {
  %c = llvm.mlir.constant(3 : i64) : i64
  %m = llvm.mul %a, %c : i64
  llvm.return %m : i64
}
llvm.func @k3(%a: i64) -> i64 {
  %c = llvm.mlir.constant(5 : i64) : i64
  %m = llvm.mul %a, %c : i64
  llvm.return %m : i64
}
llvm.func @w1(%a: i64) -> i64 {
  %r = llvm.call @k1(%a) : (i64) -> i64
  llvm.return %r : i64
}
llvm.func @w2(%a: i64) -> i64 {
  %r = llvm.call @k2(%a) : (i64) -> i64
  llvm.return %r : i64
}
llvm.func @w3(%a: i64) -> i64 {
  %r = llvm.call @k3(%a) : (i64) -> i64
  llvm.return %r : i64
}
llvm.func @main(%a: i64) -> i64 {
  %x = llvm.call @w1(%a) : (i64) -> i64
  %y = llvm.call @w2(%a) : (i64) -> i64
  %z = llvm.call @w3(%a) : (i64) -> i64
  %s = llvm.add %x, %y : i64
  %t = llvm.add %s, %z : i64
  llvm.return %t : i64
}
"""


def _module():
    module = DiscParser(make_context(), SOURCE).parse_module()
    module.verify()
    return module


def _defined(text: str) -> list[str]:
    return re.findall(r'^define [^@]*@"?([\w.]+)"?\(', text, re.M)


def _run_main(jit: HostJit, value: int) -> int:
    fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(jit.function_address("main"))
    return fn(value)


def test_identical_functions_merge_callees_then_callers():
    funcs = [op for op in _module().ops if isinstance(op, llvm.FuncOp)]
    assert identical_functions(funcs, ("main",)) == {"k2": "k1", "w2": "w1"}
    # the kept names are never merged away
    assert identical_functions(funcs, ("main", "k2")) == {}


def test_only_functions_sharing_an_outline_get_structural_keys(monkeypatch):
    """Functions of a type or op count no other function has are never keyed
    (their keys cost a walk and a deep hash each)."""
    import disc_ir.backend.translate as backend

    source = (
        SOURCE
        + """
llvm.func @lone(%a: i64, %b: i64) -> i64 {
  %m = llvm.mul %a, %b : i64
  llvm.return %m : i64
}
"""
    )
    module = DiscParser(make_context(), source).parse_module()
    funcs = [op for op in module.ops if isinstance(op, llvm.FuncOp)]
    keyed: list[str] = []
    key_of = backend._function_key

    def counting(op, rep, callees):  # noqa: ANN001, ANN202 - the wrapped function's
        keyed.append(op.sym_name.data)
        return key_of(op, rep, callees)

    monkeypatch.setattr(backend, "_function_key", counting)
    assert identical_functions(funcs, ("main",)) == {"k2": "k1", "w2": "w1"}
    assert "lone" not in keyed and "main" not in keyed
    assert {"k1", "k2", "k3", "w1", "w2", "w3"} <= set(keyed)


def test_llvm_types_are_memoized_by_value():
    from xdsl.dialects.builtin import i64

    from disc_ir.backend.translate import llvm_type

    a = llvm.LLVMStructType.from_type_list([llvm.LLVMPointerType(), i64])
    b = llvm.LLVMStructType.from_type_list([llvm.LLVMPointerType(), i64])
    assert a is not b
    assert llvm_type(a) is llvm_type(b)
    assert str(llvm_type(a)) == "{ptr, i64}"
    assert str(llvm_type(llvm.LLVMArrayType(4, i64))) == "[4 x i64]"


def test_merged_module_translates_each_body_once_and_runs():
    module = _module()
    plain = module_to_llvm_ir(module)
    merged = module_to_llvm_ir(module, merge_identical=("main",))
    assert _defined(plain) == ["k1", "k2", "k3", "w1", "w2", "w3", "main"]
    assert _defined(merged) == ["k1", "k3", "w1", "w3", "main"]
    assert "@k2" not in merged and '@"k2"' not in merged
    assert _run_main(HostJit(merged), 7) == 3 * 7 + 3 * 7 + 5 * 7


def test_host_functions_split_keeps_behaviour():
    text = module_to_llvm_ir(_module(), merge_identical=("main",))
    jit = HostJit(text, host_functions=("main",))
    assert _run_main(jit, 4) == 44
    assert set(_defined(jit.optimized_ir)) >= {"main", "k1", "k3"}


def test_split_falls_back_without_host_functions_or_with_local_kernels():
    tm = jit_target_machine(3)
    text = module_to_llvm_ir(_module())
    mod = parse_llvm_ir(text)
    assert optimize_split(mod, tm, 3, ("no_such_function",)) is mod
    split = optimize_split(parse_llvm_ir(text), tm, 3, ("main",))  # kernels + linked host part
    assert set(_defined(str(split))) == {"k1", "k2", "k3", "w1", "w2", "w3", "main"}
    local = text.replace('define i64 @"k3"', 'define internal i64 @"k3"')
    assert local != text
    mod = parse_llvm_ir(local)
    assert optimize_split(mod, tm, 3, ("main",)) is mod
    assert _run_main(HostJit(local, host_functions=("main",)), 1) == 11


def test_outlined_ral_glue_is_compiled_with_the_host_part():
    """Functions named with the RAL host-glue prefix go to the host part (the
    cheap pipeline, O0 machine code) with the entry, the rest to the kernels
    part; the two objects link into one library that runs."""
    from disc_ir.backend.optimize import _split_host_functions
    from disc_ir.runtime.abi import HOST_GLUE_PREFIX

    glue = f"{HOST_GLUE_PREFIX}call.k"
    text = module_to_llvm_ir(_module()).replace('@"w3"', f'@"{glue}"')
    assert f'define i64 @"{glue}"' in text
    kernels, host = _split_host_functions(parse_llvm_ir(text), ("main",))
    assert set(_defined(host)) == {"main", glue}
    assert glue not in _defined(kernels) and "k3" in _defined(kernels)
    jit = HostJit(text, host_functions=("main",))
    assert _run_main(jit, 2) == 22
    assert set(_defined(jit.optimized_ir)) >= {"main", glue, "k1", "k3"}
