"""Input inlining cleans the fusion after a step only when the step can have
orphaned an lmhlo op; the code it emits is exactly that of BladeDISC's clean
after every step (`FULL_CLEAN_EVERY_STEP`), on models with stitch, row and
loop fusions on the CPU and the GPU stitch schedule on cuda."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from xdsl.printer import Printer

import disc_ir.codegen.input_inline as inline
from disc_ir.api import entry_function, entry_signature, load_module, make_context, phase_passes

MODELS = Path(__file__).resolve().parents[1] / "models"
GRAPHS = Path(__file__).resolve().parents[2] / "bench" / "graphs"
LAST_PASS = "disc-input-inline-fusion"


def _inlined_text(path: Path, target: str) -> str:
    """The module right after input inlining (roots lowered, producers inlined)."""
    ctx = make_context()
    module = load_module(ctx, path.read_text())
    entry_signature(entry_function(module, "main"))  # the entry attributes the API adds
    for _, passes in phase_passes(target, None, ""):
        for p in passes:
            p.apply(ctx, module)
            if p.name == LAST_PASS:
                out = io.StringIO()
                Printer(stream=out).print_op(module)
                return out.getvalue()
    raise AssertionError(f"no {LAST_PASS} in the pipeline")


@pytest.mark.parametrize(
    ("path", "target"),
    [
        (MODELS / "bert_layer_dyn.mlir", "cpu"),
        (MODELS / "gpt2_block_dyn.mlir", "cpu"),
        (GRAPHS / "layernorm_gelu.mlir", "cuda"),
    ],
    ids=["bert_layer_dyn-cpu", "gpt2_block_dyn-cpu", "layernorm_gelu-cuda"],
)
def test_incremental_cleanup_emits_what_cleaning_every_step_does(
    path: Path, target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISC_CUDA_CC", "80")
    steps = {"full": 0}
    full_clean = inline.clean_unused_lhlo_ops

    def counted(block: object) -> None:
        steps["full"] += 1
        full_clean(block)  # type: ignore[arg-type]

    monkeypatch.setattr(inline, "clean_unused_lhlo_ops", counted)
    fast = _inlined_text(path, target)
    fast_cleans = steps["full"]
    monkeypatch.setattr(inline, "FULL_CLEAN_EVERY_STEP", True)
    steps["full"] = 0
    reference = _inlined_text(path, target)
    assert fast == reference
    assert fast_cleans < steps["full"], (fast_cleans, steps["full"])


class _ForgetfulRun(inline._InlineRun):  # noqa: SLF001 - the run state under test
    """A run that remembers neither the loops nor the loads without producer."""

    @property  # type: ignore[override]
    def loops(self) -> None:
        return None

    @loops.setter
    def loops(self, value: object) -> None:
        pass

    @property  # type: ignore[override]
    def no_producer(self) -> set:
        return set()

    @no_producer.setter
    def no_producer(self, value: object) -> None:
        pass

    def _forget(self) -> dict:
        return {}

    def _ignore(self, value: object) -> None:
        pass

    producers = property(_forget, _ignore)  # type: ignore[assignment]
    blocked = property(_forget, _ignore)  # type: ignore[assignment]
    loads = property(_forget, _ignore)  # type: ignore[assignment]


def _edge_pad_graph(tmp_path: Path) -> Path:
    """Edge padding of a 3x4x5 tensor as JAX writes it (slices of the first and
    last planes, concatenated): inlining its fusion takes hundreds of steps."""
    shape = [3, 4, 5]
    pads = [(1, 2), (2, 1), (1, 1)]
    final = [n + lo + hi for n, (lo, hi) in zip(shape, pads, strict=True)]

    def tensor(dims: list[int]) -> str:
        return f"tensor<{'x'.join(map(str, dims))}xf32>"

    lines = [f"func.func @main(%x: {tensor(shape)}) -> {tensor(final)} {{"]
    value = "%x"
    for dim, (low, high) in enumerate(pads):
        plane = [*shape]
        plane[dim] = 1
        edges = []
        for side, first in (("lo", 0), ("hi", shape[dim] - 1)):
            start = [0, 0, 0]
            start[dim] = first
            limit = [*shape]
            limit[dim] = first + 1
            lines.append(
                f'  %{side}{dim} = "mhlo.slice"({value}) {{start_indices = dense<{start}> : '
                f"tensor<3xi64>, limit_indices = dense<{limit}> : tensor<3xi64>, "
                f"strides = dense<1> : tensor<3xi64>}} : ({tensor(shape)}) -> {tensor(plane)}"
            )
            edges.append(f"%{side}{dim}")
        operands = [edges[0]] * low + [value] + [edges[1]] * high
        types = [tensor(plane)] * low + [tensor(shape)] + [tensor(plane)] * high
        shape = [*shape]
        shape[dim] += low + high
        lines.append(
            f'  %cat{dim} = "mhlo.concatenate"({", ".join(operands)}) {{dimension = {dim} : i64}}'
            f" : ({', '.join(types)}) -> {tensor(shape)}"
        )
        value = f"%cat{dim}"
    lines += [f"  return {value} : {tensor(shape)}", "}"]
    path = tmp_path / "edge_pad.mlir"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("graph", ["bert_layer_dyn", "edge_pad"])
def test_run_facts_emit_what_fresh_lookups_do(
    graph: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A run lists the fusion's innermost loops once, keeps each loop's loads up
    to date, remembers each load's producer and the op that kept it from being
    inlined, and skips the loads seen without producer; the code is that of
    looking all of it up at every step (and every updated load list is what a
    fresh walk finds)."""
    monkeypatch.setattr(inline, "VERIFY_LOAD_LISTS", True)
    walks = {"n": 0}
    find_loops = inline.innermost_parallel_loops

    def counted(root: object) -> list:
        walks["n"] += 1
        return find_loops(root)  # type: ignore[arg-type]

    monkeypatch.setattr(inline, "innermost_parallel_loops", counted)
    path = (
        MODELS / "bert_layer_dyn.mlir" if graph == "bert_layer_dyn" else _edge_pad_graph(tmp_path)
    )
    remembered = _inlined_text(path, "cpu")
    remembered_walks = walks["n"]
    monkeypatch.setattr(inline, "_InlineRun", _ForgetfulRun)
    walks["n"] = 0
    fresh = _inlined_text(path, "cpu")
    assert remembered == fresh
    assert remembered_walks < walks["n"], (remembered_walks, walks["n"])
