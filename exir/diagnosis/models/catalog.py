"""Small models, torch only, that carry #22309's trigger or serve as controls.

The trigger: a subgraph that depends on no input (positions, frequencies,
buckets computed with ``arange`` in ``forward``). A partitioner that
delegates it gives a delegated program whose placeholders are all lifted
constants. Random weights; nothing is downloaded.
"""

import math
from typing import Callable, Dict, Optional, Tuple

import torch
from torch import nn

from ...shared.repro import SineFrequencies

from .controls import (
    BufferPositionTable,
    DynamicLengthSine,
    Int64RelativeBuckets,
    PlainAttributeTable,
    PlainConvNet,
    TimestepSinusoid,
)


class PositionEmbeddingSine(nn.Module):
    """DETR's sine position embedding (DETR, Deformable DETR, RT-DETR,
    RF-DETR) for a fixed grid without a padding mask, added to a feature map
    of shape ``(1, 2 * num_pos_feats, height, width)``. Without a mask the
    embedding depends on no input: every operand is a constant."""

    def __init__(self, height: int = 8, width: int = 10, num_pos_feats: int = 16):
        super().__init__()
        self.height, self.width, self.num_pos_feats = height, width, num_pos_feats

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        eps, scale = 1e-6, 2 * math.pi
        y_embed = torch.arange(1, self.height + 1, dtype=torch.float32)
        x_embed = torch.arange(1, self.width + 1, dtype=torch.float32)
        y_embed = y_embed / (y_embed[-1:] + eps) * scale
        x_embed = x_embed / (x_embed[-1:] + eps) * scale
        y_embed = y_embed[:, None].expand(self.height, self.width)
        x_embed = x_embed[None, :].expand(self.height, self.width)
        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32)
        dim_t = 10000.0 ** (
            2 * torch.div(dim_t, 2, rounding_mode="floor") / self.num_pos_feats
        )
        pos_x = x_embed[:, :, None] / dim_t
        pos_y = y_embed[:, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, 0::2].sin(), pos_x[:, :, 1::2].cos()), dim=3)
        pos_y = torch.stack((pos_y[:, :, 0::2].sin(), pos_y[:, :, 1::2].cos()), dim=3)
        pos = torch.cat((pos_y.flatten(2), pos_x.flatten(2)), dim=2).permute(2, 0, 1)
        return x + pos


class RotaryAttention(nn.Module):
    """A self-attention block with rotary position embeddings whose cos/sin
    cache is computed in ``forward`` (Llama, Mistral, Qwen, GPT-NeoX style
    RoPE at a fixed sequence length): the cache depends on no input."""

    def __init__(self, dim: int = 32, seq_len: int = 16, base: float = 10000.0):
        super().__init__()
        self.dim, self.seq_len, self.base = dim, seq_len, base
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def _rotate(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor):
        half = x.shape[-1] // 2
        rotated = torch.cat((-x[..., half:], x[..., :half]), dim=-1)
        return x * cos + rotated * sin

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        steps = torch.arange(0, self.dim, 2, dtype=torch.float32) / self.dim
        inv_freq = 1.0 / (self.base**steps)
        positions = torch.arange(self.seq_len, dtype=torch.float32)
        freqs = positions[:, None] * inv_freq[None, :]
        angles = torch.cat((freqs, freqs), dim=-1)
        cos, sin = angles.cos(), angles.sin()
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k = self._rotate(q, cos, sin), self._rotate(k, cos, sin)
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.dim)
        return self.out(scores.softmax(dim=-1) @ v)


