"""`memref.generic_atomic_rmw` / `memref.atomic_yield`: syntax, verifier, and
`disc-convert-unhandled-atomic-rmw` (atomic_rmw kinds LLVM has no atomicrmw
for -> generic_atomic_rmw).

Valid IR round-trips in MLIR's syntax; invalid IR is rejected with MLIR's
messages.
"""

from __future__ import annotations

import io

import pytest

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.printer import print_module
from disc_ir.ir.verify import first_verify_failure
from disc_ir.transforms.disc_convert_unhandled_atomic_rmw import (
    REDUCTION_OPS,
    convert_unhandled_atomic_rmw,
)


def _func(args: str, body: str, results: str = "f32") -> str:
    return f"func.func @f({args}) -> {results} {{\n{body}\n  return %old : {results}\n}}\n"


def _generic(elem: str, body: str, yield_type: str | None = None, arg: str | None = None) -> str:
    return _func(
        f"%m: memref<?x{elem}>, %i: index, %v: {elem}",
        f"  %old = memref.generic_atomic_rmw %m[%i] : memref<?x{elem}> {{\n"
        f"  ^bb0(%cur: {arg or elem}):\n{body}\n"
        f"    memref.atomic_yield %new : {yield_type or elem}\n  }}",
        elem,
    )


def _print(text: str) -> str:
    module = parse_module(make_context(), text)
    failure = first_verify_failure(module)
    assert failure is None, failure
    out = io.StringIO()
    print_module(module, out)
    return out.getvalue()


def _verify_error(text: str) -> str:
    failure = first_verify_failure(parse_module(make_context(), text))
    assert failure is not None, "expected a verification error"
    return f"'{failure[0]}' {failure[1]}"


def test_roundtrip() -> None:
    text = _print(_generic("f32", "    %new = arith.mulf %cur, %v : f32"))
    assert "memref.generic_atomic_rmw %arg0[%arg1] : memref<?xf32> {" in text
    assert "^bb0(%arg3: f32):" in text
    assert "memref.atomic_yield %" in text
    assert _print(text) == text
    generic = io.StringIO()
    print_module(parse_module(make_context(), text), generic, generic=True)
    assert '"memref.generic_atomic_rmw"(%arg0, %arg1) ({' in generic.getvalue()
    assert _print(generic.getvalue()) == text


def test_body_argument_must_have_the_element_type() -> None:
    message = _verify_error(_generic("f32", "    %new = arith.constant 1.0 : f32", arg="f16"))
    assert "expected block argument of the same type result type" in message


def test_yield_type_must_match() -> None:
    message = _verify_error(_generic("f32", "    %new = arith.constant 1 : i32", yield_type="i32"))
    assert "types mismatch between yield op: i32 and its parent: f32" in message


def test_body_must_be_side_effect_free() -> None:
    body = "    memref.store %v, %m[%i] : memref<?xf32>\n    %new = arith.addf %cur, %v : f32"
    message = _verify_error(_generic("f32", body))
    assert "should contain only operations with no side effects" in message


def test_subscripts_must_match_rank() -> None:
    text = _generic("f32", "    %new = arith.addf %cur, %v : f32").replace(
        "memref<?xf32>", "memref<?x?xf32>"
    )
    assert "number of subscripts" in _verify_error(text)


def test_yield_outside_generic_atomic_rmw_is_rejected() -> None:
    text = "func.func @f(%v: f32) {\n  memref.atomic_yield %v : f32\n  return\n}\n"
    try:
        message = _verify_error(text)
    except Diagnostic as err:  # the parser may already reject it
        message = str(err)
    # rejected by HasParent (expects generic_atomic_rmw) or, checked first, by
    # IsTerminator (the yield is not its block's last op)
    assert "memref.generic_atomic_rmw" in message or "must be the last operation" in message


def test_parse_error_on_non_memref_type() -> None:
    text = _generic("f32", "    %new = arith.addf %cur, %v : f32").replace(
        ": memref<?xf32> {", ": tensor<?xf32> {"
    )
    with pytest.raises(Diagnostic, match="expected a memref type"):
        parse_module(make_context(), text)


@pytest.mark.parametrize(
    ("kind", "elem", "combine"),
    [("mulf", "f32", "arith.mulf"), ("muli", "i64", "arith.muli"), ("mulf", "f16", "arith.mulf")],
)
def test_unhandled_kinds_become_generic(kind: str, elem: str, combine: str) -> None:
    text = _func(
        f"%m: memref<?x{elem}>, %i: index, %v: {elem}",
        f"  %old = memref.atomic_rmw {kind} %v, %m[%i] : ({elem}, memref<?x{elem}>) -> {elem}",
        elem,
    )
    module = parse_module(make_context(), text)
    assert convert_unhandled_atomic_rmw(module) == 1
    assert first_verify_failure(module) is None
    out = io.StringIO()
    print_module(module, out)
    printed = out.getvalue()
    assert "memref.atomic_rmw" not in printed
    assert f"memref.generic_atomic_rmw %arg0[%arg1] : memref<?x{elem}>" in printed
    # current value first, the accumulated value second; the result is returned
    assert f"= {combine} %arg3, %arg2 : {elem}" in printed
    assert "return %0" in printed


@pytest.mark.parametrize("kind", ["addf", "maxf", "minf"])
def test_kinds_with_an_llvm_atomicrmw_stay(kind: str) -> None:
    text = _func(
        "%m: memref<?xf32>, %i: index, %v: f32",
        f"  %old = memref.atomic_rmw {kind} %v, %m[%i] : (f32, memref<?xf32>) -> f32",
    )
    module = parse_module(make_context(), text)
    assert convert_unhandled_atomic_rmw(module) == 0


def test_every_reduction_kind_has_a_combining_op() -> None:
    from disc_ir.dialects.upstream.memref import ATOMIC_RMW_KINDS

    assert set(ATOMIC_RMW_KINDS) - set(REDUCTION_OPS) == {"assign"}
