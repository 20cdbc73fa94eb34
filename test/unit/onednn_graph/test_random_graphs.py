"""Graphs no test wrote by hand: random op chains (eltwise, binary broadcasts, softmax,
reductions, transposes, matmuls), some dims `-1`, checked against the numpy reference
at two shapes from one compile."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onednn_builder import graph, lt, op
from onednn_inputs import make_inputs, rel_error
from onednn_reference import run_reference

import disc_ir.onednn_graph as og

UNARY: list[tuple[str, dict[str, Any]]] = [
    ("ReLU", {}), ("Sigmoid", {}), ("Tanh", {}), ("Abs", {}), ("Square", {}), ("GELU", {}),
    ("GELU", {"mode": "gelu_tanh"}), ("Elu", {"alpha": 0.5}), ("Clamp", {"min": -0.3, "max": 0.4}),
    ("HardSwish", {}), ("LeakyReLU", {"alpha": 0.2}), ("Mish", {}), ("SoftPlus", {}),
    ("Round", {}), ("HardSigmoid", {"alpha": 0.3, "beta": 0.5}), ("Exp", {}),
]  # fmt: skip
BINARY = ["Add", "Subtract", "Multiply", "Maximum", "Minimum"]


class Chain:
    """Builds a random chain; dims are symbols ('s<k>', dynamic) or ints."""

    def __init__(self, rng: np.random.Generator):
        self.rng = rng
        self.ops: list[dict[str, Any]] = []
        self.next_id = 1
        self.symbols: dict[str, tuple[int, int]] = {}  # symbol -> (size at shape A, at shape B)
        self.inputs: dict[int, list[int | str]] = {}
        rank = int(rng.integers(2, 5))
        self.shape = [self._dim() for _ in range(rank)]
        self.cur = 0
        self.inputs[0] = list(self.shape)

    def _dim(self) -> int | str:
        if self.rng.random() < 0.4:
            name = f"s{len(self.symbols)}"
            self.symbols[name] = (int(self.rng.integers(1, 6)), int(self.rng.integers(2, 7)))
            return name
        return int(self.rng.integers(1, 6))

    @staticmethod
    def json_shape(shape: list[int | str]) -> list[int]:
        return [-1 if isinstance(d, str) else d for d in shape]

    def _tensor(self, tid: int, shape: list[int | str]) -> dict[str, Any]:
        return lt(tid, self.json_shape(shape))

    def _new(self) -> int:
        self.next_id += 1
        return self.next_id

    def step(self) -> None:
        r = self.rng.random()
        src = self._tensor(self.cur, self.shape)
        rank = len(self.shape)
        if r < 0.35:
            kind, attrs = UNARY[int(self.rng.integers(len(UNARY)))]
            if kind == "Exp":  # keep magnitudes tame
                kind, attrs = "Tanh", {}
            out = self._new()
            self.ops.append(
                op(len(self.ops), kind, [src], [self._tensor(out, self.shape)], **attrs)
            )
        elif r < 0.6:
            other = self._new()
            keep = self.rng.random(rank) < 0.6
            oshape = [d if k else 1 for d, k in zip(self.shape, keep, strict=True)]
            oshape = oshape[int(self.rng.integers(0, rank)) :] or [1]
            self.inputs[other] = oshape
            out = self._new()
            kind = BINARY[int(self.rng.integers(len(BINARY)))]
            self.ops.append(op(len(self.ops), kind, [src, self._tensor(other, oshape)],
                               [self._tensor(out, self.shape)]))  # fmt: skip
        elif r < 0.7:
            out = self._new()
            axis = int(self.rng.integers(-rank, rank))
            self.ops.append(
                op(len(self.ops), "SoftMax", [src], [self._tensor(out, self.shape)], axis=axis)
            )
        elif r < 0.8 and rank > 1:
            axes = sorted({int(a) for a in self.rng.integers(0, rank, 2)})
            kind = ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"][int(self.rng.integers(4))]
            shape = [1 if i in axes else d for i, d in enumerate(self.shape)]
            out = self._new()
            self.ops.append(
                op(
                    len(self.ops),
                    kind,
                    [src],
                    [self._tensor(out, shape)],
                    axes=axes,
                    keep_dims=True,
                )
            )
            self.shape = shape
        elif r < 0.9:
            perm = [int(p) for p in self.rng.permutation(rank)]
            shape = [self.shape[p] for p in perm]
            out = self._new()
            self.ops.append(
                op(len(self.ops), "StaticTranspose", [src], [self._tensor(out, shape)], order=perm)
            )
            self.shape = shape
        else:
            n = int(self.rng.integers(1, 6))
            w = self._new()
            self.inputs[w] = [self.shape[-1], n]
            shape = [*self.shape[:-1], n]
            out = self._new()
            self.ops.append(op(len(self.ops), "MatMul", [src, self._tensor(w, [self.shape[-1], n])],
                               [self._tensor(out, shape)]))  # fmt: skip
            self.shape = shape
        self.cur = self.next_id

    def concrete(self, which: int) -> dict[int, tuple[int, ...]]:
        return {
            tid: tuple(self.symbols[d][which] if isinstance(d, str) else d for d in shape)
            for tid, shape in self.inputs.items()
        }


@pytest.mark.parametrize("seed", range(16))
def test_random_chain(seed: int) -> None:
    rng = np.random.default_rng(seed)
    chain = Chain(rng)
    for _ in range(int(rng.integers(3, 9))):
        chain.step()
    raw = graph(*chain.ops)
    exe = og.compile(json.dumps(raw))
    for which in (0, 1):
        ins = make_inputs(raw, seed=seed, shapes=chain.concrete(which))
        outs = exe.execute(ins)
        ref = run_reference(raw, ins)
        for tid, got in outs.items():
            assert got.shape == ref[tid].shape
            assert rel_error(got, ref[tid]) <= 1e-4, (seed, which, tid, rel_error(got, ref[tid]))
