"""AlphaZero agents: a policy-value network trained by self-play, played with numpy alone.

The network (trained by ``examples/train_alphazero.py``) reads the rules core's observation of
the player to move, flattened (``observation_tensor(player).ravel()``, the hwc layout), through
ReLU layers ``w0, b0, w1, b1, ...`` (``w_k`` of shape ``[inputs, outputs]``), then two heads.
The policy head gives one logit per action: either in full (``policy_w, policy_b``), or factored
for games whose moves go from one square to another (Outwit's ``from*90 + to``, then pass):
``policy_from_*`` and ``policy_to_*`` give one number per square and the logit of ``from*S + to``
is their sum, ``policy_extra_*`` the logits of the actions after the ``S*S`` moves. The value
head ``value_w, value_b`` gives one number through tanh, the expected return of the player to
move (+1 a sure win, -1 a sure loss).

``AlphaZeroAgent.act`` (``simulations`` defaults to 256 for the shipped games: on X-Ceter-O the
greedy policy alone misses some forced wins that the search finds, docs/evaluation.md; 32 for
other games' networks given as ``arrays``):

* ``simulations=0``: the greedy policy, the legal action with the largest logit (ties: lowest
  action);
* ``simulations=N``: an AlphaZero search (PUCT) of ``N`` simulations on the rules core (each
  one clones the state and applies moves): priors from the policy head, leaf values from the
  value head, exact returns at finished games; the most visited root action is played (ties:
  the larger prior). Deterministic: the seed is accepted for the agent protocol only.

Weights ship in ``fox_envs/agents/weights/`` as ``alphazero_<env id>[_<variant>].npz`` (float
arrays, a few hundred KB at most: float32, or float16 for the Outfox and Outwit networks; the
agent computes in float32), loaded through ``importlib.resources``. A game with variants
has one network per variant and the agent takes the variant from the state it is given
(X-Ceter-O: ``ordered_rows``; Outfox: two players only). Networks ship for X-Ceter-O, Outfox
and Outwit. Only numpy is needed to play: no jax, no torch.
"""
from __future__ import annotations

import math
from importlib import resources
from typing import Any, Mapping

import numpy as np

from fox_envs.agents.base import SeededAgent
from fox_envs.core.errors import InvalidParameterError

WEIGHTS_PACKAGE = "fox_envs.agents.weights"
FACTORED_HEADS = ("policy_from", "policy_to", "policy_extra")  # a factored policy head's arrays, in order

# env id -> {variant key: weights file}; the variant key of a state is ``variant_key(env_id, params)``
WEIGHT_FILES: dict[str, dict[tuple, str]] = {
    "xceter_o_v0": {(("ordered_rows", False),): "alphazero_xceter_o_v0.npz",
                    (("ordered_rows", True),): "alphazero_xceter_o_v0_ordered_rows.npz"},
    "outfox_v0": {(("num_players", 2),): "alphazero_outfox_v0.npz"},
    "outwit_v0": {(): "alphazero_outwit_v0.npz"},
}
VARIANT_PARAMS = {"xceter_o_v0": ("ordered_rows",), "outfox_v0": ("num_players",)}  # the params that choose the network
DEFAULT_SIMULATIONS = {"xceter_o_v0": 256, "outfox_v0": 256, "outwit_v0": 256}  # the agent's search by default (0: the greedy policy)


def alphazero_games() -> tuple[str, ...]:
    """The env ids with shipped AlphaZero networks."""
    return tuple(WEIGHT_FILES)


def variant_key(env_id: str, params: Mapping[str, Any]) -> tuple:
    """The params of ``params`` that choose the network, as a hashable key."""
    return tuple((name, params.get(name)) for name in VARIANT_PARAMS.get(env_id, ()))


def weights_file(env_id: str, params: Mapping[str, Any]) -> str:
    """The packaged weight file name of ``env_id`` with ``params``."""
    files = WEIGHT_FILES.get(env_id)
    if files is None:
        raise InvalidParameterError(
            f"agent 'alphazero' has no trained network for {env_id!r}; available for: {', '.join(alphazero_games())}")
    key = variant_key(env_id, params)
    if key not in files:
        raise InvalidParameterError(f"agent 'alphazero' has no network for {env_id} with {dict(key)}")
    return files[key]


def network_arrays(source: Any) -> dict[str, np.ndarray]:
    """The float arrays of a network file (``.npz``: a path or a binary file), read without
    pickles."""
    with np.load(source, allow_pickle=False) as data:
        return {name: data[name] for name in data.files if data[name].dtype.kind == "f"}


