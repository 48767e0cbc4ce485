"""Learned agents: a small value network (numpy inference only) guiding a one-turn lookahead.

``ValueNet`` is a multilayer perceptron: ReLU hidden layers and a tanh output, read from arrays
``w0, b0, w1, b1, ...`` (``w_k`` of shape ``[inputs, outputs]``). Its output is the expected
return of the player to move in the position its features describe (+1 a sure win, -1 a sure
loss). The weights shipped with the package are in ``fox_envs/agents/weights/`` (the file a
game's spec names as ``learned_weights``) and load through ``importlib.resources``, so they are
found whatever the working directory.

``make_learned(env_id, seed)`` (the agent name ``learned``) builds the agent the game's spec
declares as ``agents["learned"]``, with its network (``value_net``).
"""
from __future__ import annotations

from importlib import resources
from typing import Any, Mapping

import numpy as np

from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.registry import GAMES, load_object, spec

WEIGHTS_PACKAGE = "fox_envs.agents.weights"


class ValueNet:
    """``value(x)``: ReLU layers, then tanh; ``x`` float ``[N, inputs]`` -> ``[N]``."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        layers = []
        k = 0
        while f"w{k}" in arrays:
            layers.append((np.asarray(arrays[f"w{k}"], np.float32), np.asarray(arrays[f"b{k}"], np.float32)))
            k += 1
        if not layers:
            raise InvalidParameterError("value network arrays need w0, b0 (and w1, b1, ...)")
        for (w, b), (w_next, _) in zip(layers, layers[1:]):
            if w.ndim != 2 or b.shape != (w.shape[1],) or w_next.shape[0] != w.shape[1]:
                raise InvalidParameterError(f"value network layer shapes do not chain: {w.shape}, {b.shape}, {w_next.shape}")
        if layers[-1][0].shape[1] != 1:
            raise InvalidParameterError(f"value network must end in one output, got {layers[-1][0].shape[1]}")
        self.layers = layers
        self.num_inputs = layers[0][0].shape[0]

    def value(self, x: np.ndarray) -> np.ndarray:
        h = np.asarray(x, np.float32)
        if h.ndim != 2 or h.shape[1] != self.num_inputs:
            raise InvalidParameterError(f"value network expects [N, {self.num_inputs}] features, got {h.shape}")
        for w, b in self.layers[:-1]:
            h = np.maximum(h @ w + b, 0.0)
        w, b = self.layers[-1]
        return np.tanh(h @ w + b)[:, 0]


def learned_games() -> tuple[str, ...]:
    """The env ids whose spec ships value-network weights (``learned_weights``) and a
    ``learned`` agent."""
    return tuple(env_id for env_id, game in GAMES.items() if game.learned_weights and "learned" in game.agents)


def __getattr__(name: str) -> Any:
    if name == "LEARNED_GAMES":  # read when asked, so that it includes games registered later
        return learned_games()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def check_learned_game(env_id: Any) -> None:
    """Only the games with trained weights have a learned agent."""
    if env_id not in learned_games():
        raise InvalidParameterError(
            f"agent 'learned' has no trained weights for {env_id!r}; available for: {', '.join(sorted(learned_games()))}")


def weights_resource(env_id: str):
    """The packaged weight file of ``env_id`` (an importlib.resources Traversable)."""
    return resources.files(WEIGHTS_PACKAGE) / spec(env_id).learned_weights


def packaged_arrays(env_id: str) -> dict[str, np.ndarray]:
    """The arrays of the packaged weights of ``env_id``."""
    check_learned_game(env_id)
    with weights_resource(env_id).open("rb") as handle, np.load(handle, allow_pickle=False) as data:
        return {name: data[name] for name in data.files}


def value_net(env_id: str, arrays: Mapping[str, Any] | None = None) -> ValueNet:
    """The value network of ``env_id``: ``arrays`` (e.g. from a saved ``.npz`` policy), else the
    packaged weights."""
    check_learned_game(env_id)
    return ValueNet(arrays if arrays is not None else packaged_arrays(env_id))


def make_learned(env_id: str | None = None, seed: int | None = None, arrays: Mapping[str, Any] | None = None,
                 **options: Any):
    """The learned agent of ``env_id`` (its spec's ``learned`` agent) with the packaged weights
    (or ``arrays``). ``options`` go to the agent class."""
    check_learned_game(env_id)
    factory = load_object(spec(env_id).agents["learned"].factory)
    return factory(env_id=env_id, seed=seed, arrays=arrays, **options)
