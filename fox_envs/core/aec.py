"""The one generic PettingZoo AEC environment over any rules-core ``Game``.

``FoxEnv`` is the raw env (an illegal action raises ``IllegalActionError``); ``wrap`` gives the
public ``env()``: an illegal or malformed action ends the game with -1 for the offender, and the
usual order enforcement. Chance nodes are resolved here with the env's seeded ``np_random``.

Rendering and hidden information: ``render_viewer`` says whose view ``render()`` shows (text and
picture alike). **The default, ``None``, shows everything, hidden facts included** (in a card game:
every face-down card, both hands): it is for watching or debugging, never for
an agent. A seat (``0``) or an agent name (``"player_0"``) shows only what that player may
know. In perfect-information games every view is the whole board.

After an illegal action in the wrapped ``env()``, only the offender's info holds the error text
(it lists the offender's legal actions); in hidden-information games the others' infos say only
who played an illegal action.

``observation_layout`` (``"hwc"``, the default, ``"chw"`` or ``"flat"``; see
``fox_envs.core.layout``) shapes the ``"observation"`` part of every observation, its space, and
``state()``. ``state()`` / ``state_space`` are PettingZoo's global state for centralised
critics: the rules core's ``state_tensor()``, the full position whoever asks (hidden facts
included: never give it to an agent of a hidden-information game as its observation).
"""
from __future__ import annotations

from typing import Any, ClassVar

import importlib

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import OrderEnforcingWrapper
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from fox_envs.core import ending
from fox_envs.core.errors import IllegalActionError, InvalidParameterError
from fox_envs.core.game import Game, State, resolve_chance
from fox_envs.core.layout import ObservationLayout, make_layout, observation_box
from fox_envs.core.params import integer_in, seed_value, short_repr
from fox_envs.core.registry import make_game, spec

RENDER_MODES = ["ansi", "human", "rgb_array", "svg"]


