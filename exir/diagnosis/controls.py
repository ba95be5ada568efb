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
