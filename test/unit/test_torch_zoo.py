"""The PyTorch zoo (test/models/torch_zoo.py) through disc-ir, compared with eager.

Each model is compiled once with a dynamic batch, by `disc_ir.torch.compile`
(torch.export + torch-mlir's StableHLO) and by `torch.compile(model,
backend="disc", dynamic=True)` (the dynamo backend the `torch_dynamo_backends`
entry point registers), and run at several batch sizes against eager:
relative error `max|actual - expected| / max|expected|` at most 1e-4.
Skipped without the `torch` extra.
"""

from __future__ import annotations

import re
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torch_mlir")

import disc_ir.torch as disc_torch  # noqa: E402
from disc_ir import CompileError  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
import torch_zoo  # noqa: E402

RTOL = 1e-4
BATCHES = (2, 3, 8)


def relative_error(actual: Any, expected: Any) -> float:
    assert isinstance(actual, torch.Tensor), type(actual)
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    scale = expected.abs().max().item()
    return (actual - expected).abs().max().item() / scale if scale else 0.0


@pytest.mark.parametrize("name", sorted(torch_zoo.MODELS))
def test_export_path_matches_eager(name: str) -> None:
    spec = torch_zoo.MODELS[name]
    model = spec.build()
    exe = disc_torch.compile(model, spec.inputs(4), dynamic_shapes=spec.dynamic_shapes())
    assert "dense_resource<" in exe.stablehlo  # the weights came as resource blobs
    for batch in (1, *BATCHES):
        inputs = spec.inputs(batch)
        with torch.no_grad():
            expected = model(*inputs)
        err = relative_error(exe(*inputs), expected)
        assert err <= RTOL, f"{name} at batch {batch}: relative error {err:.3g}"


