"""Ray RLlib on the fox_envs games: ``FoxMultiAgentEnv``, ``register()`` and ``RLModuleAgent``.

``FoxMultiAgentEnv(config)`` is an RLlib ``MultiAgentEnv`` over the raw PettingZoo AEC env of
``config["env_id"]``; every other key of ``config`` goes to the env as it would go to
``fox_envs.make`` (the game's params, ``max_moves``, ``render_mode``, ``render_viewer``), plus
``illegal_action``: ``"end"`` (default) or ``"raise"``::

    from fox_envs.integrations.rllib import FoxMultiAgentEnv, register
    register()  # every env id becomes an RLlib env name: PPOConfig().environment(env_id)
    env = FoxMultiAgentEnv({"env_id": env_id, **params})

What RLlib sees:

* Agents ``player_0 ... player_{n-1}``, one observation and one action space per agent. The
  observation is ``{"observations": <the player's observation tensor, flattened, float32>,
  "action_mask": <1.0 for each legal action, float32>}``, the layout RLlib's action-masking
  modules expect (``ActionMaskingTorchRLModule``); the action space is ``Discrete(num_actions)``.
* Turn by turn: ``reset`` and ``step`` return an observation only for the agent to move (chance
  events are resolved inside with the env's seeded random generator), and the mover's reward
  (0 until the end). When the game ends, every agent gets its final observation (mask all
  zeros), its terminal reward (the loser too, in the step that ends the game) and
  ``terminateds[agent] = True``, and ``"__all__"`` is True.
* ``max_moves`` player decisions truncate the game: every agent gets its last observation,
  reward 0 and ``truncateds[agent] = True``.
* An illegal action (RLlib's env checker samples unmasked actions) ends the game as
  ``fox_envs.make`` does: -1 for the offender, 0 for the others, ``infos[offender]
  ["illegal_action"] = True``; with ``illegal_action="raise"`` it raises ``IllegalActionError``
  and changes nothing.

``RLModuleAgent(module)`` plays a trained RLModule in anything that takes a fox_envs agent
(``fox_envs.evaluate``, ``round_robin``, the Gymnasium view's ``opponent``): the most probable
legal action of the module's logits for the player's observation.

Needs Ray RLlib: ``pip install 'fox_envs[rllib]'``.
"""
from __future__ import annotations

from typing import Any

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import register_env
except ImportError as error:  # pragma: no cover  (exercised in a subprocess by the tests)
    raise ImportError(
        "fox_envs.integrations.rllib needs Ray RLlib: pip install 'fox_envs[rllib]'"
    ) from error

import numpy as np
from gymnasium import spaces

from fox_envs.core.aec import FoxEnv, raw_env_class
from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.core.game import State
from fox_envs.core.params import short_repr
from fox_envs.core.registry import env_ids, spec

__all__ = ["FoxMultiAgentEnv", "RLModuleAgent", "SHARED_POLICY", "masked_argmax", "register", "self_play_ppo_config"]

ILLEGAL_MODES = ("end", "raise")


def _env_id_of(config: dict[str, Any]) -> str:
    env_id = config.get("env_id")
    if env_id is None:
        raise InvalidParameterError(f"FoxMultiAgentEnv needs config['env_id'], one of: {', '.join(env_ids())}")
    spec(env_id)  # an unknown id raises InvalidParameterError listing the known ones
    return env_id


