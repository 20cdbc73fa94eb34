"""The first half of the pipeline (tensor optimization, placement, bufferize) plus
buffer deallocation, on the tutorial graph and on an attention + MLP block.

Checks, after every pass, that the IR verifies; at the end, that it is fully
bufferized (no mhlo op, no tensor-typed value but 1-D integer/index shape
tensors) and that every heap buffer is either returned or deallocated exactly
once.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, TensorType
from xdsl.ir import Operation

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module
from disc_ir.ir.pass_pipeline import PassSpec, build_pass
from disc_ir.pipeline import pipeline_passes

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = {
    "tutorial": ROOT / "examples" / "tutorial.mlir",
    "attention_mlp": Path(__file__).parent / "data" / "attention_mlp.mlir",
}
DEALLOC_PASSES = ["promote-buffers-to-stack", "buffer-deallocation", "disc-buffer-deallocation"]


def _run_phase(path: Path) -> ModuleOp:
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), str(path))
    module.verify()
    passes = pipeline_passes("cpu", until="bufferize") + [
        build_pass(PassSpec(n)) for n in DEALLOC_PASSES
    ]
    for p in passes:
        p.apply(ctx, module)
        try:
            module.verify()
        except Exception as exc:  # noqa: BLE001 - name the pass that broke the IR
            pytest.fail(f"IR does not verify after {p.name}: {exc}")
    return module


def _is_shape_tensor(t: object) -> bool:
    return (
        isinstance(t, TensorType)
        and len(t.get_shape()) <= 1
        and isinstance(t.element_type, IndexType | IntegerType)
    )


def _values(op: Operation):
    yield from op.results
    for region in op.regions:
        for block in region.blocks:
            yield from block.args


@pytest.fixture(scope="module", params=sorted(GRAPHS))
def bufferized(request: pytest.FixtureRequest) -> tuple[str, ModuleOp]:
    return request.param, _run_phase(GRAPHS[request.param])


def test_no_tensor_compute_left(bufferized: tuple[str, ModuleOp]) -> None:
    name, module = bufferized
    mhlo_ops = [op.name for op in module.walk() if op.name.startswith(("mhlo.", "chlo."))]
    assert not mhlo_ops, f"{name}: mhlo ops left: {mhlo_ops}"
    tensors = [
        (op.name, str(v.type))
        for op in module.walk()
        for v in _values(op)
        if isinstance(v.type, TensorType) and not _is_shape_tensor(v.type)
    ]
    assert not tensors, f"{name}: tensor values left: {tensors[:5]}"
    assert any(op.name.startswith("lmhlo.") for op in module.walk())


def test_every_alloc_returned_or_freed_once(bufferized: tuple[str, ModuleOp]) -> None:
    name, module = bufferized
    allocs = [op for op in module.walk() if op.name == "memref.alloc"]
    assert allocs, f"{name}: nothing was allocated"
    for alloc in allocs:
        buf = alloc.results[0]
        deallocs = [u.operation for u in buf.uses if u.operation.name == "memref.dealloc"]
        returned = any(u.operation.name == "func.return" for u in buf.uses)
        if returned:
            assert not deallocs, f"{name}: a returned buffer is also freed"
        else:
            assert len(deallocs) == 1, f"{name}: {len(deallocs)} deallocs of {alloc}"
            # The dealloc comes after every other use in the same block.
            dealloc = deallocs[0]
            block_ops = list(dealloc.parent_block().ops)
            position = block_ops.index(dealloc)
            for use in buf.uses:
                user = use.operation
                while user.parent_block() is not dealloc.parent_block():
                    user = user.parent_op()
                    assert user is not None
                assert block_ops.index(user) <= position


def test_attention_dots_stay_library_calls() -> None:
    module = _run_phase(GRAPHS["attention_mlp"])
    dots = [op for op in module.walk() if op.name == "lmhlo.dot_general"]
    # q, k, v projections, q.k^T, probs.v, two MLP dense layers
    assert len(dots) == 7
    # the transpose of k was folded into the q.k^T dimension numbers
    assert not any(op.name == "lmhlo.transpose" for op in module.walk())