class FoxEnv(AECEnv):
    """PettingZoo AEC env for the game named by the subclass's ``game_id``."""

    game_id: ClassVar[str] = ""
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": RENDER_MODES, "name": "fox_env", "is_parallelizable": False, "render_fps": 2,
    }

    def __reduce_ex__(self, protocol: Any):
        if type(self).__dict__.get("_generic", False):  # a class made by raw_env_class: rebuilt from the id
            return (_new_generic_env, (self.game_id,), dict(self.__dict__))
        return super().__reduce_ex__(protocol)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.metadata = {**FoxEnv.metadata, "name": cls.game_id}

    def __init__(self, /, render_mode: str | None = None, max_moves: int | None = None,
                 render_viewer: int | str | None = None, observation_layout: str = "hwc", **params: Any) -> None:
        """``render_viewer``: whose view ``render()`` shows; ``None`` (default) shows
        EVERYTHING, the hidden facts of hidden-information games included; a seat or an agent
        name shows only what that player may know (see the module doc). ``observation_layout``:
        ``"hwc"`` (default), ``"chw"`` or ``"flat"``, for observations and ``state()``."""
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise InvalidParameterError(
                f"{self.game_id}: bad render_mode {short_repr(render_mode)}; allowed: None, {', '.join(RENDER_MODES)}"
            )
        self.game: Game = make_game(self.game_id, **params)
        n = self.game.num_players
        where = f"{self.game_id}: "
        self.layout: ObservationLayout = make_layout(observation_layout, self.game.observation_shape, where)
        self.state_layout: ObservationLayout = make_layout(observation_layout, self.game.state_shape, where)
        self.state_space: spaces.Box = self.state_layout.space(observation_box(self.game.state_shape))
        if isinstance(render_viewer, str) and render_viewer in (f"player_{i}" for i in range(n)):
            render_viewer = int(render_viewer[len("player_"):])
        elif render_viewer is not None:
            if integer_in(render_viewer, 0, n - 1) is None:
                raise InvalidParameterError(
                    f"{self.game_id}: bad render_viewer {short_repr(render_viewer)}; allowed: None (everything), "
                    f"a seat 0..{n - 1} or an agent name player_0..player_{n - 1}")
            render_viewer = integer_in(render_viewer, 0)
        self.render_viewer: int | None = render_viewer
        if max_moves is None:
            max_moves = self.game.max_moves_default
        self.max_moves = integer_in(max_moves, 1)
        if self.max_moves is None:
            raise InvalidParameterError(
                f"{self.game_id}: bad value {short_repr(max_moves)} for parameter 'max_moves'; allowed: an integer >= 1"
            )
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self._seat = {agent: i for i, agent in enumerate(self.possible_agents)}
        self.observation_spaces = {
            agent: spaces.Dict({
                "observation": self.layout.space(observation_box(self.game.observation_shape)),
                "action_mask": spaces.Box(0, 1, (self.game.num_actions,), dtype=np.int8),
            })
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self.game.num_actions) for agent in self.possible_agents}
        self.np_random, self.np_random_seed = seeding.np_random(None)
        self.game_state: State = self.game.new_initial_state()
        self.moves = 0
        self.ending: str | None = None  # the status line of an ending outside the rules core

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ----- episode -------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self.np_random, self.np_random_seed = seeding.np_random(seed_value(seed, f"{self.game_id}: "))
        self.game_state = self.game.new_initial_state()
        resolve_chance(self.game_state, self.np_random)
        self.moves = 0
        self.ending = None
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: {} for agent in self.agents}
        self._select_after_move(self.possible_agents[0])

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        state = self.game_state
        if agent == self.agent_selection and state.current_player() == seat:
            mask = state.legal_actions_mask()
        else:
            mask = np.zeros(self.game.num_actions, dtype=np.int8)
        observation = state.observation_tensor(seat)
        if self.layout.changes:
            observation = self.layout.apply(observation)
        return {"observation": observation, "action_mask": mask}

    def state(self) -> np.ndarray:
        """PettingZoo's global state: the full-information tensor of the position
        (``State.state_tensor``, in ``state_space``), the same whoever asks."""
        return self.state_layout.apply(self.game_state.state_tensor())

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.game_state
        state.apply_action(action)  # raises IllegalActionError and changes nothing
        self.moves += 1
        self._cumulative_rewards[agent] = 0.0
        resolve_chance(state, self.np_random)
        if state.is_terminal():
            returns = state.returns()
            for i, name in enumerate(self.possible_agents):
                self.rewards[name] = float(returns[i])
                self.terminations[name] = True
            self._accumulate_rewards()
        elif self.moves >= self.max_moves:
            for name in self.agents:
                self.truncations[name] = True
            self.ending = ending.truncated(self.max_moves)
        self._select_after_move(agent)
        if self.render_mode == "human":
            self.render()

    def _select_after_move(self, mover: str) -> None:
        """The player to move, or after the end the next agent in seat order (to step out)."""
        player = self.game_state.current_player()
        if player >= 0 and not self.truncations[mover]:
            self.agent_selection = self.possible_agents[player]
        else:
            seat = self._seat[mover]
            self.agent_selection = self.possible_agents[(seat + 1) % len(self.possible_agents)]

    def end_with_illegal_action(self, error: IllegalActionError) -> None:
        """End the game: -1 for the agent to move, 0 for the others (the wrapped ``env()``)."""
        offender = self.agent_selection
        self._cumulative_rewards[offender] = 0.0
        self.ending = ending.illegal_move(self._seat[offender])
        # the message lists the offender's legal actions: with hidden information only it sees them
        public = str(error) if self.game.perfect_information else f"{offender} played an illegal action"
        for name in self.agents:
            self.rewards[name] = -1.0 if name == offender else 0.0
            self.terminations[name] = True
            self.infos[name] = {"illegal_action": name == offender, "illegal_action_by": offender,
                                "error": str(error) if name == offender else public}
        self._accumulate_rewards()

    # ----- rendering -----------------------------------------------------------------------
    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode= to env().")
            return None
        if self.render_mode == "rgb_array":
            return ending.board_picture(self.game_state, self.render_viewer, self.ending)
        if self.render_mode == "svg":
            return self._svg()
        text = ending.board_text(self.game_state, self.render_viewer, self.ending)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _svg(self) -> str:
        """The SVG document of the current state for ``render_viewer`` (with the ending's line)."""
        from fox_envs.core.svg import state_svg

        return state_svg(self.game_state, self.render_viewer, status=self.ending)

    def _repr_svg_(self) -> str:
        """Jupyter's picture of the env, whatever the render mode: the current state as
        ``render_viewer`` sees it (default ``None``: everything, as ``render()``), so a watcher
        sees the whole table and a finished game its result; ``render_viewer=<seat>`` keeps
        a seat's hidden facts hidden."""
        return self._svg()

    def close(self) -> None:
        pass


