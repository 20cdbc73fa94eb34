"""The parser's memo of plain shaped types: the same text gives the same type
and parsing resumes right after it; types with more than sizes and an element
type (encodings, layouts) are parsed in full every time; bad types still fail
with a location."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, TensorType
from xdsl.utils.exceptions import ParseError

from disc_ir.ir import parser as parser_module
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser

SOURCE = """
func.func @f(%a: tensor<?x768xf32>, %b: tensor<?x768xf32>, %c: memref<4x?xi32>,
             %d: memref<4x?xi32, strided<[?, 1], offset: ?>>, %e: tensor<f32>) -> tensor<?x768xf32> {
  %0 = "test.op"(%a, %b) : (tensor<?x768xf32>, tensor<?x768xf32>) -> tensor<?x768xf32>
  func.return %0 : tensor<?x768xf32>
}
"""


def test_memoised_types_parse_the_same_and_resume_after_them() -> None:
    parser_module._TYPE_MEMO.clear()
    module = DiscParser(make_context(allow_unregistered=True), SOURCE).parse_module()
    f = next(iter(module.ops))
    a, b, c, d, e = f.regions[0].blocks[0].args
    assert a.type == b.type == TensorType(f32 := a.type.element_type, [DYNAMIC_INDEX, 768])
    assert str(f32) == "f32"
    assert isinstance(c.type, MemRefType) and c.type.get_shape() == (4, DYNAMIC_INDEX)
    assert isinstance(d.type, MemRefType) and "strided" in str(d.type.layout)
    assert e.type == TensorType(f32, [])
    assert "tensor<?x768xf32>" in parser_module._TYPE_MEMO
    assert "memref<4x?xi32>" in parser_module._TYPE_MEMO
    assert not any("strided" in k for k in parser_module._TYPE_MEMO)
    # parsed again from the memo: the same module
    again = DiscParser(make_context(allow_unregistered=True), SOURCE).parse_module()
    assert str(again) == str(module)


def test_a_bad_shaped_type_still_fails_with_its_location() -> None:
    bad = "func.func @f(%a: tensor<?x768xfoo>) {\n  func.return\n}\n"
    with pytest.raises(ParseError) as err:
        DiscParser(make_context(allow_unregistered=True), bad).parse_module()
    assert ":1:" in str(err.value)


def test_function_types_are_memoised_whole_and_resume_after_them() -> None:
    parser_module._TYPE_MEMO.clear()
    source = (
        "func.func @f(%a: tensor<?x768xf32>, %s: f32) -> tensor<?x768xf32> {\n"
        '  %0 = "test.op"(%a, %s) : (tensor<?x768xf32>, f32) -> tensor<?x768xf32>\n'
        '  %1 = "test.op"(%0, %s) : (tensor<?x768xf32>, f32) -> tensor<?x768xf32>\n'
        '  %2:2 = "test.op"(%1) : (tensor<?x768xf32>) -> (tensor<?x768xf32>, i1)\n'
        "  func.return %2#0 : tensor<?x768xf32>\n"
        "}\n"
    )
    module = DiscParser(make_context(allow_unregistered=True), source).parse_module()
    assert "(tensor<?x768xf32>, f32) -> tensor<?x768xf32>" in parser_module._TYPE_MEMO
    assert "(tensor<?x768xf32>) -> (tensor<?x768xf32>, i1)" in parser_module._TYPE_MEMO
    ops = list(next(iter(module.ops)).regions[0].blocks[0].ops)
    assert [str(r.type) for r in ops[1].results] == ["tensor<?x768xf32>"]
    assert [str(r.type) for r in ops[2].results] == ["tensor<?x768xf32>", "i1"]
    assert [str(o.type) for o in ops[1].operands] == ["tensor<?x768xf32>", "f32"]
    # a second parse, every function type from the memo, gives the same module
    again = DiscParser(make_context(allow_unregistered=True), source).parse_module()
    assert str(again) == str(module)


def test_function_types_with_more_than_plain_types_are_parsed_in_full() -> None:
    parser_module._TYPE_MEMO.clear()
    source = (
        "func.func @f(%a: memref<4xf32, strided<[1]>>) {\n"
        '  "test.op"(%a) : (memref<4xf32, strided<[1]>>) -> ()\n'
        "  func.return\n"
        "}\n"
    )
    module = DiscParser(make_context(allow_unregistered=True), source).parse_module()
    assert not any("strided" in k for k in parser_module._TYPE_MEMO)
    assert "strided<[1]>" in str(module)