class FoxMultiAgentEnv(MultiAgentEnv):
    """RLlib ``MultiAgentEnv`` over a fox_envs AEC env (see the module doc)."""

    def __init__(self, config: dict[str, Any] | None = None) -> None:
        super().__init__()
        params = dict(config or {})  # RLlib passes an EnvContext (a dict with extra attributes)
        self.env_id = _env_id_of(params)
        del params["env_id"]
        self.illegal_action = params.pop("illegal_action", "end")
        if self.illegal_action not in ILLEGAL_MODES:
            raise InvalidParameterError(f"{self.env_id}: bad illegal_action {short_repr(self.illegal_action)}; "
                                        f"allowed: {', '.join(map(repr, ILLEGAL_MODES))}")
        self.aec: FoxEnv = raw_env_class(self.env_id)(**params)
        game = self.aec.game
        self.game = game
        self.render_mode = self.aec.render_mode
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        size = int(np.prod(game.observation_shape))
        space = spaces.Dict({
            "observations": spaces.Box(0.0, 1.0, (size,), dtype=np.float32),
            "action_mask": spaces.Box(0.0, 1.0, (game.num_actions,), dtype=np.float32),
        })
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(game.num_actions) for agent in self.possible_agents}
        self._done = True

    # ----- observations ----------------------------------------------------------------------
    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        """The agent's flat observation and float mask (all zeros unless it is to move)."""
        seen = self.aec.observe(agent)
        return {"observations": np.ascontiguousarray(seen["observation"], dtype=np.float32).reshape(-1),
                "action_mask": seen["action_mask"].astype(np.float32)}

    def _mover(self) -> str:
        return self.aec.agent_selection

    # ----- episode ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        self._done = False
        mover = self._mover()
        return {mover: self._observe(mover)}, {mover: {}}

    def step(self, action_dict: dict[str, Any]):
        if self._done:
            raise InvalidParameterError(f"{self.env_id}: step() after the game ended; call reset() first")
        mover = self._mover()
        if set(action_dict) != {mover}:
            raise IllegalActionError(f"{self.env_id}: expected an action for {mover} (the agent to move) only, "
                                     f"got actions for {sorted(action_dict)}")
        aec = self.aec
        try:
            aec.step(action_dict[mover])
        except IllegalActionError as error:
            if self.illegal_action == "raise":
                raise
            aec.end_with_illegal_action(error)
        terminated = all(aec.terminations.values())
        truncated = not terminated and all(aec.truncations.values())
        if terminated or truncated:
            self._done = True
            observations = {agent: self._observe(agent) for agent in self.possible_agents}
            rewards = {agent: float(aec.rewards[agent]) for agent in self.possible_agents}
            infos = {agent: dict(aec.infos[agent]) for agent in self.possible_agents}
            terminateds = {agent: terminated for agent in self.possible_agents}
            truncateds = {agent: truncated for agent in self.possible_agents}
        else:
            following = self._mover()
            observations = {following: self._observe(following)}
            rewards = {mover: 0.0}
            infos = {following: {}}
            terminateds, truncateds = {}, {}
        terminateds["__all__"] = terminated
        truncateds["__all__"] = truncated
        return observations, rewards, terminateds, truncateds, infos

    @property
    def game_state(self) -> State:
        """The rules-core state of the game being played."""
        return self.aec.game_state

    def render(self):
        return self.aec.render()


def register() -> None:
    """Register every env id with ``ray.tune.registry.register_env`` under its own name; the
    env config holds the params (``config["env_id"]``, if given, must be that id)."""
    for env_id in env_ids():
        register_env(env_id, _creator(env_id))


def _creator(env_id: str):
    def create(config: dict[str, Any] | None = None) -> FoxMultiAgentEnv:
        config = dict(config or {})
        if config.setdefault("env_id", env_id) != env_id:
            raise InvalidParameterError(f"env {env_id!r} was given config['env_id'] = {short_repr(config['env_id'])}")
        return FoxMultiAgentEnv(config)
    return create


# ----- self-play PPO ------------------------------------------------------------------------------
SHARED_POLICY = "shared"


def to_shared_policy(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """Self-play: every seat is played by the one shared module."""
    return SHARED_POLICY


def self_play_ppo_config(env_id: str, num_env_runners: int = 2, hidden: tuple[int, ...] = (128, 128),
                         **params: Any):
    """A ``PPOConfig`` (new API stack) for self-play on ``env_id`` with ``params``: one shared
    ``ActionMaskingTorchRLModule`` (MLP heads of sizes ``hidden``) plays every seat, on
    ``num_env_runners`` env runners. Change the rest as usual, e.g. ``.training(lr=1e-4)``;
    ``algo = config.build_algo()``; ``algo.get_module(SHARED_POLICY)`` is the trained module."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    register()
    module = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                          model_config={"head_fcnet_hiddens": list(hidden), "head_fcnet_activation": "relu"})
    return (
        PPOConfig()
        .environment(env_id, env_config={"env_id": env_id, **params})
        .env_runners(num_env_runners=num_env_runners)
        .multi_agent(policies={SHARED_POLICY}, policy_mapping_fn=to_shared_policy)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
    )


# ----- a trained module as a fox_envs agent --------------------------------------------------------
def masked_argmax(logits: np.ndarray, mask: np.ndarray) -> int:
    """The index of the largest logit among the legal actions (``mask`` non-zero)."""
    legal = np.flatnonzero(mask)
    if legal.size == 0:
        raise IllegalActionError("no legal action to choose from")
    return int(legal[np.argmax(np.asarray(logits)[legal])])


class RLModuleAgent:
    """A torch RLModule trained on ``FoxMultiAgentEnv`` observations as a fox_envs agent: the
    legal action with the largest logit (``forward_inference``'s action distribution inputs)."""

    def __init__(self, module: Any, name: str = "rllib") -> None:
        self.module = module
        self.name = name

    def act(self, state: State, player: int) -> int:
        import torch

        mask = state.legal_actions_mask()
        observation = np.ascontiguousarray(state.observation_tensor(player), dtype=np.float32).reshape(1, -1)
        batch = {"obs": {"observations": torch.from_numpy(observation),
                         "action_mask": torch.from_numpy(mask.astype(np.float32).reshape(1, -1))}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)["action_dist_inputs"][0]
        return masked_argmax(logits.cpu().numpy(), mask)
