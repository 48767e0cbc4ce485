"""A convolutional MaskablePPO policy for Outfox whose action logits are computed point by point
(needs the ``train`` extra: torch, stable-baselines3, sb3-contrib), trained by
``examples/train_maskable_ppo.py``. SB3 saves the policy class by its module path, so a model
saved with it loads wherever fox_envs and the extra are installed.

A dense layer from a flat feature vector to Outfox's 532 actions has to learn "complete a line
here" separately for each of the 19 points. This policy shares that knowledge across the board:

* trunk: ``layers`` 3x3 convolutions (their output beside the input planes) over the (5, 5, planes) tensor in axial coordinates, where a
  3x3 kernel centred on a point covers its 6 lattice neighbours (and two non-neighbours), so
  three consecutive points along every axis are seen together; the 19 hexagon cells are gathered
  in point-index order into per-point features ``h_p``;
* placement logits ``t*19 + p``: a linear map from ``h_p`` to the 9 piece types, the same at
  every point;
* slide logits ``171 + f*19 + g``: a bilinear score ``<A h_f, B h_g>`` of the origin and the
  destination, so "the piece at f completes a line at g" is one learned relation;
* value: the mean and max of the point features through a small MLP.

The legal-action mask (``action_masks()``) removes everything illegal, as with any MaskablePPO
policy. Use it with ``MaskablePPO(BoardPolicy, env, ...)``.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from fox_envs.games.outfox.planes import GRID_CELLS
from fox_envs.games.outfox.rules import NUM_ACTIONS, NUM_PLACE, NUM_POINTS, NUM_TYPES

# Cell of each point in the flattened 5x5 grid: obs[r + 2, q + 2] (docs/rules/outfox.md).
POINT_CELLS = [row * 5 + column for row, column in GRID_CELLS]


class PointTrunk(BaseFeaturesExtractor):
    """3x3 convolutions over the board planes; the output is, for each of the 19 points, the
    convolution features followed by the point's own input planes (a skip connection: the heads
    see the piece and any extra feature planes of a point directly), flattened point-major to
    ``19 * (channels + planes)``."""

    def __init__(self, observation_space, channels: int = 64, layers: int = 3) -> None:
        rows, columns, planes = observation_space.shape
        super().__init__(observation_space, NUM_POINTS * (channels + planes))
        if (rows, columns) != (5, 5):
            raise ValueError(f"PointTrunk is for Outfox's (5, 5, planes) tensor, got {observation_space.shape}")
        blocks: list[nn.Module] = []
        for k in range(layers):
            blocks += [nn.Conv2d(planes if k == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.convolutions = nn.Sequential(*blocks)
        self.channels = channels + planes  # features per point
        self.register_buffer("cells", torch.tensor(POINT_CELLS, dtype=torch.long), persistent=False)

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        planes = observations.permute(0, 3, 1, 2)  # (B, planes, 5, 5)
        grid = torch.cat([self.convolutions(planes), planes], dim=1)  # (B, C, 5, 5)
        points = grid.flatten(2).index_select(2, self.cells)  # (B, C, 19)
        return points.transpose(1, 2).flatten(1)  # (B, 19 * C)


class PointHeads(nn.Module):
    """Policy logits over the 532 Outfox actions and a value latent, from per-point features.
    Plays the role of SB3's ``mlp_extractor`` (``latent_dim_pi`` is the number of actions)."""

    def __init__(self, channels: int, slide_dim: int = 32, value_dim: int = 64) -> None:
        super().__init__()
        self.channels = channels
        self.place = nn.Linear(channels, NUM_TYPES)
        self.origin = nn.Linear(channels, slide_dim)
        self.destination = nn.Linear(channels, slide_dim)
        self.scale = 1.0 / np.sqrt(slide_dim)
        self.value = nn.Sequential(nn.Linear(2 * channels, value_dim), nn.ReLU())
        self.latent_dim_pi = NUM_ACTIONS
        self.latent_dim_vf = value_dim

    def output_gains(self) -> list[tuple[nn.Module, float]]:
        """Initial gains of the logit layers: near-uniform placements; the two slide factors
        start small but not tiny, since each one's gradient is scaled by the other."""
        return [(self.place, 0.01), (self.origin, 0.3), (self.destination, 0.3)]

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        points = features.view(features.shape[0], NUM_POINTS, self.channels)
        place = self.place(points).transpose(1, 2).flatten(1)  # (B, 9 * 19): t * 19 + p
        slide = torch.bmm(self.origin(points), self.destination(points).transpose(1, 2)) * self.scale
        return torch.cat([place, slide.flatten(1)], dim=1)  # slides: 171 + f * 19 + g

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        points = features.view(features.shape[0], NUM_POINTS, self.channels)
        return self.value(torch.cat([points.mean(1), points.amax(1)], dim=1))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class BoardPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy with ``PointTrunk`` features and ``PointHeads`` logits.
    ``policy_kwargs``: ``features_extractor_kwargs={"channels": 64, "layers": 3}``."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("features_extractor_class", PointTrunk)
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.action_space.n != NUM_ACTIONS or NUM_PLACE != NUM_TYPES * NUM_POINTS:
            raise ValueError(f"BoardPolicy is for Outfox's {NUM_ACTIONS} actions, got {self.action_space}")
        self.mlp_extractor = PointHeads(self.features_extractor.channels)

    def _build(self, lr_schedule) -> None:
        """As SB3's, but the heads already give the logits (no dense action layer)."""
        self._build_mlp_extractor()
        self.action_net = nn.Identity()
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            for module, gain in ((self.features_extractor, np.sqrt(2)), (self.mlp_extractor, np.sqrt(2)),
                                 (self.value_net, 1.0)):
                module.apply(partial(self.init_weights, gain=gain))
            for layer, gain in self.mlp_extractor.output_gains():
                layer.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)
