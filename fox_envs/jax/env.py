"""``Env``: one game in JAX with Pgx's API (``init``, ``step``, ``observe``), on a game's
``JaxRules``, plus the bridge to the rules core (``to_core_state`` / ``from_core_state``).

What the env adds to the rules, the same for every game: the history, the count of player
decisions and ``max_moves`` truncation, the fields of ``State``, the observation layout, and
illegal actions (the mover loses: reward -1 for it, 0 for the others, the game terminated, as
PettingZoo's wrapped envs do; a jitted function cannot raise).
"""
from __future__ import annotations

from typing import Any, Callable

import jax
import jax.numpy as jnp
import numpy as np

from fox_envs.core.errors import InvalidParameterError, InvalidStateError
from fox_envs.core.game import CHANCE, TERMINAL, Game
from fox_envs.core.game import State as CoreState
from fox_envs.core.layout import ObservationLayout
from fox_envs.jax import keys
from fox_envs.jax.rules import JaxRules, write_at
from fox_envs.jax.state import State


def tree_where(condition: jax.Array, if_true: Any, if_false: Any) -> Any:
    """``if_true`` where ``condition`` holds, else ``if_false``, leaf by leaf (a scalar condition
    per game; under ``vmap`` one per row)."""
    return jax.tree_util.tree_map(lambda a, b: jnp.where(condition, a, b), if_true, if_false)