def packaged_arrays(env_id: str, params: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """The float arrays of the packaged network of ``env_id`` with ``params``."""
    with (resources.files(WEIGHTS_PACKAGE) / weights_file(env_id, params)).open("rb") as handle:
        return network_arrays(handle)


class PolicyValueNet:
    """``forward(x) -> (logits [N, actions], value [N])`` for flat observations ``x [N, inputs]``."""

    def __init__(self, arrays: Mapping[str, np.ndarray]) -> None:
        self.layers = []
        k = 0
        while f"w{k}" in arrays:
            if f"b{k}" not in arrays:
                raise InvalidParameterError(f"policy-value network arrays: w{k} without b{k} (missing b{k})")
            self.layers.append((np.asarray(arrays[f"w{k}"], np.float32), np.asarray(arrays[f"b{k}"], np.float32)))
            k += 1
        self.factored = "policy_from_w" in arrays
        heads = FACTORED_HEADS if self.factored else ("policy",)
        needed = [f"{head}_{part}" for head in (*heads, "value") for part in "wb"]
        missing = [name for name in needed if name not in arrays]
        if not self.layers or missing:
            raise InvalidParameterError(f"policy-value network arrays need w0, b0, ... and the heads; missing {missing or ['w0']}")
        self.heads = [(np.asarray(arrays[f"{head}_w"], np.float32), np.asarray(arrays[f"{head}_b"], np.float32))
                      for head in heads]
        self.value_head = (np.asarray(arrays["value_w"], np.float32), np.asarray(arrays["value_b"], np.float32))
        width = self.layers[0][0].shape[0]
        for w, b in self.layers:
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise InvalidParameterError(f"policy-value network layer shapes do not chain: {w.shape}, {b.shape}")
            width = w.shape[1]
        for w, b in (*self.heads, self.value_head):
            if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
                raise InvalidParameterError(f"policy-value network head shapes do not fit: {w.shape}, {b.shape}")
        if self.value_head[0].shape[1] != 1:
            raise InvalidParameterError("the value head must have one output")
        if self.factored and self.heads[0][0].shape[1] != self.heads[1][0].shape[1]:
            raise InvalidParameterError("a factored policy head needs as many from-squares as to-squares: "
                                        f"{self.heads[0][0].shape[1]} and {self.heads[1][0].shape[1]}")
        self.num_inputs = self.layers[0][0].shape[0]
        self.num_actions = (self.heads[0][0].shape[1] ** 2 + self.heads[2][0].shape[1] if self.factored
                            else self.heads[0][0].shape[1])

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h = np.asarray(x, np.float32)
        if h.ndim != 2 or h.shape[1] != self.num_inputs:
            raise InvalidParameterError(f"the network expects [N, {self.num_inputs}] observations, got {h.shape}")
        for w, b in self.layers:
            h = np.maximum(h @ w + b, 0.0)
        logits = policy_logits([h @ w + b for w, b in self.heads])
        value = np.tanh(h @ self.value_head[0] + self.value_head[1])[:, 0]
        return logits, value


def policy_logits(outputs: list[Any], xp: Any = np) -> Any:
    """The logits of every action from the policy head's outputs: ``[full]`` as they are, or
    ``[from, to, extra]`` (factored): the logit of ``f*S + t`` is ``from[f] + to[t]``, then the
    extra actions. ``xp`` is the array module (numpy here; the trainer passes ``jax.numpy``)."""
    if len(outputs) == 1:
        return outputs[0]
    source, target, extra = outputs
    moves = (source[:, :, None] + target[:, None, :]).reshape(source.shape[0], -1)
    return xp.concatenate([moves, extra], axis=1)


def greedy_actions(net: PolicyValueNet, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """The legal action with the largest logit in each row (ties: the lowest action)."""
    logits, _ = net.forward(observations.reshape(len(observations), -1))
    return np.where(np.asarray(masks, bool), logits, -np.inf).argmax(axis=1)


class _Node:
    __slots__ = ("state", "player", "actions", "prior", "visits", "total", "children", "terminal")

    def __init__(self, state: Any) -> None:
        self.state = state
        self.terminal = state.is_terminal()
        self.player = -1 if self.terminal else state.current_player()
        self.actions: np.ndarray | None = None
        self.children: dict[int, _Node] = {}


class AlphaZeroAgent(SeededAgent):
    """The greedy policy of a policy-value network, or an AlphaZero search guided by it (module
    doc). ``c`` is the PUCT exploration constant."""

    name = "alphazero"

    def __init__(self, env_id: str, seed: int | None = None, simulations: int | None = None, c: float = 1.5,
                 arrays: Mapping[str, Any] | None = None) -> None:
        super().__init__(seed)
        if env_id not in WEIGHT_FILES and arrays is None:
            weights_file(env_id, {})  # raises the clear error
        self.env_id = env_id
        simulations = DEFAULT_SIMULATIONS.get(env_id, 32) if simulations is None else simulations
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise InvalidParameterError(f"simulations must be an integer >= 0, got {simulations!r}")
        if not isinstance(c, (int, float)) or isinstance(c, bool) or not c > 0:
            raise InvalidParameterError(f"c must be a number > 0, got {c!r}")
        self.simulations = int(simulations)
        self.c = float(c)
        self._given = PolicyValueNet(arrays) if arrays is not None else None
        self._nets: dict[tuple, PolicyValueNet] = {}

    def network(self, state: Any) -> PolicyValueNet:
        """The network for ``state``'s game and variant (loaded on first use)."""
        if self._given is not None:
            return self._given
        game = state.game
        if game.name != self.env_id:
            raise InvalidParameterError(f"this alphazero agent plays {self.env_id}, got a {game.name} state")
        key = variant_key(self.env_id, game.params)
        if key not in self._nets:
            self._nets[key] = PolicyValueNet(packaged_arrays(self.env_id, game.params))
        return self._nets[key]

    def evaluate(self, net: PolicyValueNet, state: Any) -> tuple[np.ndarray, np.ndarray, float]:
        """Legal actions, their prior probabilities and the value for the player to move."""
        player = state.current_player()
        logits, value = net.forward(state.observation_tensor(player).reshape(1, -1))
        actions = np.asarray(state.legal_actions(), dtype=np.int64)
        chosen = logits[0, actions].astype(np.float64)
        prior = np.exp(chosen - chosen.max())
        return actions, prior / prior.sum(), float(value[0])

    def act(self, state: Any, player: int) -> int:
        net = self.network(state)
        if self.simulations == 0:
            mask = np.asarray(state.legal_actions_mask(), bool)
            obs = state.observation_tensor(player).reshape(1, -1)
            return int(greedy_actions(net, obs, mask[None])[0])
        return self.search(net, state)

    # ----- the search ---------------------------------------------------------------------------
    def search(self, net: PolicyValueNet, state: Any) -> int:
        root = _Node(state.clone())
        self._expand(net, root)
        if len(root.actions) == 1:
            return int(root.actions[0])
        for _ in range(self.simulations):
            self._simulate(net, root)
        best = np.lexsort((root.prior, root.visits))[-1]  # most visits, then the larger prior
        return int(root.actions[best])

    def _expand(self, net: PolicyValueNet, node: _Node) -> float:
        """Set the node's priors; return its value for its player to move."""
        node.actions, node.prior, value = self.evaluate(net, node.state)
        node.visits = np.zeros(len(node.actions))
        node.total = np.zeros(len(node.actions))
        return value

    def _simulate(self, net: PolicyValueNet, node: _Node) -> float:
        """One simulation below ``node``; returns the value for ``node.player``."""
        n = node.visits
        q = np.where(n > 0, node.total / np.maximum(n, 1), 0.0)
        scores = q + self.c * node.prior * math.sqrt(n.sum() + 1) / (1 + n)
        i = int(scores.argmax())
        action = int(node.actions[i])
        child = node.children.get(action)
        if child is None:
            after = node.state.clone()
            after.apply_action(action)
            child = node.children[action] = _Node(after)
            if child.terminal:
                value = float(after.returns()[node.player])
            else:
                leaf = self._expand(net, child)
                value = leaf if child.player == node.player else -leaf
        elif child.terminal:
            value = float(child.state.returns()[node.player])
        else:
            below = self._simulate(net, child)
            value = below if child.player == node.player else -below
        node.visits[i] += 1
        node.total[i] += value
        return value


def make_alphazero(env_id: str | None = None, seed: int | None = None, arrays: Mapping[str, Any] | None = None,
                   **options: Any) -> AlphaZeroAgent:
    """The ``alphazero`` agent by name (``make_agent("alphazero", "xceter_o_v0")``; options
    ``simulations``, ``c``), with the packaged networks or ``arrays`` (a saved ``.npz`` policy)."""
    return AlphaZeroAgent(env_id, seed=seed, arrays=arrays, **options)