class IllegalActionWrapper(OrderEnforcingWrapper):
    """Order enforcement plus PettingZoo-classic illegal-move handling in one thin layer:
    an illegal, out-of-range or malformed action ends the game with -1 for the offender."""

    def step(self, action: Any) -> None:
        if not self._has_reset or not self.env.agents:
            super().step(action)  # PettingZoo's own error / warning
            return
        self._has_updated = True
        raw: FoxEnv = self.env.unwrapped  # type: ignore[assignment]
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw._was_dead_step(action)
            return
        try:
            raw.step(action)
        except IllegalActionError as error:
            raw.end_with_illegal_action(error)

    # ``last`` and ``agent_iter`` read the wrapped env directly: PettingZoo's versions read each
    # attribute through two ``__getattr__`` layers, about a microsecond apiece (half of the
    # cheapest game's ``env()`` step). Before ``reset`` they are PettingZoo's own (and raise its errors).
    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if not self._has_reset:
            return super().last(observe)
        return self.env.last(observe)

    def agent_iter(self, max_iter: int = 2**63) -> AECOrderEnforcingIterable:
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _AgentIterable(self, max_iter)

    def __reduce__(self):  # pickle and copy keep the order-enforcement flags as they are
        return (_rewrap, (self.env, self._has_reset, self._has_updated))

    def _repr_svg_(self) -> str:
        """The raw env's Jupyter picture (PettingZoo's wrappers hide ``_`` names)."""
        return self.env.unwrapped._repr_svg_()


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> "_AgentIterator":
        return _AgentIterator(self.env, self.max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator (same stops, same assertion), reading the
    agents from the env under the wrapper."""

    def __next__(self) -> str:
        wrapper = self.env
        raw = wrapper.env
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        assert wrapper._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        wrapper._has_updated = False
        return raw.agent_selection


def _rewrap(env: FoxEnv, has_reset: bool, has_updated: bool = False) -> IllegalActionWrapper:
    wrapped = IllegalActionWrapper(env)
    wrapped._has_reset = has_reset
    wrapped._has_updated = has_updated
    return wrapped


_GENERIC_CLASSES: dict[str, type[FoxEnv]] = {}


def raw_env_class(env_id: str) -> type[FoxEnv]:
    """The raw AEC env class of ``env_id``: its spec's thin module's ``raw_env``, else one
    generic ``FoxEnv`` subclass made for the id (the same class every time; its envs pickle
    and copy like any other, in any process where the game is registered)."""
    game_spec = spec(env_id)
    if game_spec.env_module:
        return importlib.import_module(game_spec.env_module).raw_env
    cls = _GENERIC_CLASSES.get(env_id)
    if cls is None:
        cls = type("raw_env", (FoxEnv,), {"game_id": env_id, "__module__": __name__, "_generic": True,
                                          "__qualname__": f"raw_env_class({env_id!r})"})
        _GENERIC_CLASSES[env_id] = cls
    return cls


def make(env_id: str, /, **params: Any) -> IllegalActionWrapper:
    """The wrapped PettingZoo AEC env of ``env_id``, same as ``fox_envs.<env_id>.env(**params)``."""
    return wrap(raw_env_class(env_id)(**params))


def _new_generic_env(env_id: str) -> FoxEnv:
    cls = raw_env_class(env_id)
    return cls.__new__(cls)


def wrap(env: FoxEnv) -> IllegalActionWrapper:
    return IllegalActionWrapper(env)