@pytest.mark.parametrize("name", sorted(torch_zoo.MODELS))
def test_dynamo_backend_matches_eager(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = torch_zoo.MODELS[name]
    model = spec.build()
    compiles = []
    real_compile = disc_torch.compile

    def counting(*args: Any, **kwargs: Any) -> Any:
        compiles.append(args)
        return real_compile(*args, **kwargs)

    monkeypatch.setattr(disc_torch, "compile", counting)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="disc", dynamic=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", disc_torch.DiscFallbackWarning)
        for batch in BATCHES:
            inputs = spec.inputs(batch)
            err = relative_error(compiled(*inputs), model(*inputs))
            assert err <= RTOL, f"{name} at batch {batch}: relative error {err:.3g}"
    assert len(compiles) == 1, f"{name}: {len(compiles)} compiles for {len(BATCHES)} batch sizes"


# Models outside the zoo, checked the same way through both entry points.


class _GatedConv(torch.nn.Module):
    """Depthwise-separable conv with a sigmoid gate and a stride-2 conv."""

    def __init__(self) -> None:
        super().__init__()
        self.dw = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.pw = torch.nn.Conv2d(8, 16, 1)
        self.gate = torch.nn.Conv2d(8, 16, 1)
        self.down = torch.nn.Conv2d(16, 16, 3, stride=2, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.dw(x)
        return self.down(self.pw(h) * torch.sigmoid(self.gate(h)))


class _SdpaAttention(torch.nn.Module):
    """Causal attention through F.scaled_dot_product_attention, with RMS norm and SiLU."""

    def __init__(self, dim: int = 32) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.out = torch.nn.Linear(dim, dim)
        self.scale = torch.nn.Parameter(torch.rand(dim) + 0.5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.scale
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        y = torch.nn.functional.scaled_dot_product_attention(
            q.unsqueeze(1), k.unsqueeze(1), v.unsqueeze(1), is_causal=True
        )
        return torch.nn.functional.silu(self.out(y.squeeze(1)))


class _MultiheadAttention(torch.nn.Module):
    """nn.MultiheadAttention as self-attention (its fused path under no_grad)."""

    def __init__(self) -> None:
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(32, 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.attn(x, x, x, need_weights=False)[0]


def _pre_norm_encoder() -> torch.nn.Module:
    """A pre-LayerNorm GELU encoder layer (the fused encoder op's other branch)."""
    return torch.nn.TransformerEncoderLayer(
        32, 4, 64, dropout=0.0, batch_first=True, norm_first=True, activation="gelu"
    )


UNSEEN = {
    "gated_conv": (_GatedConv, (8, 12, 12)),
    "sdpa_attention": (_SdpaAttention, (10, 32)),
    "multihead_attention": (_MultiheadAttention, (10, 32)),
    "pre_norm_encoder": (_pre_norm_encoder, (10, 32)),
}


@pytest.mark.parametrize("name", sorted(UNSEEN))
def test_unseen_models_match_eager(name: str) -> None:
    factory, sample = UNSEEN[name]
    torch.manual_seed(3)
    model = factory().eval()

    def inputs(batch: int) -> tuple[Any, ...]:
        return (torch.randn(batch, *sample, generator=torch.Generator().manual_seed(batch)),)

    exe = disc_torch.compile(model, inputs(2), dynamic_shapes=({0: torch.export.Dim("batch")},))
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="disc", dynamic=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", disc_torch.DiscFallbackWarning)
        for batch in BATCHES:
            expected = model(*inputs(batch))
            for how, actual in (
                ("export", exe(*inputs(batch))),
                ("dynamo", compiled(*inputs(batch))),
            ):
                err = relative_error(actual, expected)
                assert err <= RTOL, f"{name} ({how}) at batch {batch}: relative error {err:.3g}"


def test_function_with_named_dynamic_shapes() -> None:
    def f(x: Any, y: Any) -> Any:
        return torch.tanh(x @ y) + 1.0

    x, y = torch.randn(3, 5), torch.randn(5, 4)
    exe = disc_torch.compile(f, (x, y), dynamic_shapes={"x": {0: torch.export.Dim("m")}})
    x = torch.randn(9, 5)
    assert relative_error(exe(x, y), f(x, y)) <= RTOL


def test_outputs_share_memory_with_runtime_arrays() -> None:
    """Inputs go in and outputs come out through DLPack: no copies."""
    t = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    view = disc_torch.to_runtime(t)
    assert view.ctypes.data == t.data_ptr()
    back = disc_torch.from_runtime(view, torch.float32)
    assert back.data_ptr() == t.data_ptr()
    bf16 = t.to(torch.bfloat16)
    assert disc_torch.from_runtime(disc_torch.to_runtime(bf16), torch.bfloat16).equal(bf16)


def test_unsupported_graph_falls_back_with_one_line_warning() -> None:
    def f(x: Any) -> Any:
        return torch.fft.rfft(x).abs() + 1.0

    torch._dynamo.reset()
    compiled = torch.compile(f, backend="disc", dynamic=True)
    x = torch.randn(4, 16)
    with torch.no_grad(), pytest.warns(disc_torch.DiscFallbackWarning) as record:
        out = compiled(x)
    assert torch.allclose(out, f(x))
    messages = [str(w.message) for w in record if w.category is disc_torch.DiscFallbackWarning]
    assert len(messages) == 1 and "\n" not in messages[0], messages
    # the op torch-mlir could not lower: the FFT itself or the complex view it decomposes into
    assert re.match(
        r"disc: graph runs eagerly: torch\.aten\.(fft_rfft|view_as_complex) is not supported \(",
        messages[0],
    ), messages[0]


def test_compile_error_is_clear() -> None:
    def f(x: Any) -> Any:
        return torch.fft.rfft(x).abs()

    with pytest.raises(CompileError, match=r"torch\.aten\.\w+ has no StableHLO lowering"):
        disc_torch.compile(f, (torch.randn(4, 16),))


def test_backend_is_registered_by_entry_point() -> None:
    from importlib.metadata import entry_points

    (entry,) = [e for e in entry_points(group="torch_dynamo_backends") if e.name == "disc"]
    assert entry.load() is disc_torch.disc_backend
    assert torch._dynamo.lookup_backend("disc") is not None


def test_automatic_dynamic_compiles_a_static_then_a_dynamic_graph(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without dynamic=True dynamo compiles the first shape statically and, once the batch
    changes, a graph with a symbolic batch: two compiles serve every later batch size."""
    spec = torch_zoo.MODELS["mlp"]
    model = spec.build()
    compiles = []
    real_compile = disc_torch.compile

    def counting(*args: Any, **kwargs: Any) -> Any:
        compiles.append(kwargs.get("dynamic_shapes"))
        return real_compile(*args, **kwargs)

    monkeypatch.setattr(disc_torch, "compile", counting)
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="disc")
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", disc_torch.DiscFallbackWarning)
        for batch in (2, 3, 5, 8):
            inputs = spec.inputs(batch)
            assert relative_error(compiled(*inputs), model(*inputs)) <= RTOL
    assert len(compiles) == 2, compiles
    static, dynamic = compiles
    assert not any(static["tensors"]) and any(dynamic["tensors"]), compiles


def test_graph_needing_autograd_runs_eagerly() -> None:
    spec = torch_zoo.MODELS["mlp"]
    model = spec.build()
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="disc", dynamic=True)
    inputs = spec.inputs(2)
    with pytest.warns(disc_torch.DiscFallbackWarning, match="autograd is recording"):
        out = compiled(*inputs)
    out.sum().backward()  # eager: gradients flow
    assert model.fc1.weight.grad is not None


def test_bench_runs_and_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    root = str(Path(__file__).resolve().parents[2])
    if root not in sys.path:
        sys.path.insert(0, root)
    from bench import torch_zoo as bench_torch_zoo

    out = tmp_path / "torch_zoo.json"
    argv = [
        "--models",
        "mlp",
        "--batches",
        "2",
        "--repeat",
        "1",
        "--no-inductor",
        "--out",
        str(out),
    ]
    assert bench_torch_zoo.main(argv) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["model"] == "mlp" and row["batch"] == 2
    assert row["eager"] > 0 and row["disc-ir"] > 0 and "inductor" not in row
    assert "mlp" in capsys.readouterr().out


class _TokenClassifier(torch.nn.Module):
    """Token and position embeddings (int64 ids), LayerNorm, a head and log-softmax."""

    def __init__(self) -> None:
        super().__init__()
        self.tokens = torch.nn.Embedding(100, 32)
        self.positions = torch.nn.Embedding(16, 32)
        self.norm = torch.nn.LayerNorm(32)
        self.head = torch.nn.Linear(32, 100)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(ids.shape[1]).unsqueeze(0)
        h = self.norm(self.tokens(ids) + self.positions(positions))
        return self.head(h).log_softmax(-1)


def test_unseen_token_model_with_dynamic_batch_and_length() -> None:
    torch.manual_seed(5)
    model = _TokenClassifier().eval()

    def ids(batch: int, length: int) -> torch.Tensor:
        return torch.randint(
            0, 100, (batch, length), generator=torch.Generator().manual_seed(batch)
        )

    dims = {0: torch.export.Dim("batch"), 1: torch.export.Dim("length", max=16)}
    exe = disc_torch.compile(model, (ids(2, 12),), dynamic_shapes=(dims,))
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="disc", dynamic=True)
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("error", disc_torch.DiscFallbackWarning)
        for batch, length in ((2, 12), (3, 7), (8, 16)):
            x = ids(batch, length)
            expected = model(x)
            for how, actual in (("export", exe(x)), ("dynamo", compiled(x))):
                err = relative_error(actual, expected)
                assert err <= RTOL, f"{how} at {batch}x{length}: relative error {err:.3g}"


def test_bad_inputs_are_clear_errors() -> None:
    from disc_ir.runtime import RalInputError

    spec = torch_zoo.MODELS["mlp"]
    exe = disc_torch.compile(spec.build(), spec.inputs(2), dynamic_shapes=spec.dynamic_shapes())
    with pytest.raises(TypeError, match=r"exported with \(1 tensor\(s\)\), got \(Tensor, Tensor\)"):
        exe(torch.randn(2, 64), torch.randn(2, 64))
    with pytest.raises(TypeError, match=r"got \(list\)"):
        exe([[0.0] * 64])
    with pytest.raises(RalInputError, match="expected a torch.Tensor, got float"):
        exe(3.0)
    with pytest.raises(RalInputError):
        exe(torch.randn(2, 63))  # the static feature size
    with pytest.raises(RalInputError):
        exe(torch.randn(2, 64, dtype=torch.float64))
    with pytest.raises(TypeError, match="torch.nn.Module or a function"):
        disc_torch.compile(42, (torch.randn(2),))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not parameters of"):
        disc_torch.compile(lambda x: x + 1, (torch.randn(2),), dynamic_shapes={"y": {0: None}})
