"""``JaxRules``: what one game provides to the JAX backend (one subclass per game).

A game's JAX rules work on a *position*: a pytree of fixed-shape arrays (a ``NamedTuple`` of
``jax.Array`` is the usual choice) that holds everything the rules core's ``State`` holds except
the history, which the generic ``Env`` records. Every method is a pure function of arrays: it
must ``jit`` and ``vmap``, with no Python control flow on traced values.

Ids are the rules core's: a player action or a chance outcome is the same integer as in
``State.apply_action``, so the history the ``Env`` records replays in the rules core.
"""
from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from fox_envs.core.game import CHANCE, TERMINAL, Game
from fox_envs.jax import keys

Position = Any  # a pytree of arrays


class JaxRules:
    """One game's rules in JAX, built from the rules-core ``Game`` (its params decide the tables)
    and ``max_moves`` (the env's truncation: it bounds the arrays a game's history needs).

    Subclasses set ``num_players``, ``num_actions``, ``observation_shape`` (the rules core's),
    ``max_chance_outcomes`` (0: no chance) and implement the methods below."""

    num_players: int
    num_actions: int
    observation_shape: tuple[int, ...]
    max_chance_outcomes: int = 0

    def __init__(self, game: Game, max_moves: int) -> None:
        self.game = game
        self.max_moves = max_moves

    def history_capacity(self) -> int:
        """The most actions plus chance outcomes a game of at most ``max_moves`` decisions has."""
        raise NotImplementedError

    def initial(self) -> Position:
        """The position ``Game.new_initial_state()`` starts from (possibly a chance node)."""
        raise NotImplementedError

    def player(self, position: Position) -> jax.Array:
        """The rules core's ``current_player()``: a seat, ``CHANCE`` (-1) or ``TERMINAL`` (-2)."""
        raise NotImplementedError

    def apply(self, position: Position, action: jax.Array) -> Position:
        """``State.apply_action(action)`` for a legal player action or chance outcome (the result
        for anything else is unspecified but must not fail)."""
        raise NotImplementedError

    def legal_mask(self, position: Position) -> jax.Array:
        """``legal_actions_mask()`` as bool ``[num_actions]`` for the player to move (only read
        when a player is to move)."""
        raise NotImplementedError

    def chance_weights(self, position: Position) -> jax.Array:
        """At a chance node: int32 ``[max_chance_outcomes]``, each outcome's probability times one
        common positive integer (the rules core's probabilities exactly, as ratios of integers)."""
        raise NotImplementedError

    def returns(self, position: Position) -> jax.Array:
        """``returns()`` as float32 ``[num_players]`` (read at a terminal position)."""
        raise NotImplementedError

    def observe(self, position: Position, player: jax.Array) -> jax.Array:
        """``observation_tensor(player)`` as float32 of ``observation_shape``: only what ``player``
        may know."""
        raise NotImplementedError

    # ----- chance ---------------------------------------------------------------------------
    def draw_chance(self, position: Position, key: jax.Array) -> jax.Array:
        """One outcome drawn from ``key`` with probability ``weight / sum(weights)``, exactly: an
        integer uniform below the total picks the outcome whose cumulative weight passes it."""
        weights = self.chance_weights(position)
        cumulative = jnp.cumsum(weights)
        ticket = jax.random.randint(key, (), 0, cumulative[-1], dtype=jnp.int32)
        return jnp.argmax(cumulative > ticket).astype(jnp.int32)

    def resolve_chance(self, position: Position, key: jax.Array, history: jax.Array,
                       length: jax.Array) -> tuple[Position, jax.Array, jax.Array]:
        """Draw and apply chance outcomes until a player is to move (or the game is over),
        appending each outcome to ``history`` at ``length``. A game whose chance comes in long
        runs may override this with a faster draw of the same distribution."""
        if not self.max_chance_outcomes:
            return position, history, length

        def at_chance(carry: tuple) -> jax.Array:
            return self.player(carry[0]) == CHANCE

        def draw_one(carry: tuple) -> tuple:
            position, key, history, length = carry
            key, sub = keys.split(key)
            outcome = self.draw_chance(position, sub)
            return self.apply(position, outcome), key, write_at(history, length, outcome), length + 1

        position, _, history, length = jax.lax.while_loop(at_chance, draw_one, (position, key, history, length))
        return position, history, length


SELECT_WRITE_LIMIT = 512  # entries: up to this a select writes faster than a scatter


def write_at(array: jax.Array, index: jax.Array, value: jax.Array) -> jax.Array:
    """``array`` with ``array[index] = value`` (1-D). Under ``vmap`` on a CPU a select over a
    short array is several times faster than a scatter; over a long one (thousands of entries)
    the select, which reads and writes every entry, costs more than a copy and a scatter of one
    entry."""
    value = jnp.asarray(value).astype(array.dtype)
    if array.shape[0] > SELECT_WRITE_LIMIT:
        return jax.lax.dynamic_update_slice(array, value[None], (index,))
    return jnp.where(jnp.arange(array.shape[0]) == index, value, array)


def is_terminal(player: jax.Array) -> jax.Array:
    """Whether a rules-core player id is ``TERMINAL``."""
    return player == TERMINAL