class InterpolatedViT(nn.Module):
    """A ViT stem whose learned position-embedding table, sized for
    ``image_size``, is interpolated in ``forward`` to the patch grid of a
    smaller input, as DINOv2 (and DeiT/ViT checkpoints run off their
    training size) do: the resize depends on no input."""

    def __init__(self, image_size: int = 32, patch: int = 4, dim: int = 32):
        super().__init__()
        self.grid = image_size // patch
        self.embed = nn.Conv2d(3, dim, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.randn(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, self.grid * self.grid + 1, dim))
        self.mlp = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        tokens = self.embed(x)
        height, width = tokens.shape[-2:]
        tokens = tokens.flatten(2).transpose(1, 2)
        table = self.pos_embed[:, 1:].reshape(1, self.grid, self.grid, -1)
        table = nn.functional.interpolate(
            table.permute(0, 3, 1, 2),
            size=(height, width),
            mode="bicubic",
            align_corners=False,
        )
        table = table.permute(0, 2, 3, 1).reshape(1, height * width, -1)
        pos = torch.cat((self.pos_embed[:, :1], table), dim=1)
        tokens = torch.cat((self.cls_token, tokens), dim=1) + pos
        return tokens + self.mlp(tokens)


class RelativePositionBias(nn.Module):
    """Attention scores plus a bias looked up by relative-position bucket,
    the buckets computed from ``arange`` in ``forward`` (T5, Swin, BEiT,
    XLNet-style relative attention): the bucket indices depend on no input."""

    def __init__(self, dim: int = 32, length: int = 16, buckets: int = 8):
        super().__init__()
        self.length, self.buckets = length, buckets
        self.qk = nn.Linear(dim, 2 * dim)
        self.bias = nn.Embedding(buckets, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(self.length, dtype=torch.float32)
        relative = (positions[None, :] - positions[:, None]).abs()
        exact = self.buckets // 2
        large = exact + torch.floor(
            torch.log(relative / exact + 1e-6)
            / math.log(self.length / exact)
            * (self.buckets - exact)
        )
        large = torch.clamp(large, max=self.buckets - 1)
        bucket = torch.where(relative < exact, relative, large).to(torch.long)
        q, k = self.qk(x).chunk(2, dim=-1)
        return q @ k.transpose(-2, -1) + self.bias(bucket).squeeze(-1)


ModelFactory = Callable[[], Tuple[nn.Module, Tuple[torch.Tensor, ...]]]

# name -> (builds the model in eval mode with its example inputs, carries the trigger)
MODELS: Dict[str, Tuple[ModelFactory, bool]] = {
    "issue-reduced": (lambda: (SineFrequencies(), (torch.randn(4, 128),)), True),
    "detr-sine": (
        lambda: (PositionEmbeddingSine(), (torch.randn(1, 32, 8, 10),)),
        True,
    ),
    "rope-attention": (lambda: (RotaryAttention(), (torch.randn(1, 16, 32),)), True),
    "dinov2-interpolated": (
        lambda: (InterpolatedViT(), (torch.randn(1, 3, 16, 16),)),
        True,
    ),
    "t5-relative-bias": (
        lambda: (RelativePositionBias(), (torch.randn(1, 16, 32),)),
        True,
    ),
    "conv-control": (lambda: (PlainConvNet(), (torch.randn(1, 3, 16, 16),)), False),
    "buffer-table-control": (
        lambda: (BufferPositionTable(), (torch.randn(1, 16, 32),)),
        False,
    ),
    "plain-attribute-control": (
        lambda: (PlainAttributeTable(), (torch.randn(1, 16, 32),)),
        False,
    ),
    "t5-int64-buckets": (
        lambda: (Int64RelativeBuckets(), (torch.randn(1, 16, 32),)),
        False,
    ),
    "timestep-sinusoid": (
        lambda: (TimestepSinusoid(), (torch.tensor([10.0, 500.0]),)),
        False,
    ),
    "dynamic-length-sine": (
        lambda: (DynamicLengthSine(), (torch.randn(1, 16, 32),)),
        False,
    ),
}
# The models exported with a dynamic dimension: name -> torch.export's
# dynamic_shapes (made on demand: torch.export.Dim needs torch).
DYNAMIC = {"dynamic-length-sine": lambda: ({1: torch.export.Dim("length", max=64)},)}


def dynamic_shapes(name: str) -> Optional[Tuple[Dict[int, object], ...]]:
    return DYNAMIC[name]() if name in DYNAMIC else None


def build(name: str) -> Tuple[nn.Module, Tuple[torch.Tensor, ...]]:
    """The model ``name`` in eval mode, with example inputs, seeded."""
    torch.manual_seed(0)
    model, inputs = MODELS[name][0]()
    return model.eval(), inputs
