"""Single-agent Gymnasium view of any fox_envs game.

The learner plays ``seat``; every other seat is played by ``opponent`` (a baseline name such as
``"random"`` / ``"heuristic"``, a ``module:callable`` path, an agent object, or a list with one
of those per other seat). Observations are the Box part of the AEC observation; the legal-action
mask is in ``info["action_mask"]`` and ``action_masks()`` (the sb3-contrib MaskablePPO
convention). Chance nodes are resolved with the env's seeded ``np_random``.

``observation_layout`` (``"hwc"``, the default, ``"chw"`` or ``"flat"``; ``fox_envs.core.layout``)
shapes observations and the observation space. With ``mask_in_observation=True`` every
observation is ``{"observation": <the Box part>, "action_mask": <int8 mask>}`` in
``Dict({"observation": Box, "action_mask": MultiBinary(num_actions)})``, for learners that read
the mask from the observation; the mask is the one in ``info["action_mask"]``.

``max_moves`` counts every player decision (the opponents' too); reaching it truncates the
episode after the learner's step (``truncated=True``, reward 0). A ``max_moves`` used up by the
other seats before the learner's first decision would give an episode with no step, which
Gymnasium cannot express: ``reset`` then raises ``InvalidParameterError`` saying so (choose a
larger ``max_moves``), and ``step`` raises ``ResetNeeded`` until a ``reset`` succeeds. (A game
over before the learner's first decision, which none of the five games allows, would reset to an
all-zero mask with ``step`` raising ``ResetNeeded``.) ``step`` only ever plays the learner's move.
"""
from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from fox_envs.core import ending
from fox_envs.core.errors import InvalidParameterError
from fox_envs.core.game import CHANCE, TERMINAL, State, action_as_int, resolve_chance
from fox_envs.core.layout import checked_view_dtype, make_layout, masked_observation_space, observation_box
from fox_envs.core.params import integer_in, seed_value, short_repr
from fox_envs.core.registry import make_game

ILLEGAL_MODES = ("end", "raise")


class FoxGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human", "rgb_array", "svg"], "render_fps": 2}

    def __init__(self, env_id: str, opponent: Any = "random", seat: int = 0, illegal_action: str = "end",
                 render_mode: str | None = None, max_moves: int | None = None, observation_layout: str = "hwc",
                 mask_in_observation: bool = False, observation_dtype: str = "float32", **params: Any) -> None:
        from fox_envs.agents.registry import make_agent

        self.env_id = env_id
        self.game = make_game(env_id, **params)
        n = self.game.num_players
        if integer_in(seat, 0, n - 1) is None:
            raise InvalidParameterError(f"{env_id}: bad seat {short_repr(seat)}; allowed: 0..{n - 1}")
        if illegal_action not in ILLEGAL_MODES:
            raise InvalidParameterError(f"{env_id}: bad illegal_action {short_repr(illegal_action)}; allowed: 'end', 'raise'")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InvalidParameterError(f"{env_id}: bad render_mode {short_repr(render_mode)}; allowed: None, {', '.join(self.metadata['render_modes'])}")
        if max_moves is None:
            max_moves = self.game.max_moves_default
        if integer_in(max_moves, 1) is None:
            raise InvalidParameterError(f"{env_id}: bad max_moves {short_repr(max_moves)}; allowed: an integer >= 1")
        self.layout = make_layout(observation_layout, self.game.observation_shape, f"{env_id}: ")
        self.observation_dtype = checked_view_dtype(observation_dtype, f"{env_id}: ")
        if not isinstance(mask_in_observation, (bool, np.bool_)):
            raise InvalidParameterError(
                f"{env_id}: bad mask_in_observation {short_repr(mask_in_observation)}; allowed: True, False")
        self.mask_in_observation = bool(mask_in_observation)
        self.seat = integer_in(seat, 0)
        self.max_moves = integer_in(max_moves, 1)
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        others = [s for s in range(n) if s != self.seat]
        specs = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent] * len(others)
        if len(specs) != len(others):
            raise InvalidParameterError(f"{env_id}: {len(specs)} opponents given for {len(others)} other seats")
        self.opponents = {s: make_agent(spec, env_id) for s, spec in zip(others, specs)}
        self.observation_space = self.layout.space(
            observation_box(self.game.observation_shape, self.game, self.observation_dtype))
        if self.mask_in_observation:
            self.observation_space = masked_observation_space(self.observation_space, self.game.num_actions)
        self.action_space = spaces.Discrete(self.game.num_actions)
        self.state: State = self.game.new_initial_state()
        self.moves = 0
        self._done = True
        self.ending: str | None = None  # the status line of an ending outside the rules core

    # ----- episode -------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        self._start(seed)
        info = self._info()
        return self._observation(info["action_mask"]), info

    def step(self, action: Any):
        value = action if type(action) is int else action_as_int(action)
        reward, terminated, truncated, illegal = self._play(value, action)
        info = self._info()
        if illegal:
            info["illegal_action"] = True
        return self._observation(info["action_mask"]), reward, terminated, truncated, info

    # The two halves below are what ``reset`` / ``step`` do before building the observation and
    # info; FoxVectorEnv calls them directly and writes observations and masks into its buffers.
    def _start(self, seed: int | None) -> None:
        """Start a new episode (seeded with ``seed`` unless it is None) up to the learner's move."""
        super().reset(seed=seed_value(seed, f"{self.env_id}: "))
        for agent in self.opponents.values():
            reset_fn = getattr(agent, "reset", None)
            if callable(reset_fn):
                reset_fn(int(self.np_random.integers(2**31)))
        self.state = self.game.new_initial_state()
        self.moves = 0
        self.ending = None
        self._done = True  # until the learner is to move
        if self._advance() == TERMINAL:
            return
        if self.moves < self.max_moves:
            self._done = False
        else:  # max_moves ran out before the learner's first decision
            raise InvalidParameterError(
                f"{self.env_id}: max_moves={self.max_moves} is used up by the other seats before seat {self.seat}'s "
                f"first decision (after {self.moves} decisions): the episode would have no step; use a larger max_moves")

    def _play(self, value: int | None, action: Any = None) -> tuple[float, bool, bool, bool]:
        """Play the learner's move ``value`` (``action`` as a Python int, None when malformed)
        and the other seats' replies: ``(reward, terminated, truncated, illegal)``."""
        if self._done:
            raise gymnasium.error.ResetNeeded("the episode is over: call reset() before step()")
        state = self.state
        if value is None or not state.is_legal(value):
            if self.illegal_action == "raise":
                state.apply_action(value if action is None else action)  # raises with the full message
            self._done = True
            self.ending = ending.illegal_move(self.seat)
            return -1.0, True, False, True
        state.apply_action(value)
        self.moves += 1
        terminated = self._advance() == TERMINAL
        truncated = not terminated and self.moves >= self.max_moves
        self._done = terminated or truncated
        if truncated:
            self.ending = ending.truncated(self.max_moves)
        reward = float(state.returns()[self.seat]) if terminated else 0.0
        if self.render_mode == "human":
            self.render()
        return reward, terminated, truncated, False

    def _advance(self) -> int:
        """Resolve chance and let the other seats play until the learner is to move; returns the
        player to move (TERMINAL when the game is over)."""
        state, seat, rng = self.state, self.seat, self.np_random
        while True:
            player = state.current_player()
            if player == CHANCE:
                resolve_chance(state, rng)
                player = state.current_player()
            if player < 0 or player == seat or self.moves >= self.max_moves:
                return player
            state.apply_action(self.opponents[player].act(state, player))
            self.moves += 1

    def _observation(self, mask: np.ndarray) -> np.ndarray | dict[str, np.ndarray]:
        """The learner's observation in the layout (a dict with ``mask`` when the mask is in it)."""
        observation = self.state.observation_tensor(self.seat)
        if self.observation_dtype == "uint8":
            observation = self.game.compact_observation(observation)
        if self.layout.changes:
            observation = self.layout.apply(observation)
        if self.mask_in_observation:
            return {"observation": observation, "action_mask": mask.copy()}
        return observation

    def _write_observation(self, out: np.ndarray) -> None:
        """Write the learner's observation (the Box part) into ``out``, a row of a vector env's
        batch in the layout."""
        if self.observation_dtype == "uint8":
            self.layout.core_view(out)[...] = self.game.compact_observation(self.state.observation_tensor(self.seat))
        else:
            self.state.write_observation(self.seat, self.layout.core_view(out))

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self._mask()}

    def _mask(self) -> np.ndarray:
        """The learner's legal-action mask as int8 (all 0 when it is not to move)."""
        mask = np.empty(self.game.num_actions, dtype=np.int8)
        self._write_mask(mask)
        return mask

    def _write_mask(self, out: np.ndarray) -> None:
        """Write ``_mask()`` into ``out`` (a row of a vector env's batch)."""
        if self.state.current_player() == self.seat:
            self.state.write_legal_mask(out)
        else:
            out[:] = 0

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False when it is not to move)."""
        return self._mask().astype(bool)

    def render(self):
        """The learner's view (``seat``): hidden facts of the other seats are never shown."""
        if self.render_mode == "rgb_array":
            return ending.board_picture(self.state, self.seat, self.ending)
        if self.render_mode == "svg":
            from fox_envs.core.svg import state_svg

            return state_svg(self.state, self.seat, status=self.ending)
        if self.render_mode in ("ansi", "human"):
            text = ending.board_text(self.state, self.seat, self.ending)
            if self.render_mode == "human":
                print(text)
                return None
            return text
        return None
