"""BlockOrder / OpOrder answer `is_before_in_block` without walking the block."""

from __future__ import annotations

import random

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation

from disc_ir.analysis.block_order import BlockOrder, OpOrder


def _const(i: int) -> Operation:
    return arith.ConstantOp(IntegerAttr(i, IndexType()))


def _check_all_pairs(order: BlockOrder, block: Block) -> None:
    ops = list(block.ops)
    for a in ops:
        for b in ops:
            assert order.is_before(a, b) == a.is_before_in_block(b), (a, b)


def test_order_of_a_fresh_block():
    block = Block([_const(i) for i in range(8)])
    order = BlockOrder(block)
    _check_all_pairs(order, block)
    assert [order[o] for o in block.ops] == sorted(order[o] for o in block.ops)


def test_insertions_runs_erasures_and_moves_keep_the_order():
    rng = random.Random(0)
    block = Block([_const(i) for i in range(20)])
    order = BlockOrder(block)
    for step in range(300):
        ops = list(block.ops)
        kind = rng.random()
        if kind < 0.6:  # a run of 1-3 new ops somewhere
            anchor = rng.choice([*ops, None])
            for _ in range(rng.randint(1, 3)):
                new = _const(100 + step)
                if anchor is None:
                    block.add_op(new)
                else:
                    block.insert_op_before(new, anchor)
        elif kind < 0.8 and len(ops) > 2:
            victim = rng.choice(ops)
            victim.detach()
            victim.erase()
        elif len(ops) > 2:  # a move, reported
            op = rng.choice(ops)
            op.detach()
            block.insert_op_before(op, rng.choice([o for o in block.ops]))
            order.moved(op)
        a, b = rng.choice(list(block.ops)), rng.choice(list(block.ops))
        assert order.is_before(a, b) == a.is_before_in_block(b)
    _check_all_pairs(order, block)


def test_inserting_again_and_again_at_one_place_rekeys_when_the_gap_runs_out():
    block = Block([_const(0), _const(1)])
    order = BlockOrder(block)
    last = block.last_op
    assert last is not None
    for i in range(120):  # halves the gap before `last` each time: more than 40 halvings
        new = _const(10 + i)
        block.insert_op_before(new, last)
        assert order.is_before(new, last)
        assert order.is_before(block.first_op, new)  # type: ignore[arg-type]
    _check_all_pairs(order, block)


def test_op_order_spans_blocks_and_answers_false_across_them():
    b1 = Block([_const(0), _const(1)])
    b2 = Block([_const(2)])
    order = OpOrder()
    x, y = list(b1.ops)
    (z,) = list(b2.ops)
    assert order.is_before(x, y) and not order.is_before(y, x)
    assert not order.is_before(x, x)
    assert not order.is_before(x, z) and not order.is_before(z, x)
    detached = _const(3)
    assert not order.is_before(detached, x)
