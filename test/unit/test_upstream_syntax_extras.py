"""Verifier and syntax fixes in the upstream dialects disc-ir extends.

- `shape.shape_of` accepts an extent tensor of dynamic length and rejects a
  static length other than the operand's rank;
- `memref.rank` takes ranked and unranked memrefs and gives an index;
- `scf.if` / `scf.for` read a single result type without parentheses.
"""

from __future__ import annotations

import pytest

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.verify import first_verify_failure


def _verify(text: str) -> tuple[str, str] | None:
    module = parse_module(make_context(), text)
    failure = first_verify_failure(module)
    return None if failure is None else (failure[0], failure[1])


def _shape_of(result_type: str) -> str:
    return (
        "func.func @f(%x: tensor<?x4x?xf32>) {\n"
        f"  %0 = shape.shape_of %x : tensor<?x4x?xf32> -> {result_type}\n"
        "  return\n}\n"
    )


@pytest.mark.parametrize("result_type", ["tensor<?xindex>", "tensor<3xindex>", "!shape.shape"])
def test_shape_of_accepts_matching_or_dynamic_extent_tensor(result_type: str) -> None:
    assert _verify(_shape_of(result_type)) is None


def test_shape_of_rejects_wrong_static_length() -> None:
    failure = _verify(_shape_of("tensor<2xindex>"))
    assert failure is not None
    name, message = failure
    assert name == "shape.shape_of"
    assert "does not match the rank 3" in message
    assert "'shape.shape_of' op" not in message  # the driver adds the prefix once


def test_memref_rank_operand_and_result_types() -> None:
    ok = (
        "func.func @f(%m: memref<*xf32>) -> index {\n"
        "  %0 = memref.rank %m : memref<*xf32>\n  return %0 : index\n}\n"
    )
    assert _verify(ok) is None
    bad = (
        "func.func @f(%t: tensor<2xf32>) -> index {\n"
        '  %0 = "memref.rank"(%t) : (tensor<2xf32>) -> index\n  return %0 : index\n}\n'
    )
    failure = _verify(bad)
    assert failure is not None and failure[0] == "memref.rank"


def test_scf_single_result_type_without_parentheses() -> None:
    text = (
        "func.func @f(%c: i1, %m: memref<2xf32>) -> memref<2xf32> {\n"
        "  %0 = scf.if %c -> memref<2xf32> {\n    scf.yield %m : memref<2xf32>\n"
        "  } else {\n    scf.yield %m : memref<2xf32>\n  }\n"
        "  return %0 : memref<2xf32>\n}\n"
    )
    assert _verify(text) is None


def test_scf_for_missing_arrow_is_a_parse_error() -> None:
    text = (
        "func.func @f(%m: memref<2xf32>, %n: index) {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %0 = scf.for %i = %c0 to %n step %c0 iter_args(%a = %m) {\n"
        "    scf.yield %a : memref<2xf32>\n  }\n  return\n}\n"
    )
    with pytest.raises(Diagnostic):
        parse_module(make_context(), text)