class Env:
    """``env_id`` in JAX: pure ``init`` / ``step`` / ``observe`` that ``jit`` and ``vmap``."""

    def __init__(self, env_id: str, rules: JaxRules, game: Game, max_moves: int, layout: ObservationLayout) -> None:
        self.id = env_id
        self.version = env_id.rpartition("_v")[2]
        self.rules = rules
        self.game = game
        self.params = dict(game.params)
        self.max_moves = max_moves
        self.layout = layout
        self.num_players = rules.num_players
        self.num_actions = rules.num_actions
        self.observation_shape = layout.shape
        self.history_capacity = rules.history_capacity()
        largest_id = max(self.num_actions, rules.max_chance_outcomes) - 1
        # the smallest integer type that holds every id: the history is the largest array of a
        # long game's state, and a step without donated buffers writes it whole
        self._history_dtype = next(dtype for dtype, top in ((jnp.int8, 2 ** 7), (jnp.uint8, 2 ** 8),
                                                            (jnp.int16, 2 ** 15), (jnp.int32, 2 ** 31))
                                   if largest_id < top)
        self._jit_apply: Callable | None = None
        self._live_start: bool | None = None  # see _starts_live

    def __repr__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"fox_envs.jax.make({self.id!r}{params}, max_moves={self.max_moves})"

    # ----- Pgx's API --------------------------------------------------------------------------
    def init(self, key: jax.Array) -> State:
        """A new game, its opening chance (if any) drawn from ``key``."""
        return self._state(*self._fresh(key), jnp.int32(0), jnp.int32(0))

    def step(self, state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """The mover plays ``action``; the chance that follows is drawn from ``key``. A finished
        state stays as it is (with zero rewards); an illegal action ends the game with reward -1
        for the mover and 0 for the others."""
        action, key = self._checked(action, key)
        done = state.terminated | state.truncated
        safe_action, legal, offence = self._judge(state, action)
        ok = legal & ~done  # the step counts; otherwise the position stays as it was
        played, history, length = self._play(state, safe_action, key)
        position = tree_where(ok, played, state._position)
        after = self._state(position, jnp.where(ok, history, state._history), jnp.where(ok, length, state._history_len),
                            state._step_count + ok, state.current_player)
        # where the step does not count, the observation (of the same position and seat) is unchanged
        return after.replace(
            current_player=jnp.where(ok, after.current_player, state.current_player),
            legal_action_mask=after.legal_action_mask & ok,
            rewards=jnp.where(ok, after.rewards, jnp.where(done, jnp.zeros_like(offence), offence)),
            terminated=jnp.where(ok, after.terminated, state.terminated | ~legal),
            truncated=jnp.where(ok, after.truncated, state.truncated),
        )

    def observe(self, state: State, player_id: jax.Array) -> jax.Array:
        """What ``player_id`` sees: the rules core's ``observation_tensor(player_id)``."""
        return self._layout(self.rules.observe(state._position, jnp.asarray(player_id, jnp.int32)))

    # ----- the bridge -------------------------------------------------------------------------
    def to_core_state(self, state: State) -> CoreState:
        """The rules-core ``State`` of one (unbatched) JAX state: the same history, chance
        outcomes included. A game ended by an illegal action gives the position before it."""
        length = np.asarray(state._history_len)
        if length.ndim:
            raise InvalidStateError(
                f"{self.id}: to_core_state takes one game; index a batched state first, e.g. "
                "jax.tree_util.tree_map(lambda x: x[i], state)")
        core = self.game.new_initial_state()
        for action in np.asarray(state._history)[: int(length)]:
            core.apply_action(int(action))
        return core

    def from_core_state(self, core_state: CoreState) -> State:
        """The JAX state of a rules-core ``State`` of this game and params (not at a chance node)."""
        if getattr(core_state, "game", None) != self.game:
            raise InvalidParameterError(
                f"{self.id}: from_core_state needs a state of {self.game!r}, got {getattr(core_state, 'game', core_state)!r}")
        if core_state.is_chance_node():
            raise InvalidStateError(f"{self.id}: from_core_state takes a state with a player to move or a finished "
                                    "one; this one is at a chance node (apply its outcome first)")
        history = core_state.history()
        if len(history) > self.history_capacity:
            raise InvalidStateError(f"{self.id}: the state's history has {len(history)} entries; a game of at most "
                                    f"max_moves={self.max_moves} decisions has at most {self.history_capacity}")
        if self._jit_apply is None:
            self._jit_apply = jax.jit(lambda p, a: (self.rules.apply(p, a), self.rules.player(p)))
        padded = np.zeros(self.history_capacity, np.dtype(self._history_dtype))
        padded[: len(history)] = history
        position = self.rules.initial()
        decisions, mover = 0, 0
        for action in history:
            position, player = self._jit_apply(position, jnp.int32(action))
            if int(player) >= 0:
                decisions, mover = decisions + 1, int(player)
        if decisions > self.max_moves:
            raise InvalidStateError(f"{self.id}: the state has {decisions} decisions, over max_moves={self.max_moves}")
        return self._state(position, jnp.asarray(padded), jnp.int32(len(history)), jnp.int32(decisions),
                           jnp.int32(mover))

    def _step_with_reset(self, state: State, action: jax.Array, key: jax.Array) -> State:
        """``auto_reset(self.step, self.init)`` in one pass, the same states: the position is
        chosen first (the new game's where the step ends the game, else the played one) and the
        state's arrays (observation, mask) are computed once, not for both and then selected (on
        a CPU that halves X-Ceter-O's step). The step's ``rewards``, ``terminated`` and
        ``truncated`` are kept, as ``auto_reset`` keeps them."""
        # without chance neither the step nor a new game reads its key: no split
        step_key, init_key = keys.split(key) if self.rules.max_chance_outcomes else (key, key)
        action, _ = self._checked(action, step_key)
        safe_action, legal, offence = self._judge(state, action)  # a state given finished is played on
        played, history, length = self._play(state, safe_action, step_key)
        decisions = state._step_count + 1
        ended = self.rules.player(played) == TERMINAL
        terminated = ~legal | ended
        truncated = legal & ~ended & (decisions >= self.max_moves)
        returns = self.rules.returns(played).astype(jnp.float32)
        rewards = jnp.where(legal, jnp.where(ended, returns, jnp.zeros_like(returns)), offence)
        new_game = terminated | truncated
        position, history0, length0 = self._fresh(init_key)
        state = self._state(tree_where(new_game, position, played), jnp.where(new_game, history0, history),
                            jnp.where(new_game, length0, length), jnp.where(new_game, 0, decisions),
                            jnp.where(new_game, 0, state.current_player), live=self._starts_live())
        return state.replace(rewards=rewards, terminated=terminated, truncated=truncated)

    def _starts_live(self) -> bool:
        """Whether every new game starts with a player to move (no chance before the first move,
        and the initial position not over): then no state ``_step_with_reset`` returns is over (a
        game that ends is replaced by a new one), and its mask needs no clearing."""
        if self._live_start is None:
            with jax.ensure_compile_time_eval():
                player = int(self.rules.player(self.rules.initial()))
            self._live_start = not self.rules.max_chance_outcomes and player >= 0 and self.max_moves >= 1
        return self._live_start

    # ----- the generic part of a step ---------------------------------------------------------
    def _fresh(self, key: jax.Array) -> tuple[Any, jax.Array, jax.Array]:
        """The position, history and its length of a new game, its opening chance drawn from
        ``key``."""
        history = jnp.zeros(self.history_capacity, self._history_dtype)
        return self.rules.resolve_chance(self.rules.initial(), key, history, jnp.int32(0))

    def _checked(self, action: jax.Array, key: jax.Array | None) -> tuple[jax.Array, jax.Array]:
        """``action`` as int32 and the step's key; a non-integer action, or no key in a game with
        chance, raises ``TypeError`` (when traced)."""
        action = jnp.asarray(action)
        if not jnp.issubdtype(action.dtype, jnp.integer):
            raise TypeError(f"{self.id}: an action must be an integer array, got dtype {action.dtype}")
        if key is None:
            if self.rules.max_chance_outcomes:
                raise TypeError(f"{self.id} has chance events: pass a key, env.step(state, action, key)")
            key = jax.random.PRNGKey(0)
        return action.astype(jnp.int32), key

    def _judge(self, state: State, action: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
        """The action to play (0 where out of range), whether it is legal in ``state``, and the
        rewards of an illegal one (-1 for the mover, 0 for the others)."""
        in_range = (action >= 0) & (action < self.num_actions)
        safe_action = jnp.where(in_range, action, 0)
        legal = in_range & state.legal_action_mask[safe_action]
        offence = jnp.where(jnp.arange(self.num_players) == state.current_player, -1.0, 0.0).astype(jnp.float32)
        return safe_action, legal, offence

    def _play(self, state: State, action: jax.Array, key: jax.Array) -> tuple[Any, jax.Array, jax.Array]:
        """The position, history and its length after a legal ``action`` and the chance that
        follows it."""
        position = self.rules.apply(state._position, action)
        history = write_at(state._history, state._history_len, action)
        return self.rules.resolve_chance(position, key, history, state._history_len + 1)

    def _state(self, position: Any, history: jax.Array, length: jax.Array, decisions: jax.Array,
               last_mover: jax.Array, live: bool = False) -> State:
        """The ``State`` fields of ``position``: after the game, the last mover's view. ``live``:
        the position is known to be neither over nor truncated, so the rules' mask is kept as it
        is (no pass that clears it: Outwit's has 8,101 entries a row)."""
        rules = self.rules
        player = rules.player(position)
        terminated = player == TERMINAL
        truncated = ~terminated & (decisions >= self.max_moves)
        seat = jnp.where(terminated, last_mover, jnp.maximum(player, 0)).astype(jnp.int32)
        over = terminated | truncated
        returns = rules.returns(position).astype(jnp.float32)
        return State(
            current_player=seat,
            observation=self._layout(rules.observe(position, seat)),
            legal_action_mask=rules.legal_mask(position) if live else rules.legal_mask(position) & ~over,
            rewards=jnp.where(terminated, returns, jnp.zeros_like(returns)),
            terminated=terminated,
            truncated=truncated,
            _step_count=decisions,
            _history=history,
            _history_len=length,
            _position=position,
        )

    def _layout(self, observation: jax.Array) -> jax.Array:
        layout = self.layout
        if not layout.changes:
            return observation
        if layout.channels_first:
            return jnp.moveaxis(observation, -1, -3)
        return observation.reshape(observation.shape[: observation.ndim - len(layout.core_shape)] + layout.shape)


def auto_reset(step_fn: Callable[[State, jax.Array, jax.Array], State],
               init_fn: Callable[[jax.Array], State]) -> Callable[[State, jax.Array, jax.Array], State]:
    """A step that starts a new game (``init_fn`` with a key split from the step's) the moment
    one ends, as Pgx's ``auto_reset``: the returned state is the new game's, except ``rewards``,
    ``terminated`` and ``truncated``, which tell how the step ended the old one. For an env's own
    ``step`` and ``init`` the same states come from ``Env._step_with_reset`` (one pass)."""
    env = getattr(step_fn, "__self__", None)
    if isinstance(env, Env) and step_fn == env.step and init_fn == env.init:
        return env._step_with_reset

    def wrapped_step(state: State, action: jax.Array, key: jax.Array) -> State:
        step_key, init_key = keys.split(key)
        state = state.replace(terminated=jnp.zeros_like(state.terminated), truncated=jnp.zeros_like(state.truncated))
        state = step_fn(state, action, step_key)
        fresh = init_fn(init_key).replace(rewards=state.rewards, terminated=state.terminated, truncated=state.truncated)
        return tree_where(state.terminated | state.truncated, fresh, state)

    return wrapped_step


CHANCE_ID = CHANCE  # re-exported for game modules
