"""VerifyEach: verification after every pass, skipped where a pass left the IR unchanged."""

from __future__ import annotations

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i32, i64

import disc_ir.ir.verify as verify_mod
from disc_ir.api import CompileError, lower_to_llvm_ir
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module
from disc_ir.ir.verify import VerifyEach

SOURCE = """
func.func @main(%arg0: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %0 = arith.addi %arg0, %c1 : i32
  return %0 : i32
}
"""


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the full verifications VerifyEach runs."""
    calls: list[int] = []
    real = verify_mod.first_verify_failure

    def counting(root):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(root)

    monkeypatch.setattr(verify_mod, "first_verify_failure", counting)
    return calls


def test_unchanged_ir_is_not_verified_again(counted: list[int]) -> None:
    module = parse_module(make_context(), SOURCE)
    verifier = VerifyEach()
    assert verifier.first_failure(module) is None
    assert verifier.first_failure(module) is None
    assert len(counted) == 1


def test_a_change_is_verified_and_a_broken_ir_reported(counted: list[int]) -> None:
    module = parse_module(make_context(), SOURCE)
    verifier = VerifyEach()
    assert verifier.first_failure(module) is None
    const = next(op for op in module.walk() if isinstance(op, arith.ConstantOp))
    # a constant whose value does not match its result type no longer verifies
    const.properties["value"] = IntegerAttr(1, i64)
    failure = verifier.first_failure(module)
    assert failure is not None and failure[0] == "arith.constant"
    assert len(counted) == 2
    # a failing root keeps no snapshot: it is verified again, and fails again
    assert verifier.first_failure(module) is not None
    assert len(counted) == 3
    const.properties["value"] = IntegerAttr(1, i32)
    assert verifier.first_failure(module) is None
    assert len(counted) == 4


def test_roots_keep_their_own_snapshot(counted: list[int]) -> None:
    ctx = make_context()
    first, second = parse_module(ctx, SOURCE), parse_module(ctx, SOURCE)
    verifier = VerifyEach()
    for root in (first, second, first, second):
        assert verifier.first_failure(root) is None
    assert len(counted) == 2


def test_pipeline_with_verification_compiles_as_without() -> None:
    text = """
    func.func @main(%arg0: tensor<?x4xf32>) -> tensor<?x4xf32> {
      %0 = mhlo.add %arg0, %arg0 : tensor<?x4xf32>
      %1 = mhlo.exponential %0 : tensor<?x4xf32>
      return %1 : tensor<?x4xf32>
    }
    """
    checked = lower_to_llvm_ir(text, verify=True, keep_ir=False)
    plain = lower_to_llvm_ir(text, verify=False, keep_ir=False)
    assert checked.whole_llvm_ir() == plain.whole_llvm_ir()
    with pytest.raises(CompileError):
        lower_to_llvm_ir(
            "func.func @main(%arg0: i32) -> i64 {\n return %arg0 : i32\n}", verify=True
        )
