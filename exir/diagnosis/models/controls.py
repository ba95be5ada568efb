"""Control models: every op depends on the input, or the constants are
precomputed, so no subgraph of lifted constants is left to delegate.
"""

import torch
from torch import nn


class PlainConvNet(nn.Module):
    """Control: conv, batch norm, ReLU, pooling and a linear head (ResNet or
    MobileNet style); every op depends on the input, no constant subgraph."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU()
        )
        self.head = nn.Linear(8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean(dim=(2, 3)))


class BufferPositionTable(nn.Module):
    """Control: a positional table precomputed once into a registered buffer
    (BERT/GPT-2 style absolute positions): ``forward`` only adds it, so no
    subgraph of constants is left to delegate."""

    def __init__(self, length: int = 16, dim: int = 32) -> None:
        super().__init__()
        table = torch.arange(length * dim, dtype=torch.float32).reshape(length, dim)
        self.register_buffer("table", torch.sin(table / 100.0))
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x + self.table)


class Int64RelativeBuckets(nn.Module):
    """T5-style relative-position buckets computed in ``forward`` in int64
    and looked up in an ``nn.Embedding``: the buckets depend on no input, but
    the ops that make them are integer ones."""

    def __init__(self, dim: int = 32, length: int = 16, buckets: int = 8):
        super().__init__()
        self.length, self.buckets = length, buckets
        self.qk = nn.Linear(dim, 2 * dim)
        self.bias = nn.Embedding(buckets, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(self.length)
        relative = (positions[None, :] - positions[:, None]).abs()
        exact = self.buckets // 2
        large = exact + (relative - exact).clamp(min=0) // 2
        bucket = torch.where(relative < exact, relative, large)
        bucket = bucket.clamp(max=self.buckets - 1)
        q, k = self.qk(x).chunk(2, dim=-1)
        return q @ k.transpose(-2, -1) + self.bias(bucket).squeeze(-1)


class TimestepSinusoid(nn.Module):
    """A diffusion-style timestep embedding: the frequencies come from
    ``arange`` in ``forward`` and meet the timestep input."""

    def __init__(self, dim: int = 32):
        super().__init__()
        self.dim = dim
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.SiLU(), nn.Linear(dim, dim))

    def forward(self, t: torch.Tensor) -> torch.Tensor:
        half = self.dim // 2
        steps = torch.arange(half, dtype=torch.float32) / half
        freqs = torch.exp(-9.210340371976184 * steps)  # log(10000)
        angles = t[:, None] * freqs[None]
        return self.mlp(torch.cat((angles.cos(), angles.sin()), dim=-1))


class DynamicLengthSine(nn.Module):
    """A sine over the positions of an input whose length is dynamic in the
    export: the positions depend on the input's symbolic size."""

    def __init__(self, dim: int = 32):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(x.shape[1], dtype=torch.float32)
        return self.proj(x + torch.sin(positions[:, None] / 100.0))


class PlainAttributeTable(nn.Module):
    """A table kept as a plain tensor attribute (neither parameter nor
    buffer), which ``torch.export`` lifts as a constant, scaled in
    ``forward``: the scaling depends on no input."""

    def __init__(self, length: int = 16, dim: int = 32) -> None:
        super().__init__()
        table = torch.arange(length * dim, dtype=torch.float32).reshape(length, dim)
        self.table = torch.sin(table / 100.0)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.proj(x + self.table * 2.0)
