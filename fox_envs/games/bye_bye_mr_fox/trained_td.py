"""The afterstate value policy for the cooperative Bye Bye Mr. Fox! (numpy only), trained by
``examples/train_bye_bye_mr_fox.py``.

``ValueNet`` estimates the team's win probability from an *afterstate* (the board right after a
decision, before the spinner) from ``features``; ``AfterstateAgent`` plays the decision whose
afterstate it rates highest. A saved network is a ``fox_envs.policy/1`` ``.npz`` file (arrays
``W1, b1, w2, b2``) whose factory is ``FACTORY``, so it loads wherever fox_envs is installed.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.core.errors import InvalidParameterError
from fox_envs.games.bye_bye_mr_fox.rules import (  # the action and observation layout of the rules module
    GIVE_ACTION, OBS_NEST_CIRCLES, OBS_NESTS, OBS_SIZE, OBS_VISIBLE,
)

ENV_ID = "bye_bye_mr_fox_v0"
FACTORY = "fox_envs.games.bye_bye_mr_fox.trained_td:load_agent"


# ----- the value network ----------------------------------------------------------------------
class ValueNet:
    """``p = sigmoid(w2 . tanh(W1 x + b1) + b2)``: estimated win probability of afterstates."""

    def __init__(self, inputs: int, hidden: int = 64, seed: int = 0, lr: float = 3e-3) -> None:
        rng = np.random.default_rng(seed)
        self.params = {
            "W1": rng.normal(0.0, 1.0 / np.sqrt(inputs), (inputs, hidden)),
            "b1": np.zeros(hidden),
            "w2": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
            "b2": np.zeros(1),
        }
        self.lr = lr
        self.moments = {k: (np.zeros_like(v), np.zeros_like(v)) for k, v in self.params.items()}
        self.steps = 0

    def predict(self, x: np.ndarray) -> np.ndarray:
        p = self.params
        hidden = np.tanh(x @ p["W1"] + p["b1"])
        return 1.0 / (1.0 + np.exp(-(hidden @ p["w2"] + p["b2"][0])))

    def update(self, x: np.ndarray, target: np.ndarray) -> float:
        """One Adam step on the mean cross-entropy between the prediction and ``target``."""
        p = self.params
        hidden = np.tanh(x @ p["W1"] + p["b1"])
        out = 1.0 / (1.0 + np.exp(-(hidden @ p["w2"] + p["b2"][0])))
        delta = (out - target) / len(target)  # d loss / d logit
        grads = {"w2": hidden.T @ delta, "b2": np.array([delta.sum()])}
        back = np.outer(delta, p["w2"]) * (1.0 - hidden**2)
        grads["W1"] = x.T @ back
        grads["b1"] = back.sum(axis=0)
        self.steps += 1
        beta1, beta2 = 0.9, 0.999
        for name, grad in grads.items():
            m, v = self.moments[name]
            m *= beta1
            m += (1 - beta1) * grad
            v *= beta2
            v += (1 - beta2) * grad**2
            m_hat = m / (1 - beta1**self.steps)
            v_hat = v / (1 - beta2**self.steps)
            p[name] -= self.lr * m_hat / (np.sqrt(v_hat) + 1e-8)
        return float(np.mean(np.abs(out - target)))

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: v.astype(np.float32) for k, v in self.params.items()}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> "ValueNet":
        net = cls(arrays["W1"].shape[0], arrays["W1"].shape[1])
        net.params = {k: np.asarray(arrays[k], dtype=np.float64).copy() for k in ("W1", "b1", "w2", "b2")}
        return net


# ----- afterstates --------------------------------------------------------------------------------
OPPOSITE = [3, 4, 5, 0, 1, 2]  # the spinner's back end at N<b> pairs with the front at sector b+3
NUM_FEATURES = OBS_SIZE + 1 + 30 + 10 + 6


def features(observations: np.ndarray, spin_pending: np.ndarray) -> np.ndarray:
    """The network's inputs for a batch of afterstates (one row each): the observation tensor,
    a 1 when the spinner is still to come, and the spinner's pairings read off the observation:
    for each nest circle the egg on it times the picture (black, brown, white, fox, three hens)
    it would be sent to (30), those summed over the circles (5), how many sectors show each
    picture (5), and for each hen colour its missing eggs times the sectors showing it and
    times the eggs paired with it (6)."""
    eggs = observations[:, OBS_NEST_CIRCLES:OBS_NEST_CIRCLES + 6]
    visible = observations[:, OBS_VISIBLE:OBS_VISIBLE + 30].reshape(-1, 6, 5)
    paired = eggs[:, :, None] * visible[:, OPPOSITE]  # (batch, 6 circles, 5 pictures)
    paired_sum = paired.sum(axis=1)
    showing = visible.sum(axis=1)
    missing = 1.0 - observations[:, OBS_NESTS:OBS_NESTS + 3]
    return np.concatenate([observations, spin_pending[:, None], paired.reshape(len(observations), -1), paired_sum,
                           showing, missing * showing[:, :3], missing * paired_sum[:, :3]], axis=1)


def afterstates(state) -> tuple[list[int], np.ndarray, np.ndarray]:
    """``(legal actions, features, terminal values)`` of each decision of the player to move
    (terminal values: 1 / 0 when the decision ends the game won / lost, NaN otherwise)."""
    legal = state.legal_actions()
    observations = np.empty((len(legal), OBS_SIZE), dtype=np.float64)
    terminal = np.full(len(legal), np.nan)
    for i, action in enumerate(legal):
        after = state.clone()
        after.apply_action(action)
        if after.is_terminal():
            terminal[i] = 1.0 if after.returns()[0] > 0 else 0.0
        observations[i] = after.observation_tensor(0)
    spin_pending = (np.asarray(legal) < GIVE_ACTION).astype(np.float64)  # a placement: the spin follows
    return legal, features(observations, spin_pending), terminal


def choose(net: ValueNet, state, rng: np.random.Generator, epsilon: float = 0.0) -> tuple[int, np.ndarray, float]:
    """``(action, its afterstate features, its terminal value or NaN)``: the decision with the
    highest estimated win probability (epsilon-greedy), ties broken at random."""
    legal, features, terminal = afterstates(state)
    if epsilon > 0.0 and rng.random() < epsilon:
        i = int(rng.integers(len(legal)))
    else:
        values = np.where(np.isnan(terminal), net.predict(features), terminal)
        best = np.flatnonzero(values >= values.max() - 1e-12)
        i = int(best[rng.integers(len(best))]) if len(best) > 1 else int(best[0])
    return legal[i], features[i], float(terminal[i])


class AfterstateAgent(SeededAgent):
    """The greedy learned policy as a fox_envs agent (``act(state, player)``); ties are broken
    with the agent's seeded rng."""

    name = "td-learner"

    def __init__(self, net: ValueNet, seed: int | None = None) -> None:
        super().__init__(seed)
        self.net = net

    def act(self, state, player: int) -> int:
        return choose(self.net, state, self.rng)[0]


def load_agent(env_id: str = ENV_ID, seed: int | None = None, arrays: dict[str, np.ndarray] | None = None,
               **_: Any) -> AfterstateAgent:
    """Factory of a saved ``.npz`` policy (``fox_envs.agents.load_policy`` calls it)."""
    if env_id != ENV_ID:
        raise InvalidParameterError(f"this value network plays {ENV_ID}, not {env_id}")
    if not arrays or any(k not in arrays for k in ("W1", "b1", "w2", "b2")):
        raise InvalidParameterError("a value-network policy file needs the arrays W1, b1, w2, b2")
    return AfterstateAgent(ValueNet.from_arrays(arrays), seed)
