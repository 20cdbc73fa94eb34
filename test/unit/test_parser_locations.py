"""The parser's one-match reading of common locations gives exactly the
locations xDSL's token-by-token parse gives (aliases defined before or after
their use, names with and without a child, file:line:col with or without a
range's end, call sites, unknown), and falls
back to it for every other form."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from xdsl.ir import Operation

from disc_ir.ir import parser as parser_module
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser

EXPORTS = Path(__file__).resolve().parent / "data" / "stablehlo"

SOURCE = """
#early = loc("early.py":3:4)
module {
  func.func @f(%a: f32 loc("a"), %b: f32 loc(#late)) -> f32 {
    %0 = "test.op"(%a, %b) : (f32, f32) -> f32 loc(#early)
    %1 = "test.op"(%0) : (f32) -> f32 loc("named"(#late))
    %2 = "test.op"(%1) : (f32) -> f32 loc(unknown)
    %3 = "test.op"(%2) : (f32) -> f32 loc("x.py":7:1 to :9)
    %4 = "test.op"(%3) : (f32) -> f32 loc(callsite(#early at #late))
    %5 = "test.op"(%4) : (f32) -> f32 loc(fused["a", #early])
    %6 = "test.op"(%5) : (f32) -> f32 loc("esc\\"aped")
    %7 = "test.op"(%6) : (f32) -> f32 loc("outer"("inner"))
    %8 = "test.op"(%7) : (f32) -> f32 loc("y.py":7:1 to 8:2)
    %9 = "test.op"(%8) : (f32) -> f32 loc(callsite(#late at #chain))
    func.return %9 : f32 loc(#chain)
  }
}
#late = loc("late"(#early))
#chain = loc("chain"(#late))
"""


def _locations(text: str) -> list[object]:
    module = DiscParser(make_context(allow_unregistered=True), text).parse_module()
    out: list[object] = []
    for op in module.walk():
        assert isinstance(op, Operation)
        out.append(op.location)
        for region in op.regions:
            for block in region.blocks:
                out.extend(arg.location for arg in block.args)
    return out


@pytest.mark.parametrize(
    "text",
    [
        SOURCE,
        (EXPORTS / "mlp.dynamic.mlir").read_text(),
        (EXPORTS / "softmax.dynamic.mlir").read_text(),
    ],
    ids=["forms", "jax-mlp", "jax-softmax"],
)
def test_fast_locations_equal_the_token_parse(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _locations(text)
    monkeypatch.setattr(parser_module, "_FAST_LOCATION", re.compile(r"(?!)"))
    slow = _locations(text)
    assert fast == slow
    assert any(str(loc) != "loc(unknown)" for loc in fast)
