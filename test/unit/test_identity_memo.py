"""`IdentityMemo` computes a function once per key object, never serves one
object's value for another (equal or not), and stays within its size;
`ClassMemo` computes one once per class until cleared."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, i64

from disc_ir.ir.memo import ClassMemo, IdentityMemo


def test_once_per_object_and_bounded() -> None:
    calls: list[object] = []

    def value_of(attr: IntegerAttr) -> int:
        calls.append(attr)
        return attr.value.data

    memo: IdentityMemo[IntegerAttr, int] = IdentityMemo(value_of, limit=3)
    a, b = IntegerAttr(7, i64), IntegerAttr(7, i64)
    assert memo(a) == memo(a) == 7
    assert calls == [a]
    assert memo(b) == 7 and calls == [a, b]  # an equal object is its own key
    for v in range(5):
        assert memo(IntegerAttr(v, i64)) == v
    assert len(memo._table) <= 3  # noqa: SLF001 - the bound under test
    memo.clear()
    assert memo(a) == 7 and calls[-1] is a


def test_class_memo_once_per_class_until_cleared() -> None:
    calls: list[type] = []

    def name_of(cls: type) -> str:
        calls.append(cls)
        return cls.__name__

    memo: ClassMemo[str] = ClassMemo(name_of)
    assert memo[int] == memo[int] == "int" and memo[bool] == "bool"
    assert calls == [int, bool]  # a subclass is its own key
    memo.clear()
    assert memo[int] == "int" and calls == [int, bool, int]
