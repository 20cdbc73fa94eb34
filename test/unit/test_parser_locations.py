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


def test_an_undefined_value_is_reported_where_it_is_first_used() -> None:
    """xDSL reports values used but never defined at the end of the input;
    the error points at the first use instead (MLIR does the same), and a
    syntax error after such a use is still the error reported."""
    from xdsl.utils.exceptions import ParseError

    text = (
        "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
        "  %0 = mhlo.add %x, %y : tensor<?xf32>\n"
        "  %1 = mhlo.add %0, %z : tensor<?xf32>\n"
        "  return %1 : tensor<?xf32>\n"
        "}\n"
    )
    with pytest.raises(ParseError) as err:
        DiscParser(make_context(), text).parse_module()
    message = str(err.value)
    assert "use of undefined SSA value %y" in message
    assert ":2:21" in message  # the first use, not the end of the input
    broken = text.replace("%z : tensor<?xf32>", "%x : tensor<?xf32")
    with pytest.raises(ParseError) as err:
        DiscParser(make_context(), broken).parse_module()
    assert "use of undefined SSA value" not in str(err.value)


@pytest.mark.parametrize(
    "line,column,message",
    [
        ("%0 = mhlo.frobnicate %x : tensor<?xf32>", 8, "custom op 'mhlo.frobnicate' is unknown"),
        (
            '%0 = "mhlo.frob"(%x) : (tensor<?xf32>) -> tensor<?xf32>',
            9,
            "unregistered operation 'mhlo.frob' found in dialect ('mhlo') that does not "
            "allow unknown operations",
        ),
        (
            '%0 = "foo.bar"(%x) : (tensor<?xf32>) -> tensor<?xf32>',
            9,
            "operation 'foo.bar' being parsed with an unregistered dialect",
        ),
    ],
    ids=["custom", "generic", "dialect"],
)
def test_an_unknown_op_is_reported_at_its_name(line: str, column: int, message: str) -> None:
    """MLIR's messages, located at the op's name (xDSL's at the token after it)."""
    from xdsl.utils.exceptions import ParseError

    text = (
        "func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
        f"  {line}\n"
        "  return %0 : tensor<?xf32>\n"
        "}\n"
    )
    with pytest.raises(ParseError) as err:
        DiscParser(make_context(), text).parse_module()
    assert f":2:{column}" in str(err.value)
    assert message in str(err.value)
