"""convert-scf-to-cf lowers `scf.for` and `scf.if` to exactly the IR xDSL's
upstream patterns make (same blocks, ops, properties and order)."""

from __future__ import annotations

import pytest
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms import convert_scf_to_cf as upstream

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module
from disc_ir.transforms import convert_scf_to_cf as ours

SOURCES = {
    "for-carried": """
func.func @f(%lb: index, %ub: index, %step: index, %x: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %x) -> (f32) {
    %y = arith.addf %acc, %acc : f32
    scf.yield %y : f32
  }
  func.return %r : f32
}
""",
    "for-nested-if": """
func.func @g(%n: index, %c: i1, %m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      scf.if %c {
        memref.store %v, %m[%j] : memref<?xf32>
      }
    }
  }
  func.return
}
""",
    "if-results": """
func.func @h(%c: i1, %a: f32, %b: f32) -> (f32, f32) {
  %r:2 = scf.if %c -> (f32, f32) {
    scf.yield %a, %b : f32, f32
  } else {
    %s = arith.mulf %a, %b : f32
    scf.yield %s, %a : f32, f32
  }
  func.return %r#0, %r#1 : f32, f32
}
""",
}


def _lowered(text: str, patterns: list) -> str:
    module = parse_module(make_context(), text)
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns), apply_recursively=True
    ).rewrite_module(module)
    module.verify()
    return str(module)


@pytest.mark.parametrize("name", list(SOURCES))
def test_for_and_if_lowered_as_upstream(name: str) -> None:
    mine = _lowered(SOURCES[name], ours.scf_to_cf_patterns())
    theirs = _lowered(
        SOURCES[name],
        [
            ours.ParallelLowering(),
            ours.WhileLowering(),
            ours.ExecuteRegionLowering(),
            upstream.SwitchLowering(),
            upstream.IfLowering(),
            upstream.ForLowering(),
        ],
    )
    assert "scf." not in mine
    assert mine == theirs
