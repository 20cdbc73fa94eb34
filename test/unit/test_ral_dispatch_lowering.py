"""The `disc_ral.dispatch` -> `disc_ral_call` lowering and the RAL API name encoding."""

from __future__ import annotations

import io
import re

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerType,
    MemRefType,
    Signedness,
    TensorType,
    f32,
    i1,
    i64,
)
from xdsl.pattern_rewriter import PatternRewriteWalker
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion.ral_dispatch_to_llvm import (
    RalDispatchToLLVM,
    encode_ral_api_name,
    llvm_type_for,
    memref_descriptor_type,
    ral_type_code,
)
from disc_ir.dialects.disc_ral import RalExecutionContextType
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser
from disc_ir.ir.printer import MlirPrinter


@pytest.mark.parametrize(
    ("type_", "code"),
    [
        (i1, "i1"),
        (IntegerType(8, Signedness.UNSIGNED), "ui8"),
        (IntegerType(8), "i8"),
        (IntegerType(16, Signedness.UNSIGNED), "ui16"),
        (IntegerType(16), "i16"),
        (BFloat16Type(), "bf16"),
        (Float16Type(), "f16"),
        (IntegerType(32, Signedness.UNSIGNED), "ui32"),
        (IntegerType(32), "i32"),
        (IntegerType(32, Signedness.SIGNED), "i32"),
        (IntegerType(64, Signedness.UNSIGNED), "ui64"),
        (i64, "i64"),
        (Float32Type(), "f32"),
        (Float64Type(), "f64"),
        (IndexType(), "i64"),
        (RalExecutionContextType(), "pvoid"),
        (llvm.LLVMPointerType(), "pvoid"),
        (MemRefType(f32, [-1, 4]), "m2df32"),
        (MemRefType(IntegerType(8), []), "m0di8"),
        (MemRefType(IndexType(), [3]), "m1di64"),
        (MemRefType(BFloat16Type(), [1, 2, 3]), "m3dbf16"),
    ],
)
def test_type_codes(type_, code):
    assert ral_type_code(type_) == code


def test_unsupported_type_code():
    with pytest.raises(ValueError, match="no RAL type encoding"):
        ral_type_code(TensorType(f32, [2]))


def test_api_names():
    ctx, ptr = RalExecutionContextType(), llvm.LLVMPointerType()
    m2 = MemRefType(f32, [-1, -1])
    assert (
        encode_ral_api_name("ral_gemm", "cpu", [ctx, ptr, m2, m2, m2, i1, i1], [])
        == "ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1___void"
    )
    assert (
        encode_ral_api_name("dealloc", "gpu", [ctx, ptr], [])
        == "dealloc___gpu___pvoid_pvoid___void"
    )
    assert (
        encode_ral_api_name("ral_recv_input", "cpu", [ctx, IndexType()], [MemRefType(f32, [-1])])
        == "ral_recv_input___cpu___pvoid_i64___m1df32"
    )
    assert (
        encode_ral_api_name("op", "gpu", [ctx, ptr], [m2, m2], has_backend_config=True)
        == "op___gpu___pvoid_pvoid_pvoid___m2df32_m2df32"
    )


def test_descriptor_types():
    assert str(memref_descriptor_type(MemRefType(f32, [-1, 3]))) == (
        "!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<2 x i64>, !llvm.array<2 x i64>)>"
    )
    assert (
        str(memref_descriptor_type(MemRefType(f32, [])))
        == "!llvm.struct<(!llvm.ptr, !llvm.ptr, i64)>"
    )
    assert llvm_type_for(IndexType()) == i64
    assert llvm_type_for(RalExecutionContextType()) == llvm.LLVMPointerType()


def _lower(src: str) -> str:
    ctx = make_context()
    module = DiscParser(ctx, src).parse_module()
    PatternRewriteWalker(RalDispatchToLLVM(), apply_recursively=False).rewrite_module(module)
    module.verify()
    out = io.StringIO()
    MlirPrinter(stream=out).print_op(module)
    return out.getvalue()


GEMM = """
func.func @f(%ctx: !disc_ral.context, %a: memref<?x?xf32>, %b: memref<4x4xf32>, %c: memref<?x4xf32>) {
  %t = arith.constant true
  %0 = llvm.mlir.constant(0 : i32) : i32
  %s = llvm.inttoptr %0 : i32 to !llvm.ptr
  "disc_ral.dispatch"(%ctx, %s, %a, %b, %c, %t, %t) {backend_config = "", call_target_name = "ral_gemm", device = "cpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr, memref<?x?xf32>, memref<4x4xf32>, memref<?x4xf32>, i1, i1) -> ()
  "disc_ral.dispatch"(%ctx, %s, %a, %b, %c, %t, %t) {backend_config = "", call_target_name = "ral_gemm", device = "cpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr, memref<?x?xf32>, memref<4x4xf32>, memref<?x4xf32>, i1, i1) -> ()
  return
}
"""


