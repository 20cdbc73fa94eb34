"""The PyTorch model zoo: small versions of the models BladeDISC's PyTorch users bring.

Each `TorchModel` builds an `nn.Module` in eval mode with seeded weights and
its inputs at a given batch size; `dynamic_shapes` marks the batch axis of
every input dynamic (torch.export's form). test/unit/test_torch_zoo.py
compares disc-ir (both `disc_ir.torch.compile` and `torch.compile(...,
backend="disc")`) with eager at several batch sizes, and
`python -m bench.torch_zoo` times disc-ir against eager and inductor.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


class MLP(nn.Module):
    def __init__(self, dim: int = 64, hidden: int = 256) -> None:
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(F.gelu(self.fc1(x)))


class GPT2Block(nn.Module):
    """GPT-2's transformer block: pre-LayerNorm causal self-attention and MLP (tanh GELU)."""

    def __init__(self, dim: int = 64, heads: int = 4, max_len: int = 64) -> None:
        super().__init__()
        self.heads = heads
        self.ln_1 = nn.LayerNorm(dim)
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = nn.Linear(dim, 4 * dim)
        self.mlp_proj = nn.Linear(4 * dim, dim)
        mask = torch.tril(torch.ones(max_len, max_len, dtype=torch.bool))
        self.register_buffer("bias", mask.view(1, 1, max_len, max_len), persistent=False)

    def attention(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(c // self.heads)
        scores = scores.masked_fill(~self.bias[:, :, :t, :t], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.ln_1(x))
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class BasicBlock(nn.Module):
    """ResNet's basic block: conv3x3-BN-ReLU-conv3x3-BN, plus the input, ReLU."""

    def __init__(self, channels: int = 16) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(y)) + x)


class SmallCNN(nn.Module):
    """conv-ReLU-maxpool, conv-ReLU, global average pool, linear classifier."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(x.mean(dim=(2, 3)))


def _bert_layer() -> nn.Module:
    return nn.TransformerEncoderLayer(
        d_model=64, nhead=4, dim_feedforward=128, dropout=0.0, batch_first=True
    )


def _randomize_norm_stats(model: nn.Module, gen: torch.Generator) -> None:
    """BatchNorm statistics and affine parameters away from their identity defaults."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=gen) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.weight.data.copy_(torch.rand(m.num_features, generator=gen) + 0.5)
            m.bias.data.copy_(torch.randn(m.num_features, generator=gen) * 0.1)


@dataclass(frozen=True)
class TorchModel:
    """A zoo model: `build()` (seeded, eval), `input_shape(batch)`, dynamic batch axis 0."""

    name: str
    factory: Callable[[], nn.Module]
    sample_shape: tuple[int, ...]

    def build(self, seed: int = 0) -> nn.Module:
        gen = torch.manual_seed(seed)
        model = self.factory()
        with torch.no_grad():
            _randomize_norm_stats(model, gen)
        return model.eval()

    def inputs(self, batch: int, seed: int = 1) -> tuple[torch.Tensor, ...]:
        gen = torch.Generator().manual_seed(seed * 1000 + batch)
        return (torch.randn((batch, *self.sample_shape), generator=gen),)

    def dynamic_shapes(self) -> tuple[dict[int, torch.export.Dim]]:
        return ({0: torch.export.Dim("batch", min=1, max=4096)},)


MODELS: dict[str, TorchModel] = {
    m.name: m
    for m in (
        TorchModel("mlp", MLP, (64,)),
        TorchModel("bert_layer", _bert_layer, (16, 64)),
        TorchModel("gpt2_block", GPT2Block, (16, 64)),
        TorchModel("resnet_block", BasicBlock, (16, 8, 8)),
        TorchModel("small_cnn", SmallCNN, (3, 16, 16)),
    )
}
