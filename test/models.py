"""Input-independent subgraphs of the kind that trigger #22309 once a
partitioner splits them out: their operands become lifted constants."""

import math

import torch
from exportpass_fix.repro import SineFrequencies

__all__ = ["PositionEmbeddingSine", "SineFrequencies", "example_input"]


class PositionEmbeddingSine(torch.nn.Module):
    """DETR's sine position embedding (as RF-DETR uses it) for a fixed
    ``height`` x ``width`` grid with no padding mask, added to ``x`` of shape
    ``(batch, 2 * num_pos_feats, height, width)``. With no mask the embedding
    depends on no input: every operand is a constant."""

    def __init__(
        self,
        height: int = 8,
        width: int = 10,
        num_pos_feats: int = 16,
        temperature: float = 10000.0,
    ) -> None:
        super().__init__()
        self.height = height
        self.width = width
        self.num_pos_feats = num_pos_feats
        self.temperature = temperature
        self.scale = 2 * math.pi

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        eps = 1e-6
        y_embed = torch.arange(1, self.height + 1, dtype=torch.float32)
        x_embed = torch.arange(1, self.width + 1, dtype=torch.float32)
        y_embed = y_embed / (y_embed[-1:] + eps) * self.scale
        x_embed = x_embed / (x_embed[-1:] + eps) * self.scale
        y_embed = y_embed[:, None].expand(self.height, self.width)
        x_embed = x_embed[None, :].expand(self.height, self.width)

        dim_t = torch.arange(self.num_pos_feats, dtype=torch.float32)
        dim_t = self.temperature ** (
            2 * torch.div(dim_t, 2, rounding_mode="floor") / self.num_pos_feats
        )
        pos_x = x_embed[:, :, None] / dim_t
        pos_y = y_embed[:, :, None] / dim_t
        pos_x = torch.stack((pos_x[:, :, 0::2].sin(), pos_x[:, :, 1::2].cos()), dim=3)
        pos_y = torch.stack((pos_y[:, :, 0::2].sin(), pos_y[:, :, 1::2].cos()), dim=3)
        pos = torch.cat((pos_y.flatten(2), pos_x.flatten(2)), dim=2).permute(2, 0, 1)
        return x + pos


def example_input(model: torch.nn.Module) -> torch.Tensor:
    if isinstance(model, PositionEmbeddingSine):
        return torch.randn(1, 2 * model.num_pos_feats, model.height, model.width)
    return torch.randn(4, 128)