def test_lower_gemm():
    text = _lower(GEMM)
    name = "ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1___void"
    assert "disc_ral.dispatch" not in text
    # one name global and one declaration, shared by both calls
    assert text.count(f'llvm.mlir.global internal constant @{name}("{name}\\00")') == 1
    assert text.count("llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)") == 1
    # ctx + stream + 3 memrefs of 7 descriptor fields + 2 flags = 25 slots
    slot_types = (
        "!llvm.ptr, !llvm.ptr, "
        + ", ".join(["!llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64"] * 3)
        + ", i1, i1"
    )
    assert (
        text.count(f"llvm.alloca %{{0}} x !llvm.struct<({slot_types})>".replace("%{0}", "%")) == 0
    )
    allocas = re.findall(
        r"llvm\.alloca %\d+ x (!llvm\.struct<\(.*?\)>) : \(i32\) -> !llvm\.ptr", text
    )
    assert allocas == [f"!llvm.struct<({slot_types})>"] * 2
    assert text.count("llvm.mlir.constant(25 : i32) : i32") == 2
    assert text.count("llvm.alloca") == 4
    # each descriptor field extracted: 3 memrefs x 7 fields x 2 calls
    assert text.count("llvm.extractvalue") == 42
    assert "llvm.extractvalue %3[3, 1]" in text
    assert "llvm.extractvalue %3[4, 1]" in text
    # field i stored, then its address stored in args[i]
    assert re.search(
        r"llvm\.getelementptr %\d+\[0, 24\] : \(!llvm\.ptr\) -> !llvm\.ptr, !llvm\.struct", text
    )
    assert re.search(
        r"llvm\.getelementptr %\d+\[24\] : \(!llvm\.ptr\) -> !llvm\.ptr, !llvm\.ptr", text
    )
    assert text.count("llvm.store %true, ") == 4
    assert text.count(": !llvm.ptr, !llvm.ptr") >= 50
    call = re.findall(
        r"llvm\.call @disc_ral_call\((%\d+), (%\d+), (%\d+)\) : \(!llvm\.ptr, !llvm\.ptr, !llvm\.ptr\) -> \(\)",
        text,
    )
    assert len(call) == 2
    assert "builtin.unrealized_conversion_cast %arg0 : !disc_ral.context to !llvm.ptr" in text
    assert f"llvm.mlir.addressof @{name} : !llvm.ptr" in text
    assert "!llvm.array<63 x i8>" in text


RESULTS = """
func.func @f(%ctx: !disc_ral.context) -> (memref<?xf32>, i32) {
  %c0 = arith.constant 0 : index
  %0 = "disc_ral.dispatch"(%ctx, %c0) {backend_config = "", call_target_name = "ral_recv_input", device = "cpu", has_side_effect = false} : (!disc_ral.context, index) -> memref<?xf32>
  %1 = "disc_ral.dispatch"(%ctx) {backend_config = "\\01\\FFcfg", call_target_name = "my_op", device = "gpu", has_side_effect = false} : (!disc_ral.context) -> i32
  return %0, %1 : memref<?xf32>, i32
}
"""


def test_lower_results_and_backend_config():
    text = _lower(RESULTS)
    assert "builtin.unrealized_conversion_cast %c0 : index to i64" in text
    desc = "!llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.array<1 x i64>, !llvm.array<1 x i64>)>"
    assert f"!llvm.struct<(!llvm.ptr, i64, {desc})>" in text
    assert re.search(rf"%\d+ = llvm\.load %\d+ : !llvm\.ptr -> {re.escape(desc)}", text)
    assert re.search(
        rf"builtin\.unrealized_conversion_cast %\d+ : {re.escape(desc)} to memref<\?xf32>", text
    )
    # the backend config is one more pvoid slot, a global with the bytes + NUL
    assert "@my_op___gpu___pvoid_pvoid___i32(" in text
    assert '@my_op___gpu___pvoid_pvoid___i32__attrs("\\01\\FFcfg\\00")' in text
    assert "!llvm.struct<(!llvm.ptr, !llvm.ptr, i32)>" in text
    assert re.search(r"%\d+ = llvm\.load %\d+ : !llvm\.ptr -> i32", text)
    assert "return %" in text


def test_unknown_type_is_an_error():
    src = """
    func.func @f(%ctx: !disc_ral.context, %t: tensor<2xf32>) {
      "disc_ral.dispatch"(%ctx, %t) {call_target_name = "x", device = "cpu"} : (!disc_ral.context, tensor<2xf32>) -> ()
      return
    }
    """
    with pytest.raises(DiagnosticException, match="unknown types in the dispatch op"):
        _lower(src)
